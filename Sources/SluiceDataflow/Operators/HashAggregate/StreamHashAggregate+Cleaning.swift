import SluiceCore
import SluiceExpr
import SluiceState

extension StreamHashAggregate {
    /// Removes the state of every group whose cleaning column is below `below` (not NULL): its
    /// row and its ordered entries. A scan of the groups, run when the watermark passes a new
    /// window.
    mutating func removeGroups(below: Value) throws(SluiceError) {
        guard let cleaning else { return }
        let keys = groups.removeRows(whereColumn: cleaning.column, below: below)
        guard !keys.isEmpty else { return }
        for ordered in orderedStates {
            var entryRows: [Chunk] = []
            var entryKeys: [[UInt8]] = []
            var entryCounts: [Int32] = []
            for key in keys {
                for run in ordered.entries.table.runs(withPrefix: key) {
                    entryRows.append(run.contents.rows.gather(Array(run.range)))
                    for index in run.range {
                        entryKeys.append(run.contents.keys.key(index))
                        entryCounts.append(-(run.contents.counts?[index] ?? 1))
                    }
                }
            }
            guard !entryKeys.isEmpty else { continue }
            let staged = entryKeys
            ordered.entries.stage(Chunk.concatenate(entryRows, types: ordered.entries.table.types), counts: entryCounts) { bytes, row in
                bytes += staged[row]
            }
            ordered.entries.commit()
        }
    }
}
