import SluiceCore

/// Forwards every chunk unchanged: UNION ALL's merge, and the leaf of constant rows.
package struct PassThrough: StreamOperator {
    package init() {}

    package mutating func process(_ chunk: StreamChunk, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {
        output.append(chunk)
    }
}

/// Keeps the given columns of each chunk, in the given order: the leaf that reads a relation's
/// change stream. A chunk with no columns left keeps its row count (`SELECT count(*)`).
package struct ColumnSelection: StreamOperator {
    package let columns: [Int]

    package init(columns: [Int]) {
        self.columns = columns
    }

    package mutating func process(_ chunk: StreamChunk, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {
        let data = Chunk(columns: columns.map { chunk.data.columns[$0] }, count: chunk.count)
        output.append(StreamChunk(ops: chunk.ops, data: data))
    }
}
