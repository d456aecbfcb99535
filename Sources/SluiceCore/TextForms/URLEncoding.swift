/// URL encodings of text.
package enum URLEncoding {
    /// Java's `URLEncoder.encode(text, "UTF-8")`, which Iceberg's partition paths and Trino's
    /// prepared-statement headers use: letters, digits and `.-*_` stay, a space becomes `+`,
    /// every other UTF-8 byte `%XX` in upper-case hex.
    package static func javaEncoded(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        let hexDigits = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a") ... UInt8(ascii: "z"), UInt8(ascii: "A") ... UInt8(ascii: "Z"), UInt8(ascii: "0") ... UInt8(ascii: "9"),
                 UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "*"), UInt8(ascii: "_"):
                bytes.append(byte)
            case UInt8(ascii: " "):
                bytes.append(UInt8(ascii: "+"))
            default:
                bytes += [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
