import Foundation
import SluiceCore

/// The channel into a fragment: a bounded many-producer one-consumer queue of stream messages.
///
/// Chunks count against the capacity; barriers and watermarks always fit, so control messages
/// never wait behind data they are meant to close.
///
/// - Threads outside the worker pool (table writes) push with ``push(_:input:)``, which waits
///   while the queue is full: a slow view slows the writers instead of letting memory grow.
/// - Fragments on the pool never wait: they check ``hasRoom(orCall:)`` before taking a message
///   and give their worker back while a reader's queue is full; the callback reschedules them
///   when the reader makes room. So a queue can exceed its capacity only by the output of the one
///   message its producer was handling.
/// - The queue also tracks whether its fragment is scheduled: the first message into an idle
///   queue calls `schedule`, and ``popOrIdle()`` marks it idle only when there is nothing left.
package final class MessageQueue: @unchecked Sendable {
    package struct Entry: Sendable {
        /// Which upstream of the consuming fragment sent the message.
        package var input: Int
        package var message: StreamMessage
    }

    private let condition = NSCondition()
    /// Messages from `head` on wait; those before it were taken (nil, so that a taken chunk is
    /// freed as soon as its consumer is done with it, not when the array is next compacted).
    private var entries: [Entry?] = []
    private var head = 0
    private var chunkCount = 0
    private var closed = false
    private var waiting = 0
    private var scheduled = false
    private var roomWaiters: [@Sendable () -> Void] = []
    package let capacity: Int
    /// Called (without the queue's lock) when a message arrives for an idle consumer.
    package var schedule: @Sendable () -> Void = {}

    /// - Parameter capacity: the most chunks held at once.
    package init(capacity: Int = 64) {
        self.capacity = capacity
    }

    /// Appends `message`; a chunk waits while the queue is full. For threads outside the pool.
    package func push(_ message: StreamMessage, input: Int) {
        append(message, input: input, waitForRoom: true)
    }

    /// Returns once the queue can take a chunk (or is closed). A writer outside the pool waits
    /// here before it enters the runtime's gate, and then appends without waiting: it never
    /// holds up a barrier or another relation's writers while a slow reader catches up.
    package func waitForRoom() {
        condition.lock()
        while chunkCount >= capacity && !closed {
            waiting += 1
            condition.wait()
            waiting -= 1
        }
        condition.unlock()
    }

    /// Appends `message` without waiting (a fragment's output; see ``hasRoom(orCall:)``).
    package func pushWithoutWaiting(_ message: StreamMessage, input: Int) {
        append(message, input: input, waitForRoom: false)
    }

    private func append(_ message: StreamMessage, input: Int, waitForRoom: Bool) {
        condition.lock()
        let isChunk: Bool
        if case .chunk = message { isChunk = true } else { isChunk = false }
        while waitForRoom && isChunk && chunkCount >= capacity && !closed {
            waiting += 1
            condition.wait()
            waiting -= 1
        }
        if closed {
            condition.unlock()
            return
        }
        if isChunk { chunkCount += 1 }
        entries.append(Entry(input: input, message: message))
        condition.broadcast()
        let wake = !scheduled
        scheduled = true
        condition.unlock()
        if wake { schedule() }
    }

    /// The oldest message, or nil — and then the consumer is marked idle, so the next push
    /// schedules it again. Never waits.
    package func popOrIdle() -> Entry? {
        condition.lock()
        if head == entries.count || closed {
            scheduled = false
            condition.unlock()
            return nil
        }
        let entry = entries[head]!
        entries[head] = nil
        head += 1
        if head > 1024 && head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
        var woken: [@Sendable () -> Void] = []
        if case .chunk = entry.message {
            chunkCount -= 1
            if chunkCount < capacity {
                condition.broadcast()
                woken = roomWaiters
                roomWaiters = []
            }
        }
        condition.unlock()
        for callback in woken { callback() }
        return entry
    }

    /// The oldest message, waiting for one; nil once the queue is closed. For a consumer on a
    /// thread of its own (tests).
    package func pop() -> Entry? {
        while true {
            if let entry = popOrIdle() { return entry }
            condition.lock()
            if closed {
                condition.unlock()
                return nil
            }
            while head == entries.count && !closed { condition.wait() }
            condition.unlock()
        }
    }

    /// True when the queue can take a chunk now; otherwise false, and `callback` runs once it can.
    package func hasRoom(orCall callback: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if chunkCount < capacity || closed { return true }
        roomWaiters.append(callback)
        return false
    }

    /// Producers waiting for room (for tests and statistics).
    package var waitingProducers: Int {
        condition.lock()
        defer { condition.unlock() }
        return waiting + roomWaiters.count
    }

    package var isClosed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed
    }

    /// Stops the queue: waiting producers return, later pushes are dropped, and the consumer
    /// finds nothing more.
    package func close() {
        condition.lock()
        closed = true
        entries.removeAll()
        head = 0
        let woken = roomWaiters
        roomWaiters = []
        condition.broadcast()
        condition.unlock()
        for callback in woken { callback() }
    }
}

/// Sends a relation's change stream to every fragment that reads it.
package final class ChangeDispatcher: @unchecked Sendable {
    private struct Subscriber {
        var fragmentID: Int
        var queue: MessageQueue
        var input: Int
        /// The columns the subscriber reads (nil: all).
        var columns: Set<Int>?
    }

    private let lock = NSLock()
    private var subscribers: [Subscriber] = [] {
        didSet { union = Self.union(of: subscribers) }
    }
    /// ``readColumns``, worked out as subscribers come and go rather than per chunk.
    private var union: Set<Int>?

    package init() {}

    private static func union(of subscribers: [Subscriber]) -> Set<Int>? {
        var union = Set<Int>()
        for subscriber in subscribers {
            guard let columns = subscriber.columns else { return nil }
            union.formUnion(columns)
        }
        return subscribers.isEmpty ? nil : union
    }

    package var hasSubscribers: Bool {
        lock.lock()
        defer { lock.unlock() }
        return !subscribers.isEmpty
    }

    /// The columns the subscribers read, together (nil: all of them, or some subscriber reads
    /// every column); a source may leave the others unread (NULL).
    package var readColumns: Set<Int>? {
        lock.lock()
        defer { lock.unlock() }
        return union
    }

    /// Adds a subscriber that reads `columns` of each change (nil: all of them).
    package func subscribe(fragmentID: Int, queue: MessageQueue, input: Int, columns: Set<Int>? = nil) {
        lock.lock()
        subscribers.append(Subscriber(fragmentID: fragmentID, queue: queue, input: input, columns: columns))
        lock.unlock()
    }

    package func unsubscribe(fragmentID: Int) {
        lock.lock()
        subscribers.removeAll { $0.fragmentID == fragmentID }
        lock.unlock()
    }

    private var targets: [Subscriber] {
        lock.lock()
        defer { lock.unlock() }
        return subscribers
    }

    /// Returns once every subscriber's queue can take a chunk.
    package func waitForRoom() {
        for target in targets { target.queue.waitForRoom() }
    }

    /// Delivers `message` to every subscriber without waiting (a fragment's output, or a
    /// writer that waited for room first).
    package func sendWithoutWaiting(_ message: StreamMessage) {
        for target in targets { target.queue.pushWithoutWaiting(message, input: target.input) }
    }

    /// True when every subscriber's queue can take a chunk; otherwise false, and `callback` runs
    /// when the first full one has room.
    package func hasRoom(orCall callback: @escaping @Sendable () -> Void) -> Bool {
        for target in targets where !target.queue.hasRoom(orCall: callback) { return false }
        return true
    }
}
