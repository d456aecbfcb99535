import SluiceCore

/// Building and reading struct values.
package enum StructFunctions {
    /// `ROW(a, b, …)`: a struct with fields named f1, f2, … as Postgres names them.
    package static func constructor(_ types: [DataType]) -> ScalarFunction {
        let type = DataType.structure(types.enumerated().map { StructField(name: "f\($0.offset + 1)", type: $0.element) })
        return ScalarFunction(name: "row", argumentTypes: types, resultType: type) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            Column(type: type, storage: .structure(arguments, count: rowCount))
        }.withOrigin(.rowConstructor(argumentTypes: types))
    }

    /// `(value).field`: field `index` of a struct of `type`, NULL where the struct is.
    package static func field(_ index: Int, of type: DataType) -> ScalarFunction {
        guard case .structure(let fields) = type else { preconditionFailure("not a struct type") }
        return ScalarFunction(name: "field_\(index)", argumentTypes: [type], resultType: fields[index].type) {
            (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            guard case .structure(let children, _) = arguments[0].storage else { throw SluiceError.internalError("struct column without children") }
            var child = children[index]
            if let parentValidity = arguments[0].validity {
                let childValidity = child.validity ?? Bitmap(count: child.count, value: true)
                child.validity = childValidity & parentValidity
            }
            return child
        }.withOrigin(.structField(index, type: type))
    }
}
