import SluiceCore

/// Concatenation: the `||` operator (null in, null out) and `concat`/`concat_ws` (nulls skipped).
extension StringFunctions {
    /// `text || text`; the binder casts a non-text operand to text first.
    static func concatOperator() -> ScalarFunction {
        function("||", [.varchar, .varchar], .varchar) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let lhs = StringArgument(arguments[0])
            let rhs = StringArgument(arguments[1])
            return try Kernels.strings(arguments, rowCount: rowCount) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                out.append(contentsOf: lhs.slice(rowIndex))
                out.append(contentsOf: rhs.slice(rowIndex))
                return true
            }
        }
    }

    /// `concat(any, …)`: the text forms of the non-null arguments, one after another.
    static func concat(_ argumentTypes: [DataType]) -> ScalarFunction {
        function("concat", argumentTypes, .varchar) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let strings = arguments.map { column in column.type.isTextLike ? StringArgument(column) : nil }
            return try Kernels.buildBytes(rowCount: rowCount) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                for (argumentIndex, column) in arguments.enumerated() where !column.isNull(rowIndex) {
                    appendText(of: column, strings[argumentIndex], at: rowIndex, to: &out)
                }
                return true
            }
        }
    }

    /// `concat_ws(separator, any, …)`: the non-null arguments joined by the separator; null when
    /// the separator is null.
    static func concatWithSeparator(_ argumentTypes: [DataType]) -> ScalarFunction {
        function("concat_ws", argumentTypes, .varchar) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let separator = StringArgument(arguments[0])
            let strings = arguments.map { column in column.type.isTextLike ? StringArgument(column) : nil }
            return try Kernels.buildBytes(rowCount: rowCount) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                if separator.isNull(rowIndex) { return false }
                var first = true
                for argumentIndex in 1 ..< arguments.count where !arguments[argumentIndex].isNull(rowIndex) {
                    if !first { out.append(contentsOf: separator.slice(rowIndex)) }
                    first = false
                    appendText(of: arguments[argumentIndex], strings[argumentIndex], at: rowIndex, to: &out)
                }
                return true
            }
        }
    }

    @inline(__always)
    static func appendText(of column: Column, _ string: StringArgument?, at rowIndex: Int, to out: inout [UInt8]) {
        if let string {
            out.append(contentsOf: string.slice(rowIndex))
        } else {
            column.appendText(at: rowIndex, to: &out)
        }
    }
}

extension DataType {
    /// True for the types whose values are stored as UTF-8 text (`varchar`, `jsonb`, untyped literals).
    var isTextLike: Bool {
        switch self {
        case .varchar, .jsonb, .unknown: true
        default: false
        }
    }
}
