import Foundation

/// Where writes and barriers meet: any number of writers pass together (shared), and a barrier
/// passes alone (exclusive) for the instant it reads the checkpoint cut and enqueues itself.
///
/// A writer holds the gate only while it applies its rows, logs them and appends its chunks
/// (which never wait: it waited for room before entering), so a barrier never waits behind a
/// slow reader, and one relation's writers never wait for another's. A barrier that is waiting
/// keeps new writers out, so a steady stream of writes cannot starve it.
final class CutGate: @unchecked Sendable {
    private let condition = NSCondition()
    private var sharers = 0
    private var exclusive = false
    private var exclusiveWaiting = 0

    func withShared<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        condition.lock()
        while exclusive || exclusiveWaiting > 0 { condition.wait() }
        sharers += 1
        condition.unlock()
        defer {
            condition.lock()
            sharers -= 1
            if sharers == 0 { condition.broadcast() }
            condition.unlock()
        }
        return try body()
    }

    func withExclusive<T, E: Error>(_ body: () throws(E) -> T) throws(E) -> T {
        condition.lock()
        exclusiveWaiting += 1
        while exclusive || sharers > 0 { condition.wait() }
        exclusiveWaiting -= 1
        exclusive = true
        condition.unlock()
        defer {
            condition.lock()
            exclusive = false
            condition.broadcast()
            condition.unlock()
        }
        return try body()
    }
}

/// One table's or source's way into the stream graph: its change stream, and the lock that
/// keeps its writers' changes in the order they were applied.
final class RelationInput: @unchecked Sendable {
    let stream = ChangeDispatcher()
    let lock = NSLock()
}
