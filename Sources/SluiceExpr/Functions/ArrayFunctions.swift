import SluiceCore

/// Arrays (Sluice's `list` type): construction, quantified comparison and joining to text.
///
/// These kernels go through scalar values per row; arrays are rare on the data path.
package enum ArrayFunctions {
    /// `ARRAY[a, b, …]` over arguments of `elementType`.
    package static func constructor(elementType: DataType, count: Int) -> ScalarFunction {
        ScalarFunction(name: "array", argumentTypes: Array(repeating: elementType, count: count), resultType: .list(elementType)) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.buildValues(rowCount: rowCount, type: .list(elementType)) { (rowIndex: Int) throws(SluiceError) -> Value in
                .list(arguments.map { $0.value(at: rowIndex) })
            }
        }.withOrigin(.arrayConstructor(elementType: elementType, count: count))
    }

    /// `value op ANY (array)` (or ALL): SQL's three-valued result over the elements.
    package static func quantified(_ op: ComparisonOperator, all: Bool, elementType: DataType) -> ScalarFunction {
        ScalarFunction(
            name: "\(op.rawValue) \(all ? "all" : "any")", argumentTypes: [elementType, .list(elementType)], resultType: .boolean
        ) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            if case .list(let offsets, let elements) = arguments[1].storage, elements.type == arguments[0].type {
                // Each row's elements compared in place, from the list's element column.
                let value = arguments[0]
                let arrays = arguments[1]
                var result = [Bool](repeating: false, count: rowCount)
                var validity = Bitmap(count: rowCount, value: true)
                for row in 0 ..< rowCount {
                    let range = Int(offsets[row]) ..< Int(offsets[row + 1])
                    if arrays.isNull(row) {
                        validity[row] = false
                        continue
                    }
                    if range.isEmpty {
                        result[row] = all
                        continue
                    }
                    if value.isNull(row) {
                        validity[row] = false
                        continue
                    }
                    var sawNull = false
                    var decided = false
                    for element in range {
                        if elements.isNull(element) {
                            sawNull = true
                            continue
                        }
                        if op.holds(ValueOrdering.compare(value, row, elements, element)) != all {
                            result[row] = !all
                            decided = true
                            break
                        }
                    }
                    if !decided {
                        if sawNull { validity[row] = false } else { result[row] = all }
                    }
                }
                return Column(type: .boolean, storage: .bool(result), validity: validity)
            }
            return try Kernels.buildValues(rowCount: rowCount, type: .boolean) { (rowIndex: Int) throws(SluiceError) -> Value in
                let value = arguments[0]
                guard !arguments[1].isNull(rowIndex), case .list(let elements) = arguments[1].value(at: rowIndex) else { return .null }
                if elements.isEmpty { return .bool(all) }
                if value.isNull(rowIndex) { return .null }
                var sawNull = false
                let probe = Column(type: elementType, values: [value.value(at: rowIndex)])
                for element in elements {
                    if element.isNull {
                        sawNull = true
                        continue
                    }
                    let holds = op.holds(ValueOrdering.compare(probe, 0, Column(type: elementType, values: [element]), 0))
                    if holds != all { return .bool(!all) }
                }
                return sawNull ? .null : .bool(all)
            }
        }.withOrigin(.quantified(op, all: all, elementType: elementType))
    }

    /// `array_to_string(array, delimiter)`: the non-null elements' text joined by the delimiter.
    package static func toString(elementType: DataType) -> ScalarFunction {
        ScalarFunction(name: "array_to_string", argumentTypes: [.list(elementType), .varchar], resultType: .varchar) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.buildBytes(rowCount: rowCount) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                guard !arguments[0].isNull(rowIndex), !arguments[1].isNull(rowIndex),
                    case .list(let elements) = arguments[0].value(at: rowIndex)
                else { return false }
                let delimiter = arguments[1].value(at: rowIndex).textForm
                out += elements.filter { !$0.isNull }.map(\.textForm).joined(separator: delimiter).utf8
                return true
            }
        }.withOrigin(.arrayToString(elementType: elementType))
    }

    /// `||` with an array: `array || array` (`array_cat`: a NULL side gives the other),
    /// `array || element` (`array_append`) and `element || array` (`array_prepend`), where a
    /// NULL element is appended as NULL and a NULL array counts as empty.
    package static func concatenate(elementType: DataType, left leftIsArray: Bool, right rightIsArray: Bool) -> ScalarFunction {
        let array = DataType.list(elementType)
        return ScalarFunction(
            name: leftIsArray && rightIsArray ? "array_cat" : (leftIsArray ? "array_append" : "array_prepend"),
            argumentTypes: [leftIsArray ? array : elementType, rightIsArray ? array : elementType], resultType: array
        ) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.buildValues(rowCount: rowCount, type: array) { (rowIndex: Int) throws(SluiceError) -> Value in
                let left = arguments[0].value(at: rowIndex)
                let right = arguments[1].value(at: rowIndex)
                func elements(_ value: Value, isArray: Bool) -> [Value]? {
                    guard isArray else { return [value] }
                    if case .list(let elements) = value { return elements }
                    return nil
                }
                let head = elements(left, isArray: leftIsArray)
                let tail = elements(right, isArray: rightIsArray)
                if head == nil && tail == nil { return .null }
                return .list((head ?? []) + (tail ?? []))
            }
        }
    }

    /// `array[index]`: the element at a 1-based index, NULL when the index is out of range.
    package static func element(elementType: DataType) -> ScalarFunction {
        ScalarFunction(name: "array_element", argumentTypes: [.list(elementType), .int32], resultType: elementType) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.buildValues(rowCount: rowCount, type: elementType) { (rowIndex: Int) throws(SluiceError) -> Value in
                guard case .list(let elements) = arguments[0].value(at: rowIndex), case .int32(let index) = arguments[1].value(at: rowIndex),
                    index >= 1, Int(index) <= elements.count
                else { return .null }
                return elements[Int(index) - 1]
            }
        }.withOrigin(.arrayElement(elementType: elementType))
    }

    /// `array[lower:upper]`: the elements from `lower` to `upper` (1-based, both included, each
    /// clamped to the array; a bound left out is the array's end), NULL where a bound is NULL, as
    /// in PostgreSQL. The arguments are the array, then the bounds given (`hasLower`, `hasUpper`).
    /// - Complexity: O(rows + elements kept), one gather of the elements.
    package static func slice(elementType: DataType, hasLower: Bool, hasUpper: Bool) -> ScalarFunction {
        let argumentTypes: [DataType] = [.list(elementType)] + (hasLower ? [.int32] : []) + (hasUpper ? [.int32] : [])
        return ScalarFunction(name: "array_slice", argumentTypes: argumentTypes, resultType: .list(elementType)) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            guard case .list(let offsets, let elements) = arguments[0].storage else {
                throw SluiceError.internalError("array slice of a column that is not a list")
            }
            let lowers = hasLower ? arguments[1].integerElements() : nil
            let uppers = hasUpper ? arguments[hasLower ? 2 : 1].integerElements() : nil
            let validity = Kernels.combinedValidity(arguments)
            var sliced: [Int32] = [0]
            sliced.reserveCapacity(rowCount + 1)
            var picks: [Int] = []
            for row in 0 ..< rowCount {
                if validity.map({ $0[row] }) ?? true {
                    let start = Int(offsets[row])
                    let count = Int(offsets[row + 1]) - start
                    let low = Int(clamping: max(1, lowers?[row] ?? 1))
                    let high = Int(clamping: min(Int64(count), uppers?[row] ?? Int64(count)))
                    if low <= high { picks += (start + low - 1) ..< (start + high) }
                }
                sliced.append(Int32(picks.count))
            }
            return Column(type: .list(elementType), storage: .list(offsets: sliced, elements: elements.gather(picks)), validity: validity)
        }.withOrigin(.arraySlice(elementType: elementType, hasLower: hasLower, hasUpper: hasUpper))
    }

    /// `array_upper(array, dimension)` (and `array_length`): the upper bound of dimension 1, NULL
    /// for an empty array or another dimension (arrays here are one-dimensional and start at 1).
    package static func upperBound(elementType: DataType, name: String) -> ScalarFunction {
        ScalarFunction(name: name, argumentTypes: [.list(elementType), .int32], resultType: .int32) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.buildValues(rowCount: rowCount, type: .int32) { (rowIndex: Int) throws(SluiceError) -> Value in
                guard case .list(let elements) = arguments[0].value(at: rowIndex), case .int32(1) = arguments[1].value(at: rowIndex),
                    !elements.isEmpty
                else { return .null }
                return .int32(Int32(elements.count))
            }
        }.withOrigin(.arrayUpperBound(elementType: elementType, name: name))
    }
}

extension ArrayFunctions {
    /// `cardinality(array)`: how many elements the array has (0 for an empty one), read from
    /// the list's offsets.
    package static func cardinality(elementType: DataType) -> ScalarFunction {
        ScalarFunction(name: "cardinality", argumentTypes: [.list(elementType)], resultType: .int32) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            guard case .list(let offsets, _) = arguments[0].storage else { throw SluiceError.internalError("cardinality of a column that is not a list") }
            var counts = [Int32](repeating: 0, count: rowCount)
            for row in 0 ..< rowCount { counts[row] = offsets[row + 1] - offsets[row] }
            return Column(type: .int32, storage: .int32(counts), validity: arguments[0].validity)
        }.withOrigin(.cardinality(elementType: elementType))
    }
}
