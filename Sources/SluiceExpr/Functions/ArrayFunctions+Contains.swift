import SluiceCore

extension ArrayFunctions {
    /// ksqlDB's `ARRAY_CONTAINS(array, value)`: whether an element equals `value` (NULL matches
    /// a NULL element, as ksqlDB compares); NULL for a NULL array.
    ///
    /// - Complexity: O(elements) per row, comparing values one by one.
    package static func contains(elementType: DataType) -> ScalarFunction {
        ScalarFunction(name: "array_contains", argumentTypes: [.list(elementType), elementType], resultType: .boolean) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            guard case .list(let offsets, let elements) = arguments[0].storage else {
                throw SluiceError(.internalError, "array_contains of a column that is not a list")
            }
            var result = [Bool](repeating: false, count: rowCount)
            for row in 0 ..< rowCount where !arguments[0].isNull(row) {
                let value = arguments[1].value(at: row)
                for index in Int(offsets[row]) ..< Int(offsets[row + 1]) where elements.value(at: index) == value {
                    result[row] = true
                    break
                }
            }
            return Column(type: .boolean, storage: .bool(result), validity: arguments[0].validity)
        }
    }
}
