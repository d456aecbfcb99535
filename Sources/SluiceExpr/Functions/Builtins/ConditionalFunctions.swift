import SluiceCore

/// `greatest`, `least` and `nullif`: functions that pick one of their arguments per row.
enum ConditionalFunctions {
    /// `greatest(x, …)` / `least(x, …)` over arguments already cast to `type`: the largest
    /// (smallest) non-null value; null only when every argument is null.
    /// - Complexity: O(rows × arguments) comparisons, then one gather.
    static func extremum(_ name: String, type: DataType, argumentCount: Int) -> ScalarFunction {
        let wantsGreatest = name == "greatest"
        return ScalarFunction(
            name: name, argumentTypes: Array(repeating: type, count: argumentCount), resultType: type
        ) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            var chosen = [Int](repeating: -1, count: rowCount)
            for (argumentIndex, column) in arguments.enumerated() {
                for rowIndex in 0 ..< rowCount where !column.isNull(rowIndex) {
                    let current = chosen[rowIndex]
                    if current < 0 {
                        chosen[rowIndex] = argumentIndex
                        continue
                    }
                    let order = ValueOrdering.compare(column, rowIndex, arguments[current], rowIndex)
                    if wantsGreatest ? order > 0 : order < 0 { chosen[rowIndex] = argumentIndex }
                }
            }
            return pick(arguments, chosen: chosen, type: type)
        }
    }

    /// `nullif(a, b)`: null where `a = b`, otherwise `a`.
    static func nullIf(type: DataType) -> ScalarFunction {
        ScalarFunction(name: "nullif", argumentTypes: [type, type], resultType: type) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let (lhs, rhs) = (arguments[0], arguments[1])
            var chosen = [Int](repeating: 0, count: rowCount)
            var anyEqual = false
            for rowIndex in 0 ..< rowCount {
                if lhs.isNull(rowIndex) {
                    chosen[rowIndex] = -1
                } else if !rhs.isNull(rowIndex), ValueOrdering.compare(lhs, rowIndex, rhs, rowIndex) == 0 {
                    chosen[rowIndex] = -1
                    anyEqual = true
                }
            }
            if !anyEqual { return lhs.retyped(as: type) }
            return pick([lhs], chosen: chosen, type: type)
        }
    }

    /// Row `i` of the result is row `i` of `arguments[chosen[i]]`, or null where `chosen[i]` is -1.
    static func pick(_ arguments: [Column], chosen: [Int], type: DataType) -> Column {
        let rowCount = chosen.count
        let nullColumn = Column(type: type, repeating: .null, count: 1)
        let all = Column.concatenate(arguments.map { $0.retyped(as: type) } + [nullColumn], type: type)
        let nullRow = arguments.count * rowCount
        return all.gather(chosen.enumerated().map { rowIndex, argumentIndex in
            argumentIndex < 0 ? nullRow : argumentIndex * rowCount + rowIndex
        })
    }
}
