import Testing
@testable import SluiceCore

@Suite("Binary forms against PostgreSQL's typsend")
struct BinaryOracleTests {
    @Test("typsend bytes match and typreceive reads them back", arguments: binarySendCases)
    func sendAndReceive(_ row: [String]) throws {
        let type = oracleType(row[0])
        let value = try Value(parsingText: row[1], as: type)
        var bytes: [UInt8] = []
        value.appendBinary(to: &bytes, as: type)
        #expect(hex(bytes) == row[2], "\(row[0]) \(row[1])")
        let received = try Value(parsingBinary: bytes, as: type)
        #expect(received.textForm == value.textForm, "\(row[0]) \(row[1])")
    }

    @Test func columnAppendsTheSameBytesAsTheValue() {
        let column = Column(type: .date, values: [.date(19737), .null])
        var bytes: [UInt8] = []
        column.appendBinary(at: 0, to: &bytes)
        #expect(hex(bytes) == "0000224c")  // 2024-01-15 is day 8780 after 2000-01-01
        var text: [UInt8] = []
        column.appendText(at: 0, to: &text)
        #expect(String(decoding: text, as: UTF8.self) == "2024-01-15")
    }

    @Test func truncatedInputIsAFormatError() {
        #expect(throws: SluiceError.self) { try Value(parsingBinary: [0, 0, 1], as: .int32) }
        #expect(throws: SluiceError.self) { try Value(parsingBinary: [0, 1, 0, 0, 0, 0, 0], as: .numeric) }
        #expect(throws: SluiceError.self) { try Value(parsingBinary: [2, 0x7b, 0x7d], as: .jsonb) }
    }

    func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0xF)]] })
    }
}
