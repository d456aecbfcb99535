import SluiceCore
import SluiceDataflow
import SluiceExpr
import SluicePlan
import SluicePlanner

/// A source's generated columns (`name [type] AS expr`): the connector decodes the other
/// columns, and each chunk it delivers is completed here, the expressions evaluated over it
/// columnar, with the clock at its arrival (`proctime()`).
/// A row whose expression fails (a division by zero, say) is rejected like a row that does not
/// decode: counted in `sluice_sources.rows_rejected` and kept in `sluice_source_errors`.
struct GeneratedColumns: Sendable {
    /// Every column's type, and whether it is generated.
    let types: [DataType]
    let isGenerated: [Bool]
    /// The generated columns' expressions over the decoded columns, by position (a column
    /// without one, not bound again at start, is NULL).
    let expressions: [Int: ScalarExpr]
    let statistics: SourceStatistics

    init(columns: [CatalogColumn], expressions: [(column: Int, expression: ScalarExpr)], statistics: SourceStatistics) {
        types = columns.map(\.type)
        isGenerated = columns.map { $0.generatedExpression != nil }
        self.expressions = Dictionary(expressions.map { ($0.column, $0.expression) }, uniquingKeysWith: { first, _ in first })
        self.statistics = statistics
    }

    /// `decoded` with the generated columns in their places. Rows whose expressions fail are
    /// left out, and where `recordsErrors` (rows delivered, not a snapshot's or a scan's, which
    /// read them again) counted as rejected instead of read.
    func complete(_ decoded: Chunk, recordsErrors: Bool) -> Chunk {
        let context = EvaluationContext(statementTimestamp: SQLSession.currentTimestamp())
        var chunk = decoded
        var values: [Int: Column]
        do {
            values = try evaluate(over: chunk, context: context)
        } catch {
            // Row by row, to find the rows that fail: they are rejected, the others kept.
            var kept: [Int] = []
            for row in 0 ..< decoded.count {
                do {
                    _ = try evaluate(over: decoded.gather([row]), context: context)
                    kept.append(row)
                } catch where recordsErrors {
                    statistics.rowsRead.subtract(1, ordering: .relaxed)
                    statistics.reject(
                        partition: -1, offset: -1, message: "generated column: \(error.message)",
                        payload: UnsafeRawBufferPointer(start: nil, count: 0), at: context.statementTimestamp)
                } catch {}
            }
            chunk = decoded.gather(kept)
            values = (try? evaluate(over: chunk, context: context)) ?? [:]
        }
        var columns: [Column] = []
        columns.reserveCapacity(types.count)
        var next = 0
        for position in types.indices {
            if isGenerated[position] {
                columns.append(values[position] ?? Column.nulls(of: types[position], count: chunk.count))
            } else {
                columns.append(chunk.columns[next])
                next += 1
            }
        }
        return Chunk(columns: columns, count: chunk.count)
    }

    private func evaluate(over chunk: Chunk, context: EvaluationContext) throws(SluiceError) -> [Int: Column] {
        var values: [Int: Column] = [:]
        for (position, expression) in expressions { values[position] = try ExpressionEvaluator.evaluate(expression, on: chunk, context: context) }
        return values
    }
}

/// A connector whose rows are completed by a source's generated columns: what it delivers, its
/// snapshots for new views and its scans for queries.
final class GeneratingConnector: SourceConnector {
    private let inner: any SourceConnector
    private let generated: GeneratedColumns

    init(_ inner: any SourceConnector, generated: GeneratedColumns) {
        self.inner = inner
        self.generated = generated
    }

    func start(output: SourceOutput) {
        let generated = self.generated
        inner.start(output: output.delivering { (chunk: Chunk, advance: () -> Void) throws(SluiceError) in
            try output.deliver(generated.complete(chunk, recordsErrors: true), advance)
        })
    }

    func durable(positions: [Int32: Int64]) { inner.durable(positions: positions) }

    func stop() { inner.stop() }
    // (The generated columns are made from the others: all of them are read.)
    func snapshot(columns: Set<Int>?) throws(SluiceError) -> SourceSnapshot {
        let generated = self.generated
        return try inner.snapshot(columns: nil).map { generated.complete($0, recordsErrors: false) }
    }
    // (The filter may name generated columns, which the inner connector does not have.)
    func scan(pruningBy filter: ScalarExpr?, each: (Chunk) throws(SluiceError) -> Void) throws(SluiceError) {
        let generated = self.generated
        try inner.scan(pruningBy: nil) { (chunk: Chunk) throws(SluiceError) in try each(generated.complete(chunk, recordsErrors: false)) }
    }
    var inferredColumns: [(name: String, type: DataType)]? { nil }
    var statistics: SourceStatistics { inner.statistics }
    var notices: [String] { inner.notices }
    var positions: [Int32: Int64]? { inner.positions }
}
