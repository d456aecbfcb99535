import SluiceCore
import Synchronization

/// The push queries (`SELECT … EMIT CHANGES`) running now, by id, so that `/close-query` and
/// `TERMINATE` can end them. Each is a connection's stream: nothing here outlives it.
package final class KsqlPushQueries: Sendable {
    /// The prefix of a push query's sink and topic (`ksql_push_3`, `_ksql_push_3`).
    static let namePrefix = "ksql_push_"

    /// One running push query; its stream ends once `isClosed`.
    final class Handle: Sendable {
        let id: String
        let sql: String
        private let closed = Atomic<Bool>(false)

        init(id: String, sql: String) {
            self.id = id
            self.sql = sql
        }

        var isClosed: Bool { closed.load(ordering: .acquiring) }
        func close() { closed.store(true, ordering: .releasing) }
    }

    private let running = Mutex<[String: Handle]>([:])

    func register(_ handle: Handle) {
        running.withLock { $0[handle.id] = handle }
    }

    func remove(_ id: String) {
        _ = running.withLock { $0.removeValue(forKey: id) }
    }

    /// Ends push query `id` (its stream stops at its next poll); false when none runs by that id.
    func close(_ id: String) -> Bool {
        let wanted = id.uppercased()
        let found = running.withLock { queries in queries[id] ?? queries.first { entry in entry.key.uppercased() == wanted }?.value }
        guard let handle = found else { return false }
        handle.close()
        return true
    }

    /// The running push queries as SHOW QUERIES lists them.
    func listed() -> [JSONDocument] {
        running.withLock { Array($0.values) }.sorted { $0.id < $1.id }.map { handle in
            .object([
                "queryString": .string(handle.sql), "sinks": .array([]), "sinkKafkaTopics": .array([]), "id": .string(handle.id),
                "statusCount": .object(["RUNNING": .int(1)]), "queryType": .string("PUSH"), "state": .string("RUNNING"),
            ])
        }
    }
}
