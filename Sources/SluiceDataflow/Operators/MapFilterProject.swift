import SluiceCore
import SluicePlan
import SluiceExpr

/// Filter then project, on change chunks.
///
/// An update pair whose old row passes the filter and new row does not becomes a delete of the
/// old row; the reverse becomes an insert; a pair where neither passes disappears.
/// - Complexity: O(rows) per chunk plus the expressions; no state.
package struct MapFilterProject: StreamOperator {
    package let predicate: ScalarExpr?
    package let projections: [ScalarExpr]
    package let context: EvaluationContext
    /// The input's column types, to derive the output's watermarks (empty: none derived).
    package let inputTypes: [DataType]

    package init(predicate: ScalarExpr?, projections: [ScalarExpr], context: EvaluationContext = EvaluationContext(), inputTypes: [DataType] = []) {
        self.predicate = predicate
        self.projections = projections
        self.context = context
        self.inputTypes = inputTypes
    }

    package var keepsNoState: Bool { true }

    /// A column passed on keeps its watermark; an expression that never decreases in it (a
    /// window's start) carries its value at the watermark. The filter changes nothing: it only
    /// removes rows.
    package mutating func advance(to watermark: Watermark, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {
        guard !inputTypes.isEmpty else { return }
        for derived in WatermarkDerivation.derive(watermark, through: projections, inputTypes: inputTypes, context: context) {
            output.emit(derived)
        }
    }

    package mutating func process(_ chunk: StreamChunk, from input: InputIndex, into output: inout OutputBuffer) throws(SluiceError) {
        let data = chunk.data
        var passes = [Bool](repeating: true, count: data.count)
        if let predicate {
            let mask = ExpressionEvaluator.mask(of: Self.evaluate(predicate, on: data, context: context, output: &output))
            for rowIndex in 0 ..< data.count { passes[rowIndex] = mask[rowIndex] }
        }
        let (rows, ops) = chunk.keptRows(passes)
        if rows.isEmpty { return }
        let kept = rows.count == data.count ? data : data.gather(rows)
        var columns: [Column] = []
        for projection in projections { columns.append(Self.evaluate(projection, on: kept, context: context, output: &output)) }
        output.append(StreamChunk(ops: ops, data: Chunk(columns: columns, count: kept.count)))
    }

    /// Evaluates `expression` over `data`; if that fails, evaluates it row by row and makes the
    /// rows that fail NULL, counting each as a warning. A view must not stop for one bad row
    /// (a division by zero, an overflow, a bad cast), and the same row must always give the same
    /// result, on insert and on delete alike.
    static func evaluate(_ expression: ScalarExpr, on data: Chunk, context: EvaluationContext, output: inout OutputBuffer) -> Column {
        do {
            return try ExpressionEvaluator.evaluate(expression, on: data, context: context)
        } catch {
            var builder = ColumnBuilder(type: expression.type, capacity: data.count)
            for rowIndex in 0 ..< data.count {
                do {
                    builder.append(try ExpressionEvaluator.evaluate(expression, on: data.gather([rowIndex]), context: context).value(at: 0))
                } catch {
                    output.warn(error)
                    builder.append(.null)
                }
            }
            return builder.finish()
        }
    }
}

extension ProjectNode: StreamOperatorNode {
    package func makeOperator(at site: inout OperatorSite) throws(SluiceError) -> any StreamOperator {
        MapFilterProject(predicate: predicate, projections: expressions, context: site.context, inputTypes: input.outputTypes)
    }
}
