import Glibc
import SluiceCore

/// A compiled SQL `LIKE` pattern: `%` matches any run of characters, `_` exactly one character,
/// and the escape character (a backslash unless `ESCAPE` names another, none for `ESCAPE ''`)
/// makes the next character literal.
///
/// Matching works on UTF-8 bytes: literals compare byte-wise and `_` steps over one whole
/// character. As in Postgres, a pattern ending in a lone backslash is only an error when the
/// match reaches it with text left over (SQLSTATE 22025).
struct LikePattern {
    enum Token: Equatable {
        case literal([UInt8])
        /// `_`
        case anyCharacter
        /// `%`
        case anySequence
        /// A trailing escape character with nothing to escape.
        case danglingEscape
    }

    let tokens: [Token]

    /// Compiles `pattern`; `escape` is the UTF-8 of the escape character, nil for none.
    init(_ pattern: UnsafeBufferPointer<UInt8>, escape: [UInt8]? = [UInt8(ascii: "\\")]) {
        var tokens: [Token] = []
        var literal: [UInt8] = []
        func flush() {
            if !literal.isEmpty { tokens.append(.literal(literal)) }
            literal.removeAll(keepingCapacity: true)
        }
        var offset = 0
        while offset < pattern.count {
            // The escape character is looked at first, so that `ESCAPE '%'` makes `%%` a literal `%`.
            if let escape, Self.bytes(pattern, at: offset, startWith: escape) {
                offset += escape.count
                if offset == pattern.count {
                    flush()
                    tokens.append(.danglingEscape)
                } else {
                    let length = UTF8Bytes.characterLength(at: offset, in: pattern)
                    literal.append(contentsOf: pattern[offset ..< offset + length])
                    offset += length
                }
                continue
            }
            switch pattern[offset] {
            case UInt8(ascii: "%"):
                flush()
                if tokens.last != .anySequence { tokens.append(.anySequence) }
                offset += 1
            case UInt8(ascii: "_"):
                flush()
                tokens.append(.anyCharacter)
                offset += 1
            default:
                let length = UTF8Bytes.characterLength(at: offset, in: pattern)
                literal.append(contentsOf: pattern[offset ..< offset + length])
                offset += length
            }
        }
        flush()
        self.tokens = tokens
    }

    /// Whether `text` matches the whole pattern.
    /// - Complexity: O(text × pattern) in the worst case, linear without `%`.
    func matches(_ text: UnsafeBufferPointer<UInt8>) throws(SluiceError) -> Bool {
        var textOffset = 0
        var tokenIndex = 0
        // The most recent `%` and where in the text its match currently ends; on a mismatch the
        // `%` absorbs one more character and matching resumes after it.
        var starToken = -1
        var starTextOffset = 0
        while true {
            if tokenIndex < tokens.count {
                switch tokens[tokenIndex] {
                case .anySequence:
                    starToken = tokenIndex
                    starTextOffset = textOffset
                    tokenIndex += 1
                    continue
                case .anyCharacter:
                    if textOffset < text.count {
                        textOffset += UTF8Bytes.characterLength(at: textOffset, in: text)
                        tokenIndex += 1
                        continue
                    }
                case .literal(let bytes):
                    if bytes.count <= text.count - textOffset, Self.bytes(text, at: textOffset, equal: bytes) {
                        textOffset += bytes.count
                        tokenIndex += 1
                        continue
                    }
                case .danglingEscape:
                    if textOffset < text.count {
                        throw SluiceError(SQLState("22025"), "LIKE pattern must not end with escape character")
                    }
                }
            } else if textOffset == text.count {
                return true
            }
            guard starToken >= 0, starTextOffset < text.count else { return false }
            starTextOffset += UTF8Bytes.characterLength(at: starTextOffset, in: text)
            textOffset = starTextOffset
            tokenIndex = starToken + 1
        }
    }

