import SluiceCore

/// Compiled regular expressions for one kernel call, keyed by pattern text and flags.
///
/// A constant pattern column compiles exactly once per call: the last pattern's bytes are
/// compared first, so consecutive equal rows never hash or allocate.
struct RegexCache {
    /// How many patterns this cache has compiled (for tests and metrics).
    private(set) var compilationCount = 0
    private var byPattern: [String: Regex<AnyRegexOutput>] = [:]
    private var lastPattern: ArraySlice<UInt8>?
    private var lastRegex: Regex<AnyRegexOutput>?
    let caseInsensitive: Bool

    init(caseInsensitive: Bool) {
        self.caseInsensitive = caseInsensitive
    }

    /// The regular expression for `pattern`, compiled on first use.
    mutating func regex(for pattern: ArraySlice<UInt8>) throws(SluiceError) -> Regex<AnyRegexOutput> {
        if let lastPattern, let lastRegex, lastPattern.elementsEqual(pattern) { return lastRegex }
        let text = String(decoding: pattern, as: UTF8.self)
        let regex: Regex<AnyRegexOutput>
        if let cached = byPattern[text] {
            regex = cached
        } else {
            regex = try Self.compile(text, caseInsensitive: caseInsensitive)
            compilationCount += 1
            byPattern[text] = regex
        }
        lastPattern = pattern
        lastRegex = regex
        return regex
    }

    /// Compiles `pattern` with code-point semantics, as Postgres matches characters.
    static func compile(_ pattern: String, caseInsensitive: Bool) throws(SluiceError) -> Regex<AnyRegexOutput> {
        do {
            let regex = try Regex(pattern).matchingSemantics(.unicodeScalar)
            return caseInsensitive ? regex.ignoresCase() : regex
        } catch {
            throw SluiceError(.invalidRegularExpression, "invalid regular expression: \(error)")
        }
    }
}

