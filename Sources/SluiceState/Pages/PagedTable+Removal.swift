import SluiceCore

/// Removing the rows a watermark put out of reach (an operator's state cleaned behind it, a
/// source's seen keys forgotten): a scan of every page that stages the removal of the rows it
/// picks and commits it. Each page is read with ``StatePage/readContents()``, so
/// an evicted page is read back for the scan alone and not kept: the scan holds one evicted page
/// at a time, whatever the table's size against the memory limit.
extension PagedTable {
    /// Takes away the rows `picks` chooses (their positions among a page's rows, ascending) and
    /// returns their keys, in key order. Nothing is staged before (the table's writes are
    /// committed); the removal is committed before the call returns.
    /// - Complexity: a scan of every page; the rows removed are gathered once, to stage them.
    @discardableResult
    package mutating func removeRows(where picks: (Chunk) -> [Int]) -> KeyBuffer {
        var keys = KeyBuffer()
        var rows: [Chunk] = []
        var counts: [Int32] = []
        for page in snapshot {
            let contents = page.readContents()
            let picked = picks(contents.rows)
            guard !picked.isEmpty else { continue }
            for index in picked {
                keys.append(index, of: contents.keys)
                counts.append(-(contents.counts?[index] ?? 1))
            }
            rows.append(contents.rows.gather(picked))
        }
        guard !keys.isEmpty else { return keys }
        let removed = keys
        stage(Chunk.concatenate(rows, types: types), counts: counts) { bytes, row in removed.appendKey(row, to: &bytes) }
        _ = commitEpoch()
        return keys
    }
}
