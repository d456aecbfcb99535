import SluiceCore

/// A filter's predicate made ready once for every chunk it filters.
///
/// The predicate is split into its conjuncts, and they are taken in order, each over the rows
/// the ones before kept. Two kinds of conjunct:
/// - `column op constant`: it narrows the kept rows in place, reading the column only at those
///   rows. Nothing is gathered and no boolean column is made.
/// - Any other conjunct: it is evaluated over the kept rows of the columns it reads, gathered.
///   Its expression is renumbered to those columns once, here, rather than per chunk.
package struct CompiledFilter: Sendable {
    private struct Conjunct: Sendable {
        var expression: ScalarExpr
        /// The columns it reads, and the expression renumbered to them.
        var read: [Int]
        var remapped: ScalarExpr
        /// `column op constant`, when it has that shape.
        var comparison: (column: Int, op: ComparisonOperator, constant: Value)?
    }

    private let conjuncts: [Conjunct]

    package init(_ predicate: ScalarExpr) {
        let operands: [ScalarExpr]
        if case .and(let list) = predicate, !list.isEmpty { operands = list } else { operands = [predicate] }
        conjuncts = operands.map { operand in
            let read = operand.referencedColumns.sorted()
            var position: [Int: Int] = [:]
            for (newIndex, oldIndex) in read.enumerated() { position[oldIndex] = newIndex }
            return Conjunct(
                expression: operand, read: read, remapped: operand.remappingColumns { position[$0]! },
                comparison: ConstantComparison.shape(of: operand))
        }
    }

    /// The rows of `chunk` where the predicate is true, or nil for all of them.
    package func selection(of chunk: Chunk, context: EvaluationContext) throws(SluiceError) -> [Int]? {
        var rows: [Int]? = nil
        for conjunct in conjuncts {
            if let kept = rows, kept.isEmpty { return kept }
            if let (column, op, constant) = conjunct.comparison,
                let kept = ConstantComparison.select(chunk.columns[column], op, constant, among: rows)
            {
                rows = kept
                continue
            }
            rows = try narrow(rows, of: chunk, by: conjunct, context: context)
            if rows?.count == chunk.count { rows = nil }
        }
        if rows?.count == chunk.count { return nil }
        return rows
    }

    /// The number of rows of `chunk` where the predicate is true.
    package func selectionCount(of chunk: Chunk, context: EvaluationContext) throws(SluiceError) -> Int {
        try selection(of: chunk, context: context)?.count ?? chunk.count
    }

    /// The rows of `chunk` where the predicate is true (the chunk itself when it is true for all).
    package func filter(_ chunk: Chunk, context: EvaluationContext) throws(SluiceError) -> Chunk {
        guard let rows = try selection(of: chunk, context: context) else { return chunk }
        return chunk.gather(rows)
    }

    /// `rows` (nil: every row) narrowed to those where `conjunct` holds, evaluated the general
    /// way (a constant comparison the fast kernel declined too: a numeric column of mixed scales).
    private func narrow(_ rows: [Int]?, of chunk: Chunk, by conjunct: Conjunct, context: EvaluationContext) throws(SluiceError) -> [Int] {
        guard let rows else {
            return try ExpressionEvaluator.selection(of: chunk, byOne: conjunct.expression, context: context)
        }
        let subset = Chunk(columns: conjunct.read.map { chunk.columns[$0].gather(rows) }, count: rows.count)
        let kept = try ExpressionEvaluator.selection(of: subset, byOne: conjunct.remapped, context: context)
        return kept.count == rows.count ? rows : kept.map { rows[$0] }
    }
}
