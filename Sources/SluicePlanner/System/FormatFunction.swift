import SluiceCore
import SluiceExpr
import SluiceSQL

/// `format(formatstr, args…)` and the quoting functions it shares with `quote_ident`,
/// `quote_literal` and `quote_nullable`, as PostgreSQL has them.
///
/// A specifier is `%[position$][-][width]type`: `s` puts the argument's text (nothing for
/// NULL), `I` the text quoted as an identifier when needed (NULL fails), `L` quoted as a string
/// constant (`NULL` for NULL); `%%` is a percent sign. Without a position, specifiers take the
/// arguments in turn, continuing after the last one a position named.
enum FormatFunction {
    static func format(_ argumentTypes: [DataType]) -> ScalarFunction {
        ScalarFunction(name: "format", argumentTypes: argumentTypes, resultType: .varchar) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.buildBytes(rowCount: rowCount) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                if arguments[0].isNull(rowIndex) { return false }
                var pattern: [UInt8] = []
                arguments[0].appendText(at: rowIndex, to: &pattern)
                try render(pattern, arguments: arguments.dropFirst(), row: rowIndex, to: &out)
                return true
            }
        }
    }

    private static func render(_ pattern: [UInt8], arguments: ArraySlice<Column>, row: Int, to out: inout [UInt8]) throws(SluiceError) {
        var index = 0
        var next = arguments.startIndex
        func number() -> Int? {
            var value = 0
            var digits = 0
            while index < pattern.count, pattern[index] >= UInt8(ascii: "0"), pattern[index] <= UInt8(ascii: "9"), value < 1_000_000 {
                value = value * 10 + Int(pattern[index] - UInt8(ascii: "0"))
                index += 1
                digits += 1
            }
            return digits == 0 ? nil : value
        }
        let unterminated = SluiceError(.invalidParameterValue, "unterminated format() type specifier", hint: "For a single \"%\" use \"%%\".")
        while index < pattern.count {
            let byte = pattern[index]
            index += 1
            guard byte == UInt8(ascii: "%") else {
                out.append(byte)
                continue
            }
            guard index < pattern.count else { throw unterminated }
            if pattern[index] == UInt8(ascii: "%") {
                out.append(byte)
                index += 1
                continue
            }
            // [position$]
            let start = index
            if let position = number(), index < pattern.count, pattern[index] == UInt8(ascii: "$") {
                guard position >= 1 else { throw SluiceError(.invalidParameterValue, "format specifies argument 0, but arguments are numbered from 1") }
                next = arguments.startIndex + position - 1
                index += 1
            } else {
                index = start
            }
            var leftAligned = false
            if index < pattern.count, pattern[index] == UInt8(ascii: "-") {
                leftAligned = true
                index += 1
            }
            if index < pattern.count, pattern[index] == UInt8(ascii: "*") {
                throw SluiceError(.featureNotSupported, "format() widths taken from arguments (\"*\") are not supported")
            }
            let width = number() ?? 0
            guard index < pattern.count else { throw unterminated }
            let type = pattern[index]
            index += 1
            guard type == UInt8(ascii: "s") || type == UInt8(ascii: "I") || type == UInt8(ascii: "L") else {
                throw SluiceError(.invalidParameterValue, "unrecognized format() type specifier \"\(Character(Unicode.Scalar(type)))\"", hint: "For a single \"%\" use \"%%\".")
            }
            guard next < arguments.endIndex else { throw SluiceError(.invalidParameterValue, "too few arguments for format()") }
            let column = arguments[next]
            next += 1
            var text: [UInt8] = []
            if column.isNull(row) {
                switch type {
                case UInt8(ascii: "I"): throw SluiceError(.nullValueNotAllowed, "null values cannot be formatted as an SQL identifier")
                case UInt8(ascii: "L"): text = Array("NULL".utf8)
                default: break
                }
            } else {
                column.appendText(at: row, to: &text)
                switch type {
                case UInt8(ascii: "I"): text = Array(quoteIdentifierIfNeeded(String(decoding: text, as: UTF8.self)).utf8)
                case UInt8(ascii: "L"): text = Array(quoteLiteral(String(decoding: text, as: UTF8.self)).utf8)
                default: break
                }
            }
            // (Widths count characters, not bytes.)
            let padding = width == 0 ? 0 : max(0, width - String(decoding: text, as: UTF8.self).count)
            if !leftAligned { out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: padding)) }
            out.append(contentsOf: text)
            if leftAligned { out.append(contentsOf: repeatElement(UInt8(ascii: " "), count: padding)) }
        }
    }

    /// A string constant as PostgreSQL's `quote_literal` writes it: quotes doubled, and an `E`
    /// prefix with backslashes doubled when there are any.
    static func quoteLiteral(_ text: String) -> String {
        let quoted = quoteStringLiteral(text)
        guard text.contains("\\") else { return quoted }
        return "E" + quoted.split(separator: "\\", omittingEmptySubsequences: false).joined(separator: "\\\\")
    }

    /// `quote_ident(text)`, `quote_literal(text)` and `quote_nullable(text)`.
    static func quote(_ name: String) -> ScalarFunction {
        ScalarFunction(name: name, argumentTypes: [.varchar], resultType: .varchar) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.buildBytes(rowCount: rowCount) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                if arguments[0].isNull(rowIndex) {
                    guard name == "quote_nullable" else { return false }
                    out.append(contentsOf: "NULL".utf8)
                    return true
                }
                var bytes: [UInt8] = []
                arguments[0].appendText(at: rowIndex, to: &bytes)
                let text = String(decoding: bytes, as: UTF8.self)
                out.append(contentsOf: (name == "quote_ident" ? quoteIdentifierIfNeeded(text) : quoteLiteral(text)).utf8)
                return true
            }
        }
    }
}
