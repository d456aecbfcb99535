/// How members are separated: compactly, or as Python's `json.dumps` does by default
/// (`", "` between members, `": "` after keys), which is what the seeds' Python producers send.
package enum JSONStyle: Sendable {
    case compact
    case python
}

/// Writes one JSON object, member by member in the order called, straight into a
/// ``ByteWriter``: no dictionary, no `Encodable`, no intermediate strings.
///
/// Keys are static strings that need no escaping; string values are escaped unless the caller
/// passes a literal (`literal:`), which must hold no `"`, `\` or control characters.
package struct JSONObjectWriter {
    package let out: ByteWriter
    private let style: JSONStyle
    private var isFirst = true

    /// Opens an object (`{`) in `out`.
    package init(into out: ByteWriter, style: JSONStyle = .compact) {
        self.out = out
        self.style = style
        out.append(UInt8(ascii: "{"))
    }

    /// Writes the separator and `"name":`; the caller writes the value next.
    package mutating func key(_ name: StaticString) {
        if isFirst {
            isFirst = false
        } else if style == .python {
            out.append(", ")
        } else {
            out.append(UInt8(ascii: ","))
        }
        out.append(UInt8(ascii: "\""))
        out.append(name)
        out.append(style == .python ? "\": " : "\":")
    }

    package mutating func string(_ name: StaticString, literal value: StaticString) {
        key(name)
        out.append(UInt8(ascii: "\""))
        out.append(value)
        out.append(UInt8(ascii: "\""))
    }

    package mutating func string(_ name: StaticString, _ value: UnsafeRawBufferPointer) {
        key(name)
        out.appendJSONString(value)
    }

    package mutating func string(_ name: StaticString, _ value: [UInt8]) {
        key(name)
        value.withUnsafeBytes { out.appendJSONString($0) }
    }

    package mutating func string(_ name: StaticString, _ value: String) {
        key(name)
        var copy = value
        copy.withUTF8 { out.appendJSONString(UnsafeRawBufferPointer($0)) }
    }

    package mutating func int(_ name: StaticString, _ value: Int64) {
        key(name)
        out.appendDecimal(value)
    }

    package mutating func int(_ name: StaticString, _ value: Int) {
        int(name, Int64(value))
    }

    package mutating func bool(_ name: StaticString, _ value: Bool) {
        key(name)
        out.append(value ? "true" : "false")
    }

    package mutating func null(_ name: StaticString) {
        key(name)
        out.append("null")
    }

    /// A timestamp (microseconds since 1970, UTC) as a JSON string in `format`.
    package mutating func timestamp(_ name: StaticString, _ microseconds: Int64, _ format: TimestampFormat) {
        key(name)
        out.append(UInt8(ascii: "\""))
        out.appendTimestamp(microseconds, format)
        out.append(UInt8(ascii: "\""))
    }

    /// A decimal with two fraction digits from an integer number of hundredths (cents):
    /// `4999` is written `49.99`, as a JSON number.
    package mutating func cents(_ name: StaticString, _ hundredths: Int64) {
        key(name)
        if hundredths < 0 { out.append(UInt8(ascii: "-")) }
        let magnitude = hundredths.magnitude
        out.appendDecimal(magnitude / 100)
        out.append(UInt8(ascii: "."))
        out.appendPadded(Int(magnitude % 100), width: 2)
    }

    /// Closes the object (`}`).
    package func close() {
        out.append(UInt8(ascii: "}"))
    }
}

extension ByteWriter {
    /// Appends `bytes` (UTF-8) as a JSON string: quoted, with `"`, `\` and control characters
    /// escaped (RFC 8259 §7).
    package func appendJSONString(_ bytes: UnsafeRawBufferPointer) {
        reserve(bytes.count + 2)
        appendUnchecked(UInt8(ascii: "\""))
        var runStart = 0
        for index in 0 ..< bytes.count {
            let byte = bytes[index]
            guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
            append(UnsafeRawBufferPointer(rebasing: bytes[runStart ..< index]))
            switch byte {
            case UInt8(ascii: "\""): append("\\\"")
            case UInt8(ascii: "\\"): append("\\\\")
            case UInt8(ascii: "\n"): append("\\n")
            case UInt8(ascii: "\r"): append("\\r")
            case UInt8(ascii: "\t"): append("\\t")
            default:
                append("\\u00")
                append(Self.hexDigits[Int(byte >> 4)])
                append(Self.hexDigits[Int(byte & 0xF)])
            }
            runStart = index + 1
        }
        append(UnsafeRawBufferPointer(rebasing: bytes[runStart...]))
        append(UInt8(ascii: "\""))
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
