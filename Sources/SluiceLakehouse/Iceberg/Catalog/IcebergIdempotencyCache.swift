import Synchronization

/// Remembers the responses of mutating requests by their `Idempotency-Key` so a client's retry
/// gets the same answer instead of doing the change twice (REST spec: `idempotency-key`).
///
/// Bounded in count and age: at most `capacity` keys, each kept `lifetimeSeconds`; the oldest
/// go first. Server errors (5xx) are not stored, so a retry after one runs again.
package final class IcebergIdempotencyCache: Sendable {
    package struct Entry: Sendable, Hashable {
        package var response: IcebergRESTResponse
        var storedAt: Int64
    }

    let capacity: Int
    let lifetimeSeconds: Int64
    private let storage = Mutex<(entries: [String: Entry], order: [String], head: Int)>(([:], [], 0))

    package init(capacity: Int = 10_000, lifetimeSeconds: Int64 = 300) {
        self.capacity = capacity
        self.lifetimeSeconds = lifetimeSeconds
    }

    /// The stored response for `key`, unless it expired.
    package func response(for key: String, now: Int64) -> IcebergRESTResponse? {
        storage.withLock { state in
            guard let entry = state.entries[key], now - entry.storedAt < lifetimeSeconds else { return nil }
            return entry.response
        }
    }

    package func store(_ response: IcebergRESTResponse, for key: String, now: Int64) {
        guard response.status < 500 else { return }
        storage.withLock { state in
            if state.entries[key] == nil { state.order.append(key) }
            state.entries[key] = Entry(response: response, storedAt: now)
            // Evict from the front: the expired first, then the oldest beyond capacity.
            while state.head < state.order.count {
                let oldest = state.order[state.head]
                guard let entry = state.entries[oldest] else { state.head += 1; continue }
                guard state.entries.count > capacity || now - entry.storedAt >= lifetimeSeconds else { break }
                state.entries[oldest] = nil
                state.head += 1
            }
            if state.head > 1024 && state.head * 2 > state.order.count {
                state.order.removeFirst(state.head)
                state.head = 0
            }
        }
    }

    package var count: Int { storage.withLock { $0.entries.count } }
}
