import SluiceCore

/// Flink's functions whose name Sluice's own SQL gives another meaning, or none, as the calls
/// Sluice runs: in a Flink session `TO_TIMESTAMP('2026-01-01 10:00:00')` is a timestamp read
/// from text (Sluice's `to_timestamp(double)` reads Unix seconds), and Java's date patterns
/// (`yyyy-MM-dd HH:mm:ss`) become `to_char`'s (`YYYY-MM-DD HH24:MI:SS`).
package enum FlinkFunctions {
    /// The call `call` stands for in a Flink session; nil when it means the same in both.
    package static func lower(_ call: FunctionCall, at position: SourcePosition) throws(SluiceError) -> Expression? {
        guard call.name.qualifier.isEmpty, !call.isStar, !call.isDistinct, call.over == nil, call.orderBy.isEmpty else { return nil }
        let arguments = call.arguments
        func function(_ name: String, _ arguments: [Expression]) -> Expression {
            // Qualified: Sluice's own function, not lowered again.
            Expression(.function(FunctionCall(name: ObjectName(["pg_catalog", name]), arguments: arguments)), at: position)
        }
        func cast(_ expression: Expression, _ type: String) -> Expression {
            Expression(.cast(expression, TypeName(type), .function), at: position)
        }
        func pattern(_ argument: Expression) throws(SluiceError) -> Expression {
            guard case .literal(.string(let java)) = argument.node else {
                throw SluiceError(.featureNotSupported, "the format of \(call.name.name.uppercased()) must be a constant here", position: position.errorPosition)
            }
            return Expression(.literal(.string(try toCharPattern(java))), at: argument.position)
        }
        switch (call.name.name, arguments.count) {
        case ("to_timestamp", 1):
            // Flink's default pattern, 'yyyy-MM-dd HH:mm:ss[.SSS]', is timestamp's text.
            return cast(arguments[0], "timestamp")
        case ("to_timestamp", 2):
            return cast(function("to_timestamp", [arguments[0], try pattern(arguments[1])]), "timestamp")
        case ("to_date", 1):
            return cast(arguments[0], "date")
        case ("to_date", 2):
            return cast(function("to_timestamp", [arguments[0], try pattern(arguments[1])]), "date")
        case ("date_format", 2):
            return function("to_char", [arguments[0], try pattern(arguments[1])])
        case ("from_unixtime", 1):
            return function("to_char", [cast(function("to_timestamp", [arguments[0]]), "timestamp"), Expression(.literal(.string("YYYY-MM-DD HH24:MI:SS")), at: position)])
        case ("from_unixtime", 2):
            return function("to_char", [cast(function("to_timestamp", [arguments[0]]), "timestamp"), try pattern(arguments[1])])
        default:
            return nil
        }
    }

    /// A Java `DateTimeFormatter`/`SimpleDateFormat` pattern as `to_char`'s: letters by their
    /// runs (`yyyy`, `MM`, `dd`, `HH`, `hh`, `mm`, `ss`, `SSS`, `a`, `EEE`, `MMM`), quoted text
    /// kept as text; a letter it has no counterpart for is refused.
    package static func toCharPattern(_ java: String) throws(SluiceError) -> String {
        var out = ""
        let characters = Array(java)
        var index = 0
        while index < characters.count {
            let character = characters[index]
            if character == "'" {
                // Quoted text ('T'; '' is a quote).
                var end = index + 1
                var text = ""
                while end < characters.count {
                    if characters[end] == "'" {
                        if end + 1 < characters.count, characters[end + 1] == "'" {
                            text.append("'")
                            end += 2
                            continue
                        }
                        break
                    }
                    text.append(characters[end])
                    end += 1
                }
                out += text.isEmpty && end == index + 1 ? "'" : "\"" + text.replacingOccurrences(of: "\"", with: "\\\"") + "\""
                index = end + 1
                continue
            }
            guard character.isLetter else {
                out.append(character)
                index += 1
                continue
            }
            var run = 1
            while index + run < characters.count, characters[index + run] == character { run += 1 }
            let piece: String?
            switch (character, run) {
            case ("y", 2): piece = "YY"
            case ("y", _), ("u", _): piece = "YYYY"
            case ("M", 1), ("M", 2): piece = "MM"
            case ("M", 3): piece = "Mon"
            case ("M", _): piece = "FMMonth"
            case ("d", _): piece = "DD"
            case ("D", _): piece = "DDD"
            case ("H", _): piece = "HH24"
            case ("h", _): piece = "HH12"
            case ("m", _): piece = "MI"
            case ("s", _): piece = "SS"
            case ("S", 1...3): piece = "MS"
            case ("S", _): piece = "US"
            case ("a", _): piece = "AM"
            case ("E", 1...3): piece = "Dy"
            case ("E", _): piece = "FMDay"
            default: piece = nil
            }
            guard let piece else {
                throw SluiceError(.invalidParameterValue, "the date pattern letter '\(String(repeating: character, count: run))' in '\(java)' is not supported")
            }
            out += piece
            index += run
        }
        return out
    }
}
