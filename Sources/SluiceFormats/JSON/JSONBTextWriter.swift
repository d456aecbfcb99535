#if canImport(Glibc)
import Glibc
#endif
import SluiceCore

/// Writes the JSON values at a scanner's cursor as Postgres prints them as `jsonb`
/// (`jsonb_in` then `jsonb_out`, the text SluiceCore's `JSONText.normalize` gives) while it
/// checks them, in one pass and into one reused buffer: object members sorted by key length,
/// then bytes, the last of duplicate keys kept; `": "` and `", "` separators; strings escaped as
/// `escape_json` escapes them; numbers in `numeric` text form.
///
/// Values are checked exactly as ``JSONScanner/skipValue(depth:depthLimit:scratch:)`` checks
/// them, with the same errors. One thing the scanner takes and `jsonb` does not, `\u0000`, is
/// counted in ``nulCount`` for the caller to refuse.
///
/// Each object's members are written in the order they come; when the object closes, they are
/// moved into `jsonb` order only if they are not in it already.
///
/// Not `Sendable`: one per reading thread. Steady state allocates nothing (numbers with a
/// fraction or an exponent excepted, which go through `Decimal`).
struct JSONBTextWriter {
    /// The text written since the last ``reset()``.
    private(set) var output: [UInt8] = []
    /// How many strings (keys included) held `\u0000` since the last ``reset()``.
    private(set) var nulCount = 0
    /// The members of the objects open, innermost last.
    private var members: [Member] = []
    /// The decoded keys of ``members``.
    private var keys: [UInt8] = []
    private var scratch: [UInt8] = []
    private var order: [Int] = []
    private var moved: [UInt8] = []

    private struct Member {
        /// The decoded key in ``keys``.
        var keyStart: Int
        var keyCount: Int
        /// Where the member (its key) starts in ``output``.
        var outputStart: Int
    }

    /// An object being written.
    struct ObjectMark {
        fileprivate var firstMember: Int
        fileprivate var keyStart: Int
        /// Where the members start in ``output``, after the `{`.
        fileprivate var contentStart: Int
    }

    /// Starts over with nothing written.
    mutating func reset() {
        output.removeAll(keepingCapacity: true)
        members.removeAll(keepingCapacity: true)
        keys.removeAll(keepingCapacity: true)
        nulCount = 0
    }

    /// Writes `{`; the object's members follow (``writeMemberName(_:)`` and a value each), then
    /// ``endObject(_:)``.
    mutating func beginObject() -> ObjectMark {
        output.append(UInt8(ascii: "{"))
        return ObjectMark(firstMember: members.count, keyStart: keys.count, contentStart: output.count)
    }

    /// Reads the member name at the cursor and the `:` after it (``JSONScanner/readMemberName(into:)``)
    /// and writes it. Returns where its decoded bytes are, for ``memberName(_:is:)``.
    mutating func writeMemberName(_ scanner: inout JSONScanner, in object: ObjectMark) throws(JSONDecodeError) -> Range<Int> {
        let keyStart = keys.count
        if let raw = try scanner.readMemberName(into: &scratch) {
            keys.append(contentsOf: UnsafeBufferPointer(start: scanner.base + raw.lowerBound, count: raw.count))
        } else {
            keys.append(contentsOf: scratch)
            if scratch.contains(0) { nulCount += 1 }
        }
        if members.count > object.firstMember { output.append(contentsOf: ", ".utf8) }
        members.append(Member(keyStart: keyStart, keyCount: keys.count - keyStart, outputStart: output.count))
        keys.withUnsafeBytes { JSONText.appendQuoted(UnsafeRawBufferPointer(rebasing: $0[keyStart...]), to: &output) }
        output.append(contentsOf: ": ".utf8)
        return keyStart ..< keys.count
    }

    /// Whether the decoded member name at `range` (from ``writeMemberName(_:in:)``, of the
    /// innermost object) is `word`.
    func memberName(_ range: Range<Int>, is word: StaticString) -> Bool {
        keys.withUnsafeBytes { JSONScanner.name(UnsafeRawBufferPointer(rebasing: $0[range]), is: word) }
    }

    /// Puts the object's members in `jsonb` order, keeping the last of duplicate keys, and
    /// writes `}`.
    mutating func endObject(_ object: ObjectMark) {
        let memberCount = members.count - object.firstMember
        if memberCount > 1 && !isInOrder(object) { reorder(object) }
        members.removeSubrange(object.firstMember...)
        keys.removeSubrange(object.keyStart...)
        output.append(UInt8(ascii: "}"))
    }