    private static func bytes(_ text: UnsafeBufferPointer<UInt8>, at offset: Int, startWith prefix: [UInt8]) -> Bool {
        prefix.count <= text.count - offset && bytes(text, at: offset, equal: prefix)
    }

    @inline(__always)
    private static func bytes(_ text: UnsafeBufferPointer<UInt8>, at offset: Int, equal literal: [UInt8]) -> Bool {
        for index in literal.indices where text[offset + index] != literal[index] { return false }
        return true
    }
}

/// The `LIKE`/`ILIKE` family of operators.
enum PatternMatching {
    /// `text [NOT] LIKE pattern` or `ILIKE`: the pattern is compiled once per distinct value in a
    /// call, so a constant pattern column compiles once.
    /// With `withEscape`, a third argument is the `ESCAPE` string: empty for none, else one character.
    static func like(negated: Bool, caseInsensitive: Bool, withEscape: Bool = false) -> ScalarFunction {
        let name = (negated ? "not " : "") + (caseInsensitive ? "ilike" : "like")
        let argumentTypes: [DataType] = withEscape ? [.varchar, .varchar, .varchar] : [.varchar, .varchar]
        return ScalarFunction(name: name, argumentTypes: argumentTypes, resultType: .boolean) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let text = StringArgument(arguments[0])
            let pattern = StringArgument(arguments[1])
            let escape = withEscape ? StringArgument(arguments[2]) : nil
            var cachedPatternBytes: ArraySlice<UInt8>? = nil
            var cachedEscapeBytes: ArraySlice<UInt8>? = nil
            var compiled = LikePattern(UnsafeBufferPointer(start: nil, count: 0))
            var foldedText: [UInt8] = []
            return try Kernels.values(arguments, rowCount: rowCount, type: .boolean) { (rowIndex: Int) throws(SluiceError) -> Bool in
                let patternBytes = pattern.slice(rowIndex)
                let escapeBytes = escape?.slice(rowIndex)
                if cachedPatternBytes.map({ $0.elementsEqual(patternBytes) }) != true
                    || cachedEscapeBytes.map({ escapeBytes?.elementsEqual($0) ?? false }) == false
                {
                    var source = Array(patternBytes)
                    if caseInsensitive { source = foldCase(source) }
                    var escapeCharacter: [UInt8]? = [UInt8(ascii: "\\")]
                    if let escapeBytes {
                        guard escapeBytes.filter({ !UTF8Bytes.isContinuation($0) }).count <= 1 else {
                            throw SluiceError(SQLState("22025"), "invalid escape string", hint: "Escape string must be empty or one character.")
                        }
                        escapeCharacter = escapeBytes.isEmpty ? nil : (caseInsensitive ? foldCase(Array(escapeBytes)) : Array(escapeBytes))
                    }
                    compiled = source.withUnsafeBufferPointer { LikePattern($0, escape: escapeCharacter) }
                    cachedPatternBytes = patternBytes
                    cachedEscapeBytes = escapeBytes
                }
                let matched: Bool
                if caseInsensitive {
                    foldedText = foldCase(Array(text.slice(rowIndex)))
                    matched = try foldedText.withUnsafeBufferPointer { (buffer) throws(SluiceError) -> Bool in try compiled.matches(buffer) }
                } else {
                    matched = try text.withBytes(rowIndex) { (buffer) throws(SluiceError) -> Bool in try compiled.matches(buffer) }
                }
                return matched != negated
            }
        }
    }

    /// Lower-cases for `ILIKE`: byte-wise for ASCII, through Unicode case mapping otherwise.
    static func foldCase(_ bytes: [UInt8]) -> [UInt8] {
        if bytes.allSatisfy({ $0 < 0x80 }) { return bytes.map(StringFunctions.asciiLower) }
        return Array(String(decoding: bytes, as: UTF8.self).lowercased().utf8)
    }
}

