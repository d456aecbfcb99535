import Foundation
import NIOCore

/// The record batches under `tests/fixtures/kafka/`, written by kafka-python (see the README there).
enum KafkaFixtures {
    /// The bytes of the hex fixture `name` (whitespace between the digits is ignored).
    static func batch(_ name: String) throws -> ByteBuffer {
        // This file is Tests/SluiceKafkaProtocolTests/RecordBatch/KafkaFixtures.swift.
        let root = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let url = root.appendingPathComponent("tests/fixtures/kafka/\(name)")
        let text = try String(contentsOf: url, encoding: .utf8)
        return try hexBytes(text)
    }

    /// Parses hexadecimal digit pairs, ignoring whitespace.
    static func hexBytes(_ text: String) throws -> ByteBuffer {
        let digits = text.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) }.map(Character.init)
        guard digits.count % 2 == 0 else { throw FixtureError.oddHexDigitCount }
        var buffer = ByteBuffer()
        var index = digits.startIndex
        while index < digits.endIndex {
            guard let byte = UInt8(String(digits[index...index + 1]), radix: 16) else { throw FixtureError.notHex }
            buffer.writeInteger(byte)
            index += 2
        }
        return buffer
    }

    enum FixtureError: Error {
        case oddHexDigitCount
        case notHex
    }
}
