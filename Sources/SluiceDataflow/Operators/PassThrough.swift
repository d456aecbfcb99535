import SluiceCore
import SluiceExpr
import SluicePlan

/// Forwards every chunk unchanged: UNION ALL's merge, and the leaf of constant rows.
package struct PassThrough: StreamOperator {
    package init() {}

    package var keepsNoState: Bool { true }

    package mutating func process(_ chunk: StreamChunk, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {
        output.append(chunk)
    }
}

/// UNION ALL: every input's chunks go on unchanged, and a column's watermark is the least of
/// the inputs' latest ones on it, once each input has given one (a row of the slowest input may
/// still come down to it).
struct StreamUnion: StreamOperator {
    let inputCount: Int
    /// The latest watermark of each input, by column.
    private var latest: [Int: [Value?]] = [:]
    /// The watermark last emitted, by column.
    private var emitted: [Int: Value] = [:]

    init(inputCount: Int) {
        self.inputCount = inputCount
    }

    mutating func process(_ chunk: StreamChunk, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {
        output.append(chunk)
    }

    mutating func advance(to watermark: Watermark, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {
        guard (0 ..< inputCount).contains(input), !watermark.value.isNull else { return }
        var values = latest[watermark.column] ?? Array(repeating: nil, count: inputCount)
        values[input] = watermark.value
        latest[watermark.column] = values
        var least: Value?
        for value in values {
            guard let value else { return }
            if least.map({ ValueOrdering.compare(value, $0) < 0 }) ?? true { least = value }
        }
        guard let least, emitted[watermark.column].map({ ValueOrdering.compare($0, least) < 0 }) ?? true else { return }
        emitted[watermark.column] = least
        output.emit(Watermark(column: watermark.column, value: least))
    }
}

/// Keeps the given columns of each chunk, in the given order: the leaf that reads a relation's
/// change stream. A chunk with no columns left keeps its row count (`SELECT count(*)`).
package struct ColumnSelection: StreamOperator {
    package let columns: [Int]

    package init(columns: [Int]) {
        self.columns = columns
    }

    package var keepsNoState: Bool { true }

    package mutating func process(_ chunk: StreamChunk, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {
        let data = Chunk(columns: columns.map { chunk.data.columns[$0] }, count: chunk.count)
        output.append(StreamChunk(ops: chunk.ops, data: data))
    }

    package mutating func advance(to watermark: Watermark, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {
        for (position, column) in columns.enumerated() where column == watermark.column {
            output.emit(Watermark(column: position, value: watermark.value))
        }
    }
}

extension ScanNode: StreamOperatorNode {
    package func makeOperator(at site: inout OperatorSite) throws(SluiceError) -> any StreamOperator {
        site.read(relation: table.tableID)
        return ColumnSelection(columns: table.columns)
    }
}

extension ValuesNode: StreamOperatorNode {
    package func makeOperator(at site: inout OperatorSite) throws(SluiceError) -> any StreamOperator {
        var builders = types.map { ColumnBuilder(type: $0, capacity: rows.count) }
        let empty = Chunk(columns: [], count: 1)
        for row in rows {
            for (column, expression) in row.enumerated() {
                builders[column].append(try ExpressionEvaluator.evaluate(expression, on: empty, context: site.context).value(at: 0))
            }
        }
        if !rows.isEmpty { site.emitAtStart(Chunk(columns: builders.map { $0.finish() }, count: rows.count)) }
        return PassThrough()
    }
}

extension UnionNode: StreamOperatorNode {
    package func makeOperator(at site: inout OperatorSite) throws(SluiceError) -> any StreamOperator {
        StreamUnion(inputCount: inputs.count)
    }
}