/// A `LIKE` pattern of literals and `%` only (`'%special%requests%'`, `'forest%'`): the text
/// must start with the literal before the first `%`, end with the one after the last, and hold
/// the ones between in order, each found leftmost (which is all a run of `%` can ask of them).
/// Searching with `memchr` and `memcmp` makes it one pass over the text, where the general
/// matcher backtracks.
struct SubstringPattern {
    let prefix: [UInt8]
    let suffix: [UInt8]
    let middle: [[UInt8]]
    /// True without `%`: the text must equal `prefix`.
    let exact: Bool

    /// The pattern of `tokens`, or nil when they hold `_` or a dangling escape.
    init?(_ tokens: [LikePattern.Token]) {
        var literals: [[UInt8]] = []
        var sequences = 0
        for token in tokens {
            switch token {
            case .literal(let bytes): literals.append(bytes)
            case .anySequence: sequences += 1
            default: return nil
            }
        }
        if sequences == 0 {
            prefix = literals.first ?? []
            suffix = []
            middle = []
            exact = true
            return
        }
        exact = false
        var prefix: [UInt8] = []
        var suffix: [UInt8] = []
        if case .literal(let bytes) = tokens.first { prefix = bytes; literals.removeFirst() }
        if case .literal(let bytes) = tokens.last, !literals.isEmpty { suffix = bytes; literals.removeLast() }
        self.prefix = prefix
        self.suffix = suffix
        middle = literals
    }

    func matches(_ text: UnsafeRawBufferPointer) -> Bool {
        if exact { return text.count == prefix.count && Self.equal(text, at: 0, prefix) }
        guard text.count >= prefix.count + suffix.count, Self.equal(text, at: 0, prefix),
              Self.equal(text, at: text.count - suffix.count, suffix)
        else { return false }
        var start = prefix.count
        let end = text.count - suffix.count
        for literal in middle {
            guard let found = Self.find(literal, in: text, from: start, to: end) else { return false }
            start = found + literal.count
        }
        return true
    }

    @inline(__always)
    private static func equal(_ text: UnsafeRawBufferPointer, at offset: Int, _ literal: [UInt8]) -> Bool {
        literal.isEmpty || literal.withUnsafeBytes { memcmp(text.baseAddress! + offset, $0.baseAddress!, $0.count) == 0 }
    }

    /// Where `literal` first occurs wholly within `text[start ..< end]`.
    private static func find(_ literal: [UInt8], in text: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int? {
        guard !literal.isEmpty else { return start }
        guard end - start >= literal.count, let base = text.baseAddress else { return nil }
        let first = Int32(literal[0])
        var position = start
        let last = end - literal.count
        while position <= last {
            guard let hit = memchr(base + position, first, last - position + 1) else { return nil }
            let offset = base.distance(to: UnsafeRawPointer(hit))
            if equal(text, at: offset, literal) { return offset }
            position = offset + 1
        }
        return nil
    }

    /// The constant pattern of a `LIKE` without `ESCAPE`, or nil when it is not of this kind.
    init?(_ pattern: String) {
        var source = pattern
        self.init(source.withUTF8 { LikePattern($0).tokens })
    }

    /// `column [NOT] LIKE` this pattern, or nil when the column is not text.
    func evaluate(_ column: Column, negated: Bool) -> Column? {
        guard case .bytes(let values) = column.storage else { return nil }
        var result = [Bool](repeating: false, count: values.count)
        result.withUnsafeMutableBufferPointer { result in
            values.offsets.withUnsafeBufferPointer { offsets in
                values.data.withUnsafeBytes { data in
                    for row in 0 ..< result.count {
                        let start = Int(offsets[row]), end = Int(offsets[row + 1])
                        let text = UnsafeRawBufferPointer(rebasing: data[start ..< end])
                        result[row] = matches(text) != negated
                    }
                }
            }
        }
        return Column(type: .boolean, storage: .bool(result), validity: column.validity)
    }
}
