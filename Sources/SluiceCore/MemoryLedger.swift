import Synchronization

/// Who holds memory in the process, beside the state store's pages and the queries' operators
/// (which keep their own counts, against `--memory-limit`): what `sluice_memory_by_owner` and
/// `/metrics` show, so a user can see where memory goes.
package enum MemoryOwner: Int, CaseIterable, Sendable {
    /// Rows a statement sets aside in memory before it applies them (`ChunkStaging`).
    case statementStaging
    /// Rows written to tables and not yet merged into their pages.
    case tableWrites
    /// Messages a source's client has fetched and not yet handed over (Kafka's prefetch queue).
    case sourceBuffers
    /// Rows a sink holds until its next commit (an Iceberg sink's epoch not yet written).
    case sinkBuffers
    /// The built-in broker's in-memory indexes of its logs.
    case brokerIndexes

    /// The owner's name in `sluice_memory_by_owner` and in the `owner` label of `/metrics`.
    package var name: String {
        switch self {
        case .statementStaging: "statement staging"
        case .tableWrites: "table writes"
        case .sourceBuffers: "source buffers"
        case .sinkBuffers: "sink buffers"
        case .brokerIndexes: "broker indexes"
        }
    }
}

/// The bytes each ``MemoryOwner`` holds, process-wide: each holder adds what it takes and
/// subtracts what it lets go of (an atomic add, never on a per-row path).
package final class MemoryLedger: Sendable {
    package static let shared = MemoryLedger()

    private final class Counter: Sendable {
        let bytes = Atomic<Int>(0)
    }

    private let counters: [Counter] = MemoryOwner.allCases.map { _ in Counter() }

    package init() {}

    /// Adds `bytes` (negative: subtracts) to what `owner` holds.
    package func add(_ bytes: Int, to owner: MemoryOwner) {
        guard bytes != 0 else { return }
        counters[owner.rawValue].bytes.add(bytes, ordering: .relaxed)
    }

    /// The bytes `owner` holds now.
    package func bytes(of owner: MemoryOwner) -> Int {
        max(0, counters[owner.rawValue].bytes.load(ordering: .relaxed))
    }
}

/// One holder's share of a ``MemoryOwner``'s bytes: the holder sets what it holds now, the
/// ledger gets the difference, and what is left is given back when the share goes.
package final class MemoryShare: Sendable {
    package let owner: MemoryOwner
    private let ledger: MemoryLedger
    private let held = Atomic<Int>(0)

    package init(_ owner: MemoryOwner, ledger: MemoryLedger = .shared) {
        self.owner = owner
        self.ledger = ledger
    }

    /// What the holder holds.
    package var bytes: Int { held.load(ordering: .relaxed) }

    /// The holder now holds `total` bytes.
    package func set(_ total: Int) {
        let old = held.exchange(total, ordering: .relaxed)
        ledger.add(total - old, to: owner)
    }

    /// The holder takes `bytes` more (negative: lets go of them).
    package func add(_ bytes: Int) {
        held.add(bytes, ordering: .relaxed)
        ledger.add(bytes, to: owner)
    }

    deinit {
        ledger.add(-held.load(ordering: .relaxed), to: owner)
    }
}
