import SluiceCore

extension SQLParser {
    /// `sql` as written, with the value of each secret option (``SecretOptions/isSecret(_:)``)
    /// of its `WITH (…)` and `FORMAT … ENCODE … (…)` lists replaced by ``SecretOptions/mask``,
    /// and the password of a URL in any other option's value masked (`'http://u:[REDACTED]@h'`).
    /// Everything else stays byte for byte: comments, case, quoting, spacing.
    ///
    /// This is what SHOW CREATE and the system tables show of a definition. The options are
    /// found by parsing, so a key in quotes (`'properties.sasl.password'`, `"Sasl.Password"`), a
    /// value with escapes (`'a''b'`, `E'a\'b'`, `$$…$$`) and a string in a query that only looks
    /// like an option (`WHERE password = 'x'`) are each taken as the parser takes them. A
    /// reference to a stored secret (`password = secret name`) is not a secret and stays.
    /// Text that does not parse (never a stored definition) is masked by its tokens instead:
    /// the value after `key =` wherever the key is secret; text that does not even split into
    /// tokens is masked whole.
    /// - Complexity: O(n) in the length of the text, as parsing is.
    package static func maskingSecrets(in sql: String) -> String {
        let bytes = Array(sql.utf8)
        var replacements: [(bytes: Range<Int>, text: String)] = []
        do throws(SluiceError) {
            var parser = try Parser(sql)
            _ = try parser.parseStatements()
            for span in parser.optionValueSpans {
                if let text = maskedValue(key: span.key, value: span.value) { replacements.append((span.bytes, text)) }
            }
        } catch {
            guard let found = tokenReplacements(in: sql) else { return SecretOptions.mask }
            replacements = found
        }
        guard !replacements.isEmpty else { return sql }
        // (Backtracking may parse an option twice: the same span, kept once.)
        replacements.sort { $0.bytes.lowerBound < $1.bytes.lowerBound }
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var copied = 0
        for replacement in replacements where replacement.bytes.lowerBound >= copied {
            result += bytes[copied ..< replacement.bytes.lowerBound]
            result += replacement.text.utf8
            copied = replacement.bytes.upperBound
        }
        result += bytes[copied...]
        return String(decoding: result, as: UTF8.self)
    }

    /// What an option's value is shown as, or nil to show it as written.
    private static func maskedValue(key: String, value: OptionValue) -> String? {
        if case .secret = value { return nil }
        if SecretOptions.isSecret(key) { return SecretOptions.mask }
        guard case .string(let text) = value else { return nil }
        let masked = URLCredentials.masking(in: text, inProse: false)
        guard masked != text else { return nil }
        return "'" + masked.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'"
    }

    /// For text that does not parse: the value token after each `key =` whose (dotted) key is
    /// secret, and each string constant holding a URL with a password; nil when the text does
    /// not split into tokens.
    private static func tokenReplacements(in sql: String) -> [(bytes: Range<Int>, text: String)]? {
        var lexer = Lexer(sql)
        guard let tokens = try? lexer.tokenize() else { return nil }
        var replacements: [(bytes: Range<Int>, text: String)] = []
        for (tokenIndex, token) in tokens.enumerated() {
            if token.kind == .string, let text = maskedValue(key: "", value: .string(token.text)) {
                replacements.append((token.start ..< token.end, text))
            }
            guard token.kind == .symbol, token.text == "=", tokenIndex > 0, tokenIndex + 1 < tokens.count else { continue }
            // The key: `'a.b'`, or labels joined by dots, read backwards from the `=`.
            var parts: [String] = []
            var keyIndex = tokenIndex - 1
            while keyIndex >= 0, [.word, .quotedIdentifier, .string].contains(tokens[keyIndex].kind) {
                parts.insert(tokens[keyIndex].text, at: 0)
                guard keyIndex >= 2, tokens[keyIndex - 1].kind == .symbol, tokens[keyIndex - 1].text == "." else { break }
                keyIndex -= 2
            }
            guard !parts.isEmpty, SecretOptions.isSecret(parts.joined(separator: ".")) else { continue }
            var valueEnd = tokenIndex + 1
            if tokens[valueEnd].kind == .symbol, tokens[valueEnd].text == "-" || tokens[valueEnd].text == "+", valueEnd + 1 < tokens.count {
                valueEnd += 1
            }
            guard [.string, .integer, .decimal, .word, .quotedIdentifier].contains(tokens[valueEnd].kind) else { continue }
            replacements.append((tokens[tokenIndex + 1].start ..< tokens[valueEnd].end, SecretOptions.mask))
        }
        return replacements
    }
}
