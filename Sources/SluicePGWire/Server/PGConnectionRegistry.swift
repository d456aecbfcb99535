import NIOCore
import Synchronization

/// The live connections of a server: their channels, for shutdown, and their sessions by cancel
/// key, so a CancelRequest arriving on another connection can reach them ("Canceling Requests in Progress").
///
/// Thread-safe; calls into sessions happen outside the lock.
package final class PGConnectionRegistry: Sendable {
    private struct Entry {
        var secretKey: Int32
        var session: any PGSession
    }

    private struct State {
        var nextProcessID: Int32 = 1
        var sessions: [Int32: Entry] = [:]
        var channels: [ObjectIdentifier: any Channel] = [:]
        var isShutDown = false
    }

    private let state = Mutex(State())
    /// Logins refused so far (unknown roles, NOLOGIN, wrong passwords), for `/metrics`.
    package let failedLogins = Atomic<Int>(0)

    package init() {}

    /// A fresh process id and a random secret key for a new connection.
    package func makeCancelKey() -> (processID: Int32, secretKey: Int32) {
        let processID = state.withLock { state in
            defer { state.nextProcessID = state.nextProcessID == .max ? 1 : state.nextProcessID + 1 }
            return state.nextProcessID
        }
        return (processID, Int32.random(in: .min ... .max))
    }

    /// Makes `session` cancellable with the key (`processID`, `secretKey`).
    package func register(_ session: any PGSession, processID: Int32, secretKey: Int32) {
        state.withLock { $0.sessions[processID] = Entry(secretKey: secretKey, session: session) }
    }

    /// Forgets the session of `processID`.
    package func unregister(processID: Int32) {
        state.withLock { _ = $0.sessions.removeValue(forKey: processID) }
    }

    /// Cancels the session with this key; a wrong key does nothing, as in Postgres.
    package func cancel(processID: Int32, secretKey: Int32) {
        let session = state.withLock { state -> (any PGSession)? in
            guard let entry = state.sessions[processID], entry.secretKey == secretKey else { return nil }
            return entry.session
        }
        session?.cancel()
    }

    /// Tracks `channel` until it closes; returns false (and tracks nothing) once the server shut down.
    package func track(_ channel: any Channel) -> Bool {
        let id = ObjectIdentifier(channel)
        let isTracked = state.withLock { state in
            guard !state.isShutDown else { return false }
            state.channels[id] = channel
            return true
        }
        if isTracked {
            channel.closeFuture.whenComplete { [weak self] _ in
                self?.state.withLock { _ = $0.channels.removeValue(forKey: id) }
            }
        }
        return isTracked
    }

    /// Marks the server as shut down and returns the channels still open.
    package func shutDown() -> [any Channel] {
        state.withLock { state in
            state.isShutDown = true
            return Array(state.channels.values)
        }
    }
}
