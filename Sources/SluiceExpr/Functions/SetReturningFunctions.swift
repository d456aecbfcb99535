import SluiceCore

/// Set-returning functions in the select list, as functions that return the array of their
/// rows; a project set (SluicePlan's `BatchPlan.projectSet`) expands them.
package enum SetReturningFunctions {
    /// `generate_subscripts(array, 1)`: 1 … length.
    package static func subscripts(of arrayType: DataType) -> ScalarFunction {
        ScalarFunction(name: "generate_subscripts", argumentTypes: [arrayType], resultType: .list(.int32)) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.buildValues(rowCount: rowCount, type: .list(.int32)) { (rowIndex: Int) throws(SluiceError) -> Value in
                guard case .list(let elements) = arguments[0].value(at: rowIndex) else { return .null }
                return .list((0 ..< elements.count).map { .int32(Int32($0 + 1)) })
            }
        }.withOrigin(.subscripts(arrayType: arrayType))
    }

    /// `generate_series(start, stop[, step])` over bigints.
    package static func series(count: Int) -> ScalarFunction {
        ScalarFunction(name: "generate_series", argumentTypes: Array(repeating: .int64, count: count), resultType: .list(.int64)) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.buildValues(rowCount: rowCount, type: .list(.int64)) { (rowIndex: Int) throws(SluiceError) -> Value in
                guard case .int64(let start) = arguments[0].value(at: rowIndex), case .int64(let stop) = arguments[1].value(at: rowIndex) else {
                    return .null
                }
                var step: Int64 = 1
                if arguments.count > 2 {
                    guard case .int64(let given) = arguments[2].value(at: rowIndex) else { return .null }
                    step = given
                }
                if step == 0 { throw SluiceError(.invalidParameterValue, "step size cannot equal zero") }
                var values: [Value] = []
                var value = start
                while step > 0 ? value <= stop : value >= stop {
                    values.append(.int64(value))
                    if values.count > 10_000_000 { throw SluiceError(.programLimitExceeded, "generate_series produces too many rows") }
                    let (next, overflow) = value.addingReportingOverflow(step)
                    if overflow { break }
                    value = next
                }
                return .list(values)
            }
        }.withOrigin(.series(count: count))
    }

    /// `information_schema._pg_expandarray(array)`: a row `(x, n)` per element, its value and
    /// its 1-based position, as pgjdbc reads index keys.
    package static func expandArray(elementType: DataType) -> (function: ScalarFunction, element: DataType) {
        let element = DataType.structure([StructField(name: "x", type: elementType), StructField(name: "n", type: .int32)])
        let function = ScalarFunction(name: "_pg_expandarray", argumentTypes: [.list(elementType)], resultType: .list(element)) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.buildValues(rowCount: rowCount, type: .list(element)) { (rowIndex: Int) throws(SluiceError) -> Value in
                guard case .list(let elements) = arguments[0].value(at: rowIndex) else { return .null }
                return .list(elements.enumerated().map { .structure([$0.element, .int32(Int32($0.offset + 1))]) })
            }
        }.withOrigin(.expandArray(elementType: elementType))
        return (function, element)
    }

    /// One field of each row of a set-returning function that returns rows: `(f(…)).field`.
    package static func field(_ index: Int, of elementType: DataType) -> ScalarFunction {
        guard case .structure(let fields) = elementType else { preconditionFailure("not a row type") }
        let fieldType = fields[index].type
        return ScalarFunction(name: "field_\(index)", argumentTypes: [.list(elementType)], resultType: .list(fieldType)) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.buildValues(rowCount: rowCount, type: .list(fieldType)) { (rowIndex: Int) throws(SluiceError) -> Value in
                guard case .list(let rows) = arguments[0].value(at: rowIndex) else { return .null }
                return .list(rows.map { row in
                    guard case .structure(let values) = row else { return .null }
                    return values[index]
                })
            }
        }.withOrigin(.setReturningField(index, elementType: elementType))
    }
}
