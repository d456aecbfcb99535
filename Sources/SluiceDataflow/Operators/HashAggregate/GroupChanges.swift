import SluiceCore

/// The changes a grouped operator emits at a barrier, collected a group at a time: an insert for
/// a new group, an update pair for a changed one, a delete for one that is gone.
struct GroupChanges {
    private var ops: [ChangeOp] = []
    private var rows: [[Value]] = []

    /// Records a group whose output row went from `before` to `after` (nil: no row);
    /// `isSame` decides whether an unchanged row needs no output.
    mutating func record(before: [Value]?, after: [Value]?, isSame: ([Value], [Value]) -> Bool = { $0 == $1 }) {
        switch (before, after) {
        case (let before?, let after?):
            if !isSame(before, after) {
                ops += [.updateDelete, .updateInsert]
                rows += [before, after]
            }
        case (let before?, nil):
            ops.append(.delete)
            rows.append(before)
        case (nil, let after?):
            ops.append(.insert)
            rows.append(after)
        case (nil, nil):
            break
        }
    }

    /// Appends the changes to `output` in chunks of at most ``Chunk/preferredSize`` rows.
    func emit(types: [DataType], into output: inout OutputBuffer) {
        var start = 0
        while start < rows.count {
            let end = min(rows.count, start + Chunk.preferredSize)
            var builders = types.map { ColumnBuilder(type: $0, capacity: end - start) }
            for row in rows[start ..< end] {
                for (index, value) in row.enumerated() { builders[index].append(value) }
            }
            output.append(StreamChunk(ops: Array(ops[start ..< end]), data: Chunk(columns: builders.map { $0.finish() })))
            start = end
        }
    }
}
