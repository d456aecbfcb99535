import SluiceCore
import SluiceExpr
import SluicePlan

/// Set-returning functions in a view's select list: each input row becomes the rows of its
/// expanded arrays, in lockstep, each with the input row's change. An update's old and new
/// rows may expand to different numbers of rows, so the pair goes on as a delete and an insert.
/// - Complexity: O(output rows) per chunk plus the expressions; no state (the same input row
///   always expands the same way, so a delete takes back what its insert gave).
struct ProjectSet: StreamOperator {
    let expressions: [ScalarExpr]
    let expands: [Bool]
    let types: [DataType]
    let context: EvaluationContext
    let inputTypes: [DataType]

    var keepsNoState: Bool { true }

    /// Columns passed on keep their watermark; an expanded hopping window's start carries the
    /// earliest window the watermark can still be in.
    mutating func advance(to watermark: Watermark, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {
        for (position, expression) in expressions.enumerated() {
            let value = expands[position]
                ? WatermarkDerivation.smallestElement(of: expression, at: watermark, inputTypes: inputTypes, context: context)
                : WatermarkDerivation.value(of: expression, at: watermark, inputTypes: inputTypes, context: context)
            if let value { output.emit(Watermark(column: position, value: value)) }
        }
    }

    mutating func process(_ chunk: StreamChunk, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {
        let data = chunk.data
        var columns: [Column] = []
        for expression in expressions { columns.append(MapFilterProject.evaluate(expression, on: data, context: context, output: &output)) }
        guard let (expanded, sources) = Chunk.expandingLists(columns, expands: expands, types: types, rowCount: data.count) else { return }
        let ops = sources.map { row -> ChangeOp in
            switch chunk.ops[row] {
            case .insert, .updateInsert: .insert
            case .delete, .updateDelete: .delete
            }
        }
        output.append(StreamChunk(ops: ops, data: expanded))
    }
}

extension ProjectSetNode: StreamOperatorNode {
    package func makeOperator(at site: inout OperatorSite) throws(SluiceError) -> any StreamOperator {
        ProjectSet(expressions: expressions, expands: expands, types: outputTypes, context: site.context, inputTypes: input.outputTypes)
    }
}

extension TableFunctionNode: StreamOperatorNode {
    package func makeOperator(at site: inout OperatorSite) throws(SluiceError) -> any StreamOperator {
        let next = try function.rows(arguments: arguments, types: types, context: site.context)
        var chunks: [Chunk] = []
        while let chunk = try next() { chunks.append(chunk) }
        if !chunks.isEmpty { site.emitAtStart(Chunk.concatenate(chunks, types: types)) }
        return PassThrough()
    }
}