    /// Writes the value at the cursor, checking it as ``JSONScanner/skipValue(depth:depthLimit:scratch:)``
    /// does (nesting up to `depthLimit` levels below `depth`).
    mutating func writeValue(_ scanner: inout JSONScanner, depth: Int, depthLimit: Int) throws(JSONDecodeError) {
        switch scanner.peek {
        case UInt8(ascii: "\""):
            if let raw = try scanner.readString(into: &scratch) {
                // No escape, so nothing `escape_json` escapes either (control bytes are refused).
                output.append(UInt8(ascii: "\""))
                output.append(contentsOf: UnsafeBufferPointer(start: scanner.base + raw.lowerBound, count: raw.count))
                output.append(UInt8(ascii: "\""))
            } else {
                if scratch.contains(0) { nulCount += 1 }
                scratch.withUnsafeBytes { JSONText.appendQuoted($0, to: &output) }
            }
        case UInt8(ascii: "{"):
            guard depth < depthLimit else { throw JSONDecodeError(.tooDeep, "nesting deeper than \(depthLimit) levels", at: scanner.position) }
            let object = beginObject()
            if try scanner.enterObject() {
                repeat {
                    _ = try writeMemberName(&scanner, in: object)
                    try writeValue(&scanner, depth: depth + 1, depthLimit: depthLimit)
                } while try scanner.nextMember()
            }
            endObject(object)
        case UInt8(ascii: "["):
            guard depth < depthLimit else { throw JSONDecodeError(.tooDeep, "nesting deeper than \(depthLimit) levels", at: scanner.position) }
            scanner.position += 1
            scanner.skipWhitespace()
            output.append(UInt8(ascii: "["))
            if scanner.peek == UInt8(ascii: "]") {
                scanner.position += 1
                output.append(UInt8(ascii: "]"))
                return
            }
            while true {
                try writeValue(&scanner, depth: depth + 1, depthLimit: depthLimit)
                scanner.skipWhitespace()
                if scanner.peek == UInt8(ascii: ",") {
                    scanner.position += 1
                    scanner.skipWhitespace()
                    output.append(contentsOf: ", ".utf8)
                } else if scanner.peek == UInt8(ascii: "]") {
                    scanner.position += 1
                    output.append(UInt8(ascii: "]"))
                    return
                } else {
                    throw scanner.unexpected("',' or ']'")
                }
            }
        case UInt8(ascii: "t"):
            try scanner.expectLiteral("true")
            output.append(contentsOf: "true".utf8)
        case UInt8(ascii: "f"):
            try scanner.expectLiteral("false")
            output.append(contentsOf: "false".utf8)
        case UInt8(ascii: "n"):
            try scanner.expectLiteral("null")
            output.append(contentsOf: "null".utf8)
        case UInt8(ascii: "-"), UInt8(ascii: "0") ... UInt8(ascii: "9"):
            writeNumber(try scanner.readNumber(), scanner)
        default:
            throw scanner.unexpected("a value")
        }
    }

    /// A number as `numeric_out` prints it. An integer is its literal (JSON allows no leading
    /// zeros), but for `-0`; anything else goes through `Decimal`, and a literal beyond its
    /// 38 digits is kept as written, as `JSONText.normalize` does.
    private mutating func writeNumber(_ literal: JSONScanner.NumberLiteral, _ scanner: JSONScanner) {
        let text = UnsafeBufferPointer(start: scanner.base + literal.range.lowerBound, count: literal.range.count)
        if !literal.hasFractionOrExponent && !(literal.isNegative && literal.digitCount == 0) {
            output.append(contentsOf: text)
            return
        }
        if let decimal = try? Decimal(parsingText: String(decoding: text, as: UTF8.self)) {
            output.append(contentsOf: decimal.textForm.utf8)
        } else {
            output.append(contentsOf: text)
        }
    }

    /// Whether the object's keys are strictly ascending in `jsonb` order (so also free of
    /// duplicates): what most objects' keys already are.
    private func isInOrder(_ object: ObjectMark) -> Bool {
        keys.withUnsafeBytes { keys in
            for index in object.firstMember + 1 ..< members.count where Self.compare(members[index - 1], members[index], keys) >= 0 {
                return false
            }
            return true
        }
    }

    /// Rewrites the object's members in `jsonb` order, the last of duplicate keys kept.
    private mutating func reorder(_ object: ObjectMark) {
        order.removeAll(keepingCapacity: true)
        order.append(contentsOf: object.firstMember ..< members.count)
        // Ties broken by position, so the last duplicate ends each run of equal keys.
        keys.withUnsafeBytes { keys in
            order.sort { left, right in
                let comparison = Self.compare(members[left], members[right], keys)
                return comparison != 0 ? comparison < 0 : left < right
            }
        }
        moved.removeAll(keepingCapacity: true)
        moved.append(contentsOf: output[object.contentStart...])
        output.removeSubrange(object.contentStart...)
        let movedBase = object.contentStart
        var isFirst = true
        keys.withUnsafeBytes { keys in
            for (rank, index) in order.enumerated() {
                if rank + 1 < order.count, Self.compare(members[index], members[order[rank + 1]], keys) == 0 { continue }
                if !isFirst { output.append(contentsOf: ", ".utf8) }
                isFirst = false
                let start = members[index].outputStart - movedBase
                // A member ends where the `, ` before the next one starts, the last at the end.
                let end = index + 1 < members.count ? members[index + 1].outputStart - 2 - movedBase : moved.count
                output.append(contentsOf: moved[start ..< end])
            }
        }
    }

    /// The `jsonb` order of two keys: shorter first, then bytewise.
    private static func compare(_ left: Member, _ right: Member, _ keys: UnsafeRawBufferPointer) -> Int {
        if left.keyCount != right.keyCount { return left.keyCount < right.keyCount ? -1 : 1 }
        guard left.keyCount > 0 else { return 0 }
        return Int(memcmp(keys.baseAddress! + left.keyStart, keys.baseAddress! + right.keyStart, left.keyCount).signum())
    }
}
