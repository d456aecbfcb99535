/// One lexical token of SQL text, with where it came from.
///
/// Offsets are UTF-8 byte offsets into the text; `position` is the 1-based character position
/// Postgres reports in errors.
package struct Token: Hashable, Sendable {
    /// What a token is; its decoded value is in ``Token/text``.
    package enum Kind: Hashable, Sendable {
        /// An unquoted identifier or keyword, folded to lower case.
        case word
        /// A `"quoted"` or `` `backquoted` `` identifier, case and escapes resolved.
        case quotedIdentifier
        /// A string constant (`'…'`, `E'…'`, `U&'…'`, `$tag$…$tag$`), escapes resolved.
        case string
        /// An integer constant: digits only.
        case integer
        /// A numeric constant with a point or an exponent.
        case decimal
        /// A positional parameter `$n`; the text is the digits.
        case parameter
        /// An operator or punctuation, such as `::`, `<>`, `(`.
        case symbol
        /// The end of the text.
        case end
    }

    package var kind: Kind
    /// The decoded value: folded identifier, unescaped string, digits, or the operator.
    package var text: String
    /// Byte offset of the first byte.
    package var start: Int
    /// Byte offset past the last byte.
    package var end: Int
    /// 1-based character position of the first character.
    package var position: Int

    package init(kind: Kind, text: String, start: Int, end: Int, position: Int) {
        self.kind = kind
        self.text = text
        self.start = start
        self.end = end
        self.position = position
    }
}
