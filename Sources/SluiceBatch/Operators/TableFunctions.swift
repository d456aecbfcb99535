import SluiceCore
import SluiceExpr
import SluicePlan

/// Set-returning functions in FROM, over arguments that do not depend on other FROM items.
enum TableFunctions {
    static let maximumRows = 10_000_000

    static func run(_ function: TableFunction, arguments: [ScalarExpr], types: [DataType], context: EvaluationContext) throws(SluiceError) -> [Chunk] {
        let single = Chunk(columns: [], count: 1)
        var values: [Value] = []
        for argument in arguments { values.append(try ExpressionEvaluator.evaluate(argument, on: single, context: context).value(at: 0)) }
        var builder = ColumnBuilder(type: types[0])
        switch function {
        case .unnest:
            if case .list(let elements) = values[0] { for element in elements { builder.append(element) } }
        case .generateSeries:
            guard case .int64(let start) = values[0], case .int64(let stop) = values[1] else { return [] }
            var step: Int64 = 1
            if values.count > 2 {
                guard case .int64(let given) = values[2] else { return [] }
                step = given
            }
            if step == 0 { throw SluiceError(.invalidParameterValue, "step size cannot equal zero") }
            let count = step > 0 ? (stop >= start ? (stop - start) / step + 1 : 0) : (start >= stop ? (start - stop) / -step + 1 : 0)
            if count > maximumRows {
                throw SluiceError(.programLimitExceeded, "generate_series would produce \(count) rows, more than the limit of \(maximumRows)")
            }
            var value = start
            for _ in 0 ..< count {
                builder.append(types[0] == .int32 ? .int32(Int32(truncatingIfNeeded: value)) : .int64(value))
                value &+= step
            }
        }
        let column = builder.finish()
        if column.count == 0 { return [] }
        let all = Chunk(columns: [column])
        return stride(from: 0, to: all.count, by: Chunk.preferredSize).map { all.slice($0 ..< min(all.count, $0 + Chunk.preferredSize)) }
    }
}
