import SluiceCore

/// Resolves calls of built-in scalar functions and operators to ``ScalarFunction``s, following
/// Postgres's rules for overload resolution and implicit conversion.
///
/// The registry holds no state: each call builds the candidates for one name and picks one.
/// The chosen function's `argumentTypes` are the types the binder must cast the arguments to
/// (equal to the given types when no conversion is needed; a constrained `numeric(p, s)`
/// argument keeps its type where the function takes any `numeric`).
package enum FunctionRegistry {
    /// Resolves a call of the built-in scalar function `name` (lower case, schema stripped) for
    /// arguments of the given types; `.unknown` is an untyped literal, NULL or parameter.
    ///
    /// Throws `42883` (`function upper(integer) does not exist`) when no signature fits.
    package static func resolve(name: String, argumentTypes: [DataType]) throws(SluiceError) -> ScalarFunction {
        var function = try resolveOverload(name: name, argumentTypes: argumentTypes)
        function.origin = .function(name: name, argumentTypes: argumentTypes)
        return function
    }

    /// The function ``resolve(name:argumentTypes:)`` returns, before its origin is set.
    private static func resolveOverload(name: String, argumentTypes: [DataType]) throws(SluiceError) -> ScalarFunction {
        if let function = try resolvePolymorphic(name: name, argumentTypes) { return function }
        guard let overloads = BuiltinCatalog.overloads(named: name),
            let (overload, castTypes) = OverloadResolution.select(overloads, for: argumentTypes)
        else {
            throw SluiceError(
                .undefinedFunction,
                "function \(name)(\(argumentTypes.map(\.sqlName).joined(separator: ", "))) does not exist",
                hint: "No function matches the given name and argument types. You might need to add explicit type casts.")
        }
        var function = overload.make(castTypes)
        function.argumentTypes = castTypes
        return function
    }

    /// Resolves the binary operator `symbol` (`+`, `||`, `~*`, `like`, `->>`, …) for operands
    /// of the given types.
    ///
    /// Throws `42883` (`operator does not exist: integer || integer`) when none fits, and
    /// `42725` when two untyped operands leave the choice open.
    package static func resolveOperator(_ symbol: String, _ left: DataType, _ right: DataType) throws(SluiceError) -> ScalarFunction {
        guard var function = try OperatorCatalog.binary(symbol, left, right) else {
            throw SluiceError(
                .undefinedFunction, "operator does not exist: \(left.sqlName) \(symbol) \(right.sqlName)",
                hint: "No operator matches the given name and argument types. You might need to add explicit type casts.")
        }
        function.origin = .binaryOperator(symbol, left, right)
        return function
    }

    /// Resolves the prefix operator `symbol` (`-`, `+`, `@`, `|/`, `||/`, `~`) for an operand of
    /// type `operand`.
    package static func resolveUnary(_ symbol: String, _ operand: DataType) throws(SluiceError) -> ScalarFunction {
        guard var function = try OperatorCatalog.unary(symbol, operand) else {
            throw SluiceError(
                .undefinedFunction, "operator does not exist: \(symbol) \(operand.sqlName)",
                hint: "No operator matches the given name and argument type. You might need to add an explicit type cast.")
        }
        function.origin = .unaryOperator(symbol, operand)
        return function
    }

    /// The type two values must be cast to where they meet in a comparison, CASE, COALESCE,
    /// UNION or IN list (Postgres's `select_common_type`): numeric types promote along
    /// int2 < int4 < int8 < numeric < real < double precision, `date` < `timestamp` <
    /// `timestamptz`, an untyped value takes the other side's type (text when both are untyped).
    ///
    /// Throws `42804` (`CASE types integer and text cannot be matched`, with `context` naming
    /// the construct) when there is none.
    package static func commonType(_ a: DataType, _ b: DataType, context: String) throws(SluiceError) -> DataType {
        guard let type = TypeCoercion.commonType(a, b) else {
            throw SluiceError(.datatypeMismatch, "\(context) types \(a.sqlName) and \(b.sqlName) cannot be matched")
        }
        return type
    }

    /// Functions whose signature depends on the arguments: `concat`, `concat_ws`, `greatest`,
    /// `least`, `nullif`, `array_contains`.
    private static func resolvePolymorphic(name: String, _ types: [DataType]) throws(SluiceError) -> ScalarFunction? {
        let textual = types.map { $0 == .unknown ? DataType.varchar : $0 }
        switch name {
        case "concat" where !types.isEmpty:
            return StringFunctions.concat(textual)
        case "concat_ws" where types.count >= 2 && TypeCoercion.canImplicitlyCast(from: types[0], to: .varchar):
            return StringFunctions.concatWithSeparator(textual)
        case "greatest" where !types.isEmpty, "least" where !types.isEmpty:
            var common = types[0]
            for type in types.dropFirst() { common = try commonType(common, type, context: name.uppercased()) }
            if common == .unknown { common = .varchar }
            return ConditionalFunctions.extremum(name, type: common, argumentCount: types.count)
        case "array_contains" where types.count == 2:
            // ksqlDB's: the value is cast to the array's element type.
            guard case .list(let element) = types[0] else { return nil }
            return ArrayFunctions.contains(elementType: element)
        case "nullif" where types.count == 2:
            // Postgres compares with `=` on the common type but returns the first argument's type;
            // Sluice returns the common type, which equals it except under numeric promotion.
            return ConditionalFunctions.nullIf(type: try commonType(types[0], types[1], context: "NULLIF"))
        default:
            return nil
        }
    }
}
