import SluiceCore

/// A source's or APPEND ONLY table's `dedup.key` and `dedup.window` options: an event is
/// dropped when an event with the same key was kept before it and their event times (the
/// watermark's column) are at most `windowMicroseconds` apart. Kept keys are remembered in a
/// state table of their own, checkpointed with the source's positions, and forgotten once the
/// watermark has passed their time by more than the window (no later event can be a repeat).
package struct DedupSpec: Sendable, Equatable, Codable {
    /// Indexes of the key columns, in the order `dedup.key` names them.
    package var keyColumns: [Int]
    /// The event-time column: the watermark's.
    package var timeColumn: Int
    /// `dedup.window`, in microseconds (a month counts as 30 days, a day as 24 hours).
    package var windowMicroseconds: Int64
    /// The id of the state table of the seen keys, among the relations' ids (reserved from
    /// the catalog's, so no relation takes it): its checkpoint chain is filed under it.
    package var stateTableID: Int

    package init(keyColumns: [Int], timeColumn: Int, windowMicroseconds: Int64, stateTableID: Int) {
        self.keyColumns = keyColumns
        self.timeColumn = timeColumn
        self.windowMicroseconds = windowMicroseconds
        self.stateTableID = stateTableID
    }
}
