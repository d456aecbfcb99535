import Foundation
import SluiceCore

/// A bounded, blocking, many-producer one-consumer queue of stream messages: the channel between
/// fragments. A producer that finds it full waits, so a slow consumer slows its producers
/// instead of letting memory grow.
///
/// Chunks count against the capacity; barriers and watermarks always fit, so control messages
/// never wait behind data they are meant to close. Closing wakes everyone: pushes after
/// `close()` are dropped and `pop()` returns nil once the queue is empty.
package final class MessageQueue: @unchecked Sendable {
    package struct Entry: Sendable {
        /// Which upstream of the consuming fragment sent the message.
        package var input: Int
        package var message: StreamMessage
    }

    private let condition = NSCondition()
    private var entries: [Entry] = []
    private var head = 0
    private var chunkCount = 0
    private var closed = false
    private var waiting = 0
    package let capacity: Int

    /// - Parameter capacity: the most chunks held at once.
    package init(capacity: Int = 64) {
        self.capacity = capacity
    }

    /// Appends `message`, waiting while the queue holds `capacity` chunks.
    package func push(_ message: StreamMessage, input: Int) {
        condition.lock()
        defer { condition.unlock() }
        let isChunk: Bool
        if case .chunk = message { isChunk = true } else { isChunk = false }
        while isChunk && chunkCount >= capacity && !closed {
            waiting += 1
            condition.wait()
            waiting -= 1
        }
        if closed { return }
        if isChunk { chunkCount += 1 }
        entries.append(Entry(input: input, message: message))
        condition.broadcast()
    }

    /// The oldest message, waiting for one; nil when the queue is closed and empty.
    package func pop() -> Entry? {
        condition.lock()
        defer { condition.unlock() }
        while head == entries.count && !closed { condition.wait() }
        if head == entries.count { return nil }
        let entry = entries[head]
        head += 1
        if head > 1024 && head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
        if case .chunk = entry.message {
            chunkCount -= 1
            condition.broadcast()
        }
        return entry
    }

    /// Producers waiting for room (for tests and statistics).
    package var waitingProducers: Int {
        condition.lock()
        defer { condition.unlock() }
        return waiting
    }

    /// Stops the queue: waiting producers and the consumer return.
    package func close() {
        condition.lock()
        closed = true
        entries.removeAll()
        head = 0
        condition.broadcast()
        condition.unlock()
    }
}

/// Sends a relation's change stream to every fragment that reads it.
package final class ChangeDispatcher: @unchecked Sendable {
    private struct Subscriber {
        var fragmentID: Int
        var queue: MessageQueue
        var input: Int
    }

    private let lock = NSLock()
    private var subscribers: [Subscriber] = []

    package init() {}

    package var hasSubscribers: Bool {
        lock.lock()
        defer { lock.unlock() }
        return !subscribers.isEmpty
    }

    package func subscribe(fragmentID: Int, queue: MessageQueue, input: Int) {
        lock.lock()
        subscribers.append(Subscriber(fragmentID: fragmentID, queue: queue, input: input))
        lock.unlock()
    }

    package func unsubscribe(fragmentID: Int) {
        lock.lock()
        subscribers.removeAll { $0.fragmentID == fragmentID }
        lock.unlock()
    }

    /// Delivers `message` to every subscriber, waiting on full queues.
    package func send(_ message: StreamMessage) {
        lock.lock()
        let targets = subscribers
        lock.unlock()
        for target in targets { target.queue.push(message, input: target.input) }
    }
}
