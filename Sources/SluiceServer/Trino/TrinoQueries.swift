import Dispatch
import Foundation
import SluiceCore
import SluicePGWire
import Synchronization

/// The running queries of the Trino door, by id; a query no client asked about for
/// ``abandonedAfter`` (a client that went away mid-result) is cancelled and dropped by a sweep.
final class TrinoQueries: Sendable {
    private let queries = Mutex<[String: TrinoQuery]>([:])
    private let counter = Atomic<Int>(0)
    let abandonedAfter: Duration
    /// At most this many queries at once; a POST past it answers 503, as a busy coordinator.
    static let limit = 1024

    init(abandonedAfter: Duration) {
        self.abandonedAfter = abandonedAfter
    }

    var count: Int { queries.withLock { $0.count } }

    /// A new id in Trino's shape: `YYYYMMDD_HHMMSS_NNNNN_sluic`.
    func nextID() -> String {
        let number = counter.add(1, ordering: .relaxed).newValue
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        var text: [UInt8] = []
        TrinoTypes.appendTimestamp(now, to: &text)
        let stamp = String(decoding: text.prefix(19).filter { $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: ":") }, as: UTF8.self)
            .replacingOccurrences(of: " ", with: "_")
        let digits = String(number % 100_000)
        return "\(stamp)_\(String(repeating: "0", count: 5 - digits.count))\(digits)_sluic"
    }

    /// Keeps `query`; false when too many run.
    func add(_ query: TrinoQuery) -> Bool {
        queries.withLock { queries in
            guard queries.count < Self.limit else { return false }
            queries[query.id] = query
            return true
        }
    }

    func query(_ id: String) -> TrinoQuery? {
        queries.withLock { $0[id] }
    }

    func query(_ id: String, slug: String) -> TrinoQuery? {
        queries.withLock { $0[id] }.flatMap { $0.slug == slug ? $0 : nil }
    }

    /// Cancels and forgets the query.
    func remove(_ id: String) {
        queries.withLock { $0.removeValue(forKey: id) }?.cancel()
    }

    /// Cancels and forgets the queries not asked about for ``abandonedAfter``.
    func sweep() {
        let now = DispatchTime.now().uptimeNanoseconds
        let limit = UInt64(abandonedAfter.components.seconds) * 1_000_000_000 + UInt64(abandonedAfter.components.attoseconds / 1_000_000_000)
        let stale = queries.withLock { queries in
            let ids = queries.values.filter { now > $0.lastTouched && now - $0.lastTouched > limit }.map(\.id)
            return ids.compactMap { queries.removeValue(forKey: $0) }
        }
        for query in stale { query.cancel() }
    }

    /// Runs ``sweep()`` until the task is cancelled.
    func sweepUntilCancelled() async {
        let interval = min(abandonedAfter / 4, .seconds(5))
        while !Task.isCancelled {
            try? await Task.sleep(for: max(interval, .milliseconds(100)))
            sweep()
        }
    }

    /// Cancels every query (the server stops).
    func removeAll() {
        for query in queries.withLock({ queries in defer { queries.removeAll() }; return Array(queries.values) }) { query.cancel() }
    }
}
