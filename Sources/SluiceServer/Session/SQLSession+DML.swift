import SluiceBatch
import SluiceCore
import SluiceExpr
import SluicePGWire
import SluicePlan
import SluicePlanner
import SluiceState

// What INSERT, UPDATE, DELETE and CREATE TABLE AS share: rows staged before they are written,
// RETURNING's rows, and the values of uncorrelated subqueries.
extension SQLSession {
    /// Where a DML statement with RETURNING sets aside the rows it changes: on disk past a few
    /// chunks, as the changes themselves, so that a RETURNING of any size is bounded too.
    func returningRows(_ returning: DMLReturning?, of table: RelationDefinition) -> ChunkStaging? {
        returning.map { _ in ChunkStaging(types: table.columns.map(\.type), spillDirectory: database.spillDirectory) }
    }

    /// A DML statement's result: its tag, and with RETURNING the expressions over the rows it
    /// changed, streamed to the client from where they were staged when they were many.
    static func result(tag: String, returning: DMLReturning?, rows: ChunkStaging?, context: EvaluationContext) throws(SluiceError) -> PGStatementResult {
        guard let returning, let rows else { return PGStatementResult(commandTag: tag) }
        var result = PGStatementResult(commandTag: tag, columns: returning.columns.map(Self.pgColumn), chunks: [])
        if rows.isInMemory {
            for chunk in rows.heldChunks { result.chunks.append(try returned(chunk, returning.expressions, context)) }
            return result
        }
        let source = try rows.chunks()
        let expressions = returning.expressions
        result.stream = PGRowStream { () throws(SluiceError) -> Chunk? in
            guard let chunk = try source.next() else { return nil }
            return try returned(chunk, expressions, context)
        }
        return result
    }

    /// RETURNING's `expressions` over the changed rows `chunk`.
    private static func returned(_ chunk: Chunk, _ expressions: [ScalarExpr], _ context: EvaluationContext) throws(SluiceError) -> Chunk {
        var columns: [Column] = []
        for expression in expressions { columns.append(try ExpressionEvaluator.evaluate(expression, on: chunk, context: context)) }
        return Chunk(columns: columns, count: chunk.count)
    }

    /// The value of each DML subquery.
    func subqueryValues(_ subqueries: [DMLSubquery], executor: BatchExecutor) throws(SluiceError) -> [(Value, DataType)] {
        var values: [(Value, DataType)] = []
        // (The arrays' memory is held until the statement ends with its executor.)
        var held = 0
        for subquery in subqueries {
            let value = try executor.subqueryValue(subquery.plan, kind: subquery.kind, holding: &held)
            values.append((value, subquery.kind == .exists ? .boolean : subquery.type))
        }
        return values
    }

    /// `expression` with columns `width + i` replaced by `values[i]`.
    static func substitute(_ values: [(Value, DataType)], after width: Int, in expression: ScalarExpr) -> ScalarExpr {
        if values.isEmpty { return expression }
        return expression.rewritten { node in
            if case .column(let index, _) = node, index >= width, index - width < values.count {
                return .literal(values[index - width].0, values[index - width].1)
            }
            return node
        }
    }

    /// Runs `plan` (rows in `table`'s column order and types) and stages its rows, each chunk
    /// checked against the table's NOT NULL columns; `keeping` sees every chunk as well.
    func stage(
        _ plan: BatchPlan, into table: RelationDefinition, executor: BatchExecutor, keeping: ((Chunk) throws(SluiceError) -> Void)? = nil
    ) throws(SluiceError) -> ChunkStaging {
        let staged = ChunkStaging(types: table.columns.map(\.type), spillDirectory: database.spillDirectory)
        let stream = try executor.stream(plan)
        while let chunk = try stream.next() {
            if isCancelled() { throw SluiceError(.queryCanceled, "canceling statement due to user request") }
            try checkNotNull(chunk, table: table)
            try staged.append(chunk)
            try keeping?(chunk)
        }
        return staged
    }

    /// Fails with 23502 when a row of `chunk` (in `table`'s columns) has NULL in a NOT NULL column.
    func checkNotNull(_ chunk: Chunk, table: RelationDefinition) throws(SluiceError) {
        for (index, column) in table.columns.enumerated() where !column.isNullable && chunk.columns[index].hasNulls {
            throw SluiceError(.notNullViolation, "null value in column \"\(column.name)\" of relation \"\(table.name)\" violates not-null constraint")
        }
    }

    /// Which rows of `chunk` `filter` keeps (all of them without one).
    static func matching(_ filter: ScalarExpr?, _ chunk: Chunk, _ context: EvaluationContext) throws(SluiceError) -> Bitmap {
        guard let filter else { return Bitmap(count: chunk.count, value: true) }
        return ExpressionEvaluator.mask(of: try ExpressionEvaluator.evaluate(filter, on: chunk, context: context))
    }
}
