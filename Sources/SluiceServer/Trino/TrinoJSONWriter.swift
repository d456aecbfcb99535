import SluiceCore

/// Writes the JSON of Trino's client protocol straight into bytes: the QueryResults documents
/// and the rows in them (no Foundation JSON on the data path). The caller writes separators;
/// the writer only knows how to spell a value.
struct TrinoJSONWriter {
    var bytes: [UInt8] = []

    init(reservingCapacity capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func byte(_ ascii: Unicode.Scalar) {
        bytes.append(UInt8(ascii: ascii))
    }

    /// `text` as a JSON string.
    mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { JSONText.appendQuoted(UnsafeRawBufferPointer($0), to: &bytes) }
    }

    /// `"key":`
    mutating func key(_ key: StaticString) {
        bytes.append(UInt8(ascii: "\""))
        raw(key)
        bytes.append(contentsOf: [UInt8(ascii: "\""), UInt8(ascii: ":")])
    }

    mutating func integer(_ value: Int64) {
        DecimalText.append(value, to: &bytes)
    }

    mutating func bool(_ value: Bool) {
        if value { raw("true") } else { raw("false") }
    }
}
