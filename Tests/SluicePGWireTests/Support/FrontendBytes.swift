import NIOCore
@testable import SluicePGWire

/// Builders of client message bytes, written from "Message Formats" independently of the decoder.
enum FrontendBytes {
    static func int16(_ value: Int16) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
    static func int32(_ value: Int32) -> [UInt8] { withUnsafeBytes(of: value.bigEndian, Array.init) }
    static func cString(_ string: String) -> [UInt8] { Array(string.utf8) + [0] }

    /// A typed message: type byte, Int32 length counting itself, body.
    static func message(_ type: Character, _ body: [UInt8]) -> [UInt8] {
        [type.asciiValue!] + int32(Int32(body.count + 4)) + body
    }

    static func startup(_ parameters: [(String, String)], version: Int32 = 196_608) -> [UInt8] {
        var body = int32(version)
        for (name, value) in parameters { body += cString(name) + cString(value) }
        body.append(0)
        return int32(Int32(body.count + 4)) + body
    }

    static let sslRequest: [UInt8] = int32(8) + int32(80_877_103)
    static let gssEncryptionRequest: [UInt8] = int32(8) + int32(80_877_104)
    static func cancelRequest(processID: Int32, secretKey: Int32) -> [UInt8] {
        int32(16) + int32(80_877_102) + int32(processID) + int32(secretKey)
    }

    static func query(_ sql: String) -> [UInt8] { message("Q", cString(sql)) }

    static func parse(_ name: String, _ sql: String, oids: [Int32] = []) -> [UInt8] {
        message("P", cString(name) + cString(sql) + int16(Int16(oids.count)) + oids.flatMap(int32))
    }

    static func bind(
        portal: String, statement: String, parameterFormats: [Int16] = [], parameters: [[UInt8]?] = [],
        resultFormats: [Int16] = []
    ) -> [UInt8] {
        var body = cString(portal) + cString(statement)
        body += int16(Int16(parameterFormats.count)) + parameterFormats.flatMap(int16)
        body += int16(Int16(parameters.count))
        for parameter in parameters {
            if let parameter { body += int32(Int32(parameter.count)) + parameter } else { body += int32(-1) }
        }
        body += int16(Int16(resultFormats.count)) + resultFormats.flatMap(int16)
        return message("B", body)
    }

    static func describe(_ kind: Character, _ name: String) -> [UInt8] { message("D", [kind.asciiValue!] + cString(name)) }
    static func close(_ kind: Character, _ name: String) -> [UInt8] { message("C", [kind.asciiValue!] + cString(name)) }
    static func execute(_ portal: String, maxRows: Int32 = 0) -> [UInt8] { message("E", cString(portal) + int32(maxRows)) }
    static let sync = message("S", [])
    static let flush = message("H", [])
    static let terminate = message("X", [])
    static func password(_ password: String) -> [UInt8] { message("p", cString(password)) }
    static func saslInitialResponse(_ mechanism: String, _ data: [UInt8]) -> [UInt8] {
        message("p", cString(mechanism) + int32(Int32(data.count)) + data)
    }
    static func saslResponse(_ data: [UInt8]) -> [UInt8] { message("p", data) }
}

/// A parsed backend message: type byte and body, for checking what the server sent.
struct RawBackendMessage: Equatable, CustomStringConvertible {
    var type: Character
    var body: [UInt8]

    var description: String { "\(type)(\(body.count))" }

    /// The fields of an ErrorResponse/NoticeResponse by code.
    var errorFields: [Character: String] {
        var fields: [Character: String] = [:]
        var index = 0
        while index < body.count, body[index] != 0 {
            let code = Character(UnicodeScalar(body[index]))
            let end = body[(index + 1)...].firstIndex(of: 0) ?? body.count
            fields[code] = String(decoding: body[(index + 1) ..< end], as: UTF8.self)
            index = end + 1
        }
        return fields
    }

    /// The fields of a DataRow as text, nil for NULL.
    var dataRowTexts: [String?] {
        var buffer = ByteBuffer(bytes: body)
        let count = Int(buffer.readInteger(as: Int16.self)!)
        return (0 ..< count).map { _ in
            let length = buffer.readInteger(as: Int32.self)!
            return length < 0 ? nil : buffer.readString(length: Int(length))!
        }
    }

    var cStringBody: String { String(decoding: body.prefix { $0 != 0 }, as: UTF8.self) }

    /// Splits a byte stream into messages; a leading single `N` (SSL refusal) is not handled here.
    static func split(_ bytes: [UInt8]) -> [RawBackendMessage] {
        var messages: [RawBackendMessage] = []
        var index = 0
        while index + 5 <= bytes.count {
            let length = Int(bytes[index + 1]) << 24 | Int(bytes[index + 2]) << 16 | Int(bytes[index + 3]) << 8 | Int(bytes[index + 4])
            guard index + 1 + length <= bytes.count else { break }
            messages.append(RawBackendMessage(
                type: Character(UnicodeScalar(bytes[index])), body: Array(bytes[(index + 5) ..< (index + 1 + length)])
            ))
            index += 1 + length
        }
        return messages
    }
}

extension PGBackendMessage {
    /// The wire bytes of this message.
    var bytes: [UInt8] {
        var buffer = ByteBuffer()
        encode(into: &buffer)
        return buffer.readBytes(length: buffer.readableBytes)!
    }
}
