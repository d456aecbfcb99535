#if canImport(Glibc)
import Glibc
#endif

/// What one view's or table's checkpoints hold since its last base, and whether the next one
/// must write a base: first, after a lost checkpoint (a new base generation), and when the chain
/// holds more than twice the state's bytes (deltas that overwrite each other: compaction) or
/// ``maximumDeltas`` deltas. State that only grows (every delta adds rows) is never compacted
/// for its size.
package struct CheckpointChain: Sendable {
    package private(set) var hasBase = false
    private var generation = 0
    private var bytes = 0
    private var deltas = 0

    /// Deltas after a base before the next checkpoint writes a base again, however small
    /// (`SLUICE_STATE_MAX_DELTAS` sets it, for tests of compaction).
    package static let maximumDeltas = getenv("SLUICE_STATE_MAX_DELTAS").flatMap { Int(String(cString: $0)) } ?? 256
    /// Chain bytes that never call for a compaction, however small the state.
    package static let compactionFloorBytes = 8 << 20

    package init() {}

    /// A chain restored from a checkpoint: `bytes` on disk, at base generation `generation`.
    package init(restoredBytes bytes: Int, generation: Int) {
        (hasBase, self.generation, self.bytes, deltas) = (true, generation, bytes, 0)
    }

    /// Whether the next checkpoint, of state holding `stateBytes`, must be a base.
    package func needsBase(stateBytes: Int, generation: Int) -> Bool {
        !hasBase || self.generation != generation || deltas >= Self.maximumDeltas
            || bytes > max(2 * stateBytes, Self.compactionFloorBytes)
    }

    /// Counts a checkpoint's piece of `bytes`, a base or a delta.
    package mutating func wrote(isBase: Bool, bytes: Int, generation: Int) {
        if isBase {
            (hasBase, self.generation, self.bytes, deltas) = (true, generation, bytes, 0)
        } else {
            self.bytes += bytes
            deltas += 1
        }
    }

    /// The chain cannot be extended (a piece was left out): the next checkpoint writes a base.
    package mutating func invalidate() {
        hasBase = false
    }
}