/// Regular expression operators and functions: `~ ~* !~ !~*`, `regexp_like`, `regexp_replace`,
/// `regexp_match`, on Swift's `Regex` (close to, but not exactly, Postgres's ARE dialect).
enum RegexFunctions {
    /// `text ~ pattern` (and `~*`, `!~`, `!~*`): whether the pattern matches anywhere in the text.
    static func matchOperator(_ symbol: String) -> ScalarFunction {
        let negated = symbol.hasPrefix("!")
        let caseInsensitive = symbol.hasSuffix("*")
        return ScalarFunction(name: symbol, argumentTypes: [.varchar, .varchar], resultType: .boolean) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try matches(arguments, rowCount: rowCount, caseInsensitive: caseInsensitive, negated: negated)
        }
    }

    /// PostgreSQL's `similar_to_escape(pattern [, escape])`: a `SIMILAR TO` pattern as the POSIX
    /// regular expression that matches what it matches (the whole string). `x SIMILAR TO p` is
    /// `x ~ similar_to_escape(p)`.
    static func similarToEscape(withEscape: Bool) -> ScalarFunction {
        let types: [DataType] = withEscape ? [.varchar, .varchar] : [.varchar]
        return ScalarFunction(name: "similar_to_escape", argumentTypes: types, resultType: .varchar) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let pattern = StringArgument(arguments[0])
            let escape = withEscape ? StringArgument(arguments[1]) : nil
            let validity = Kernels.combinedValidity(arguments)
            return try Kernels.buildBytes(rowCount: rowCount) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                guard validity?[rowIndex] ?? true else { return false }
                let regex = try similarToRegex(pattern.string(rowIndex), escape: escape?.string(rowIndex) ?? "\\")
                out += Array(regex.utf8)
                return true
            }
        }
    }

    /// A `SIMILAR TO` pattern as a POSIX regular expression over the whole string: `%` is `.*`,
    /// `_` is `.`, the escape character makes the next one literal, `|*+?{}()[]` keep their
    /// meaning, and every other character stands for itself.
    package static func similarToRegex(_ pattern: String, escape: String) throws(SluiceError) -> String {
        guard escape.count <= 1 else {
            throw SluiceError(SQLState("22025"), "invalid escape string", hint: "Escape string must be empty or one character.")
        }
        let escapeCharacter = escape.first
        var out = "^(?:"
        var inBracket = false
        var escaped = false
        for character in pattern {
            if escaped {
                out += literal(character)
                escaped = false
            } else if character == escapeCharacter {
                escaped = true
            } else if inBracket {
                out.append(character)
                if character == "]" { inBracket = false }
            } else {
                switch character {
                case "%": out += ".*"
                case "_": out += "."
                case "[":
                    inBracket = true
                    out.append(character)
                case "|", "*", "+", "?", "{", "}", "(", ")": out.append(character)
                default: out += literal(character)
                }
            }
        }
        // (An escape character that ends the pattern is dropped, as PostgreSQL drops it.)
        return out + ")$"
    }

    /// One character as a literal in a regular expression.
    private static func literal(_ character: Character) -> String {
        "\\^$.|?*+()[]{}".contains(character) ? "\\" + String(character) : String(character)
    }

    /// `regexp_like(text, pattern [, flags])`.
    static func regexpLike(withFlags: Bool) -> ScalarFunction {
        let types: [DataType] = withFlags ? [.varchar, .varchar, .varchar] : [.varchar, .varchar]
        return ScalarFunction(name: "regexp_like", argumentTypes: types, resultType: .boolean) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let flags = withFlags ? try constantFlags(arguments[2], rowCount: rowCount) : Flags()
            return try matches(arguments, rowCount: rowCount, caseInsensitive: flags.caseInsensitive, negated: false)
        }
    }

    static func matches(_ arguments: [Column], rowCount: Int, caseInsensitive: Bool, negated: Bool) throws(SluiceError) -> Column {
        let text = StringArgument(arguments[0])
        let pattern = StringArgument(arguments[1])
        var cache = RegexCache(caseInsensitive: caseInsensitive)
        return try Kernels.values(Array(arguments.prefix(2)), rowCount: rowCount, type: .boolean) { (rowIndex: Int) throws(SluiceError) -> Bool in
            let regex = try cache.regex(for: pattern.slice(rowIndex))
            return (text.string(rowIndex).firstMatch(of: regex) != nil) != negated
        }
    }

    /// The options of the `flags` argument that Sluice supports.
    struct Flags {
        var global = false
        var caseInsensitive = false

        init() {}

        init(parsing flags: some Sequence<Character>) throws(SluiceError) {
            for flag in flags {
                switch flag {
                case "g": global = true
                case "i": caseInsensitive = true
                case "c": caseInsensitive = false
                case "b", "e", "m", "n", "p", "q", "s", "t", "w", "x":
                    throw SluiceError(.featureNotSupported, "regular expression option \"\(flag)\" is not supported")
                default:
                    throw SluiceError(.invalidParameterValue, "invalid regular expression option: \"\(flag)\"")
                }
            }
        }
    }

    /// Flags are parsed per distinct value; in practice they are a constant.
    static func flags(_ column: Column, rowIndex: Int, cache: inout (ArraySlice<UInt8>, Flags)?) throws(SluiceError) -> Flags {
        let bytes = StringArgument(column).slice(rowIndex)
        if let cached = cache, cached.0.elementsEqual(bytes) { return cached.1 }
        let flags = try Flags(parsing: String(decoding: bytes, as: UTF8.self))
        cache = (bytes, flags)
        return flags
    }

    static func constantFlags(_ column: Column, rowCount: Int) throws(SluiceError) -> Flags {
        let strings = StringArgument(column)
        var flags = Flags()
        var seen: ArraySlice<UInt8>?
        for rowIndex in 0 ..< rowCount where !strings.isNull(rowIndex) {
            let bytes = strings.slice(rowIndex)
            if let seen, seen.elementsEqual(bytes) { continue }
            if seen != nil { throw SluiceError(.featureNotSupported, "regular expression flags must be constant") }
            flags = try Flags(parsing: String(decoding: bytes, as: UTF8.self))
            seen = bytes
        }
        return flags
    }

    /// `regexp_replace(source, pattern, replacement [, flags])`: replaces the first match, or
    /// every match with flag `g`. In the replacement `\1`…`\9` insert groups, `\&` the match.
    static func regexpReplace(withFlags: Bool) -> ScalarFunction {
        let types: [DataType] = withFlags ? [.varchar, .varchar, .varchar, .varchar] : [.varchar, .varchar, .varchar]
        return ScalarFunction(name: "regexp_replace", argumentTypes: types, resultType: .varchar) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let flags = withFlags ? try constantFlags(arguments[3], rowCount: rowCount) : Flags()
            let source = StringArgument(arguments[0])
            let pattern = StringArgument(arguments[1])
            let replacement = StringArgument(arguments[2])
            var cache = RegexCache(caseInsensitive: flags.caseInsensitive)
            return try Kernels.strings(arguments, rowCount: rowCount) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                let regex = try cache.regex(for: pattern.slice(rowIndex))
                let text = source.string(rowIndex)
                let template = replacement.slice(rowIndex)
                var copied = text.startIndex
                let found = flags.global ? text.matches(of: regex) : (text.firstMatch(of: regex).map { [$0] } ?? [])
                for match in found {
                    out.append(contentsOf: text[copied ..< match.range.lowerBound].utf8)
                    appendReplacement(template, match: match, to: &out)
                    copied = match.range.upperBound
                }
                out.append(contentsOf: text[copied...].utf8)
                return true
            }
        }
    }

    static func appendReplacement(_ template: ArraySlice<UInt8>, match: Regex<AnyRegexOutput>.Match, to out: inout [UInt8]) {
        var index = template.startIndex
        while index < template.endIndex {
            let byte = template[index]
            index += 1
            guard byte == UInt8(ascii: "\\"), index < template.endIndex else {
                out.append(byte)
                continue
            }
            let next = template[index]
            if next >= UInt8(ascii: "0") && next <= UInt8(ascii: "9") {
                let group = Int(next - UInt8(ascii: "0"))
                if group < match.output.count, let text = match.output[group].substring { out.append(contentsOf: text.utf8) }
                index += 1
            } else if next == UInt8(ascii: "&") {
                if let text = match.output[0].substring { out.append(contentsOf: text.utf8) }
                index += 1
            } else if next == UInt8(ascii: "\\") {
                out.append(next)
                index += 1
            } else {
                out.append(byte)
            }
        }
    }

    /// `regexp_match(text, pattern [, flags])`: the groups of the first match as `text[]` (the
    /// whole match when the pattern has no groups), or null when nothing matches.
    static func regexpMatch(withFlags: Bool) -> ScalarFunction {
        let types: [DataType] = withFlags ? [.varchar, .varchar, .varchar] : [.varchar, .varchar]
        let resultType = DataType.list(.varchar)
        return ScalarFunction(name: "regexp_match", argumentTypes: types, resultType: resultType) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let flags = withFlags ? try constantFlags(arguments[2], rowCount: rowCount) : Flags()
            if flags.global { throw SluiceError(.invalidParameterValue, "regexp_match() does not support the \"global\" option", hint: "Use the regexp_matches function instead.") }
            let text = StringArgument(arguments[0])
            let pattern = StringArgument(arguments[1])
            let validity = Kernels.combinedValidity(Array(arguments.prefix(2)))
            var cache = RegexCache(caseInsensitive: flags.caseInsensitive)
            return try Kernels.buildValues(rowCount: rowCount, type: resultType) { (rowIndex: Int) throws(SluiceError) -> Value in
                if let validity, !validity[rowIndex] { return .null }
                let regex = try cache.regex(for: pattern.slice(rowIndex))
                guard let match = text.string(rowIndex).firstMatch(of: regex) else { return .null }
                if match.output.count == 1 { return .list([.string(String(match.output[0].substring ?? ""))]) }
                return .list((1 ..< match.output.count).map { group in
                    match.output[group].substring.map { .string(String($0)) } ?? .null
                })
            }
        }
    }
}
