#if canImport(Glibc)
import Glibc
#endif

/// The members of a JSON object, walked in place without a closure, so the caller's loop
/// can mutate what it likes (RFC 8259 §4):
///
/// ```swift
/// if try scanner.enterObject() {
///     repeat {
///         let raw = try scanner.readMemberName(into: &scratch)
///         … consume the value at the cursor …
///     } while try scanner.nextMember()
/// }
/// ```
extension JSONScanner {
    /// Consumes the `{` at the cursor and the whitespace after it. Returns whether a member
    /// follows; false when the object is empty (the cursor is then after its `}`).
    @inline(__always)
    mutating func enterObject() throws(JSONDecodeError) -> Bool {
        guard peek == UInt8(ascii: "{") else { throw unexpected("'{'") }
        position += 1
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            position += 1
            return false
        }
        return true
    }

    /// Reads the member name at the cursor and the `:` after it, leaving the cursor on the
    /// value. Returns the name's raw byte range when it holds no escape; otherwise its decoded
    /// bytes are in `scratch` and the result is nil (``withMemberName(_:scratch:_:)``).
    @inline(__always)
    mutating func readMemberName(into scratch: inout [UInt8]) throws(JSONDecodeError) -> Range<Int>? {
        guard peek == UInt8(ascii: "\"") else { throw unexpected("a string key") }
        let raw = try readString(into: &scratch)
        skipWhitespace()
        guard peek == UInt8(ascii: ":") else { throw unexpected("':'") }
        position += 1
        skipWhitespace()
        return raw
    }

    /// After a member's value: consumes the `,` and whitespace before the next member and
    /// returns true, or the object's closing `}` and returns false.
    @inline(__always)
    mutating func nextMember() throws(JSONDecodeError) -> Bool {
        skipWhitespace()
        if peek == UInt8(ascii: ",") {
            position += 1
            skipWhitespace()
            return true
        }
        if peek == UInt8(ascii: "}") {
            position += 1
            return false
        }
        throw unexpected("',' or '}'")
    }

    /// The name ``readMemberName(into:)`` read (`raw`, or else the decoded bytes in `scratch`),
    /// handed to `body`.
    @inline(__always)
    func withMemberName<Result>(_ raw: Range<Int>?, scratch: [UInt8], _ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        if let raw { return body(UnsafeRawBufferPointer(start: base + raw.lowerBound, count: raw.count)) }
        return scratch.withUnsafeBytes(body)
    }

    /// Whether the member name `name` is `word`.
    @inline(__always)
    static func name(_ name: UnsafeRawBufferPointer, is word: StaticString) -> Bool {
        word.utf8CodeUnitCount == name.count && (name.isEmpty || memcmp(word.utf8Start, name.baseAddress!, name.count) == 0)
    }
}
