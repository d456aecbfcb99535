import SluiceCore
import Testing
@testable import SluicePGWire

/// Backend message bytes checked against sequences derived by hand from "Message Formats".
@Suite struct BackendMessageEncodingTests {
    @Test func rowDescription() {
        let message = PGBackendMessage.rowDescription([
            PGRowDescriptionField(PGColumn(name: "a", type: .int32), format: .text),
            PGRowDescriptionField(PGColumn(name: "bc", type: .varchar, tableOID: 16_384, columnNumber: 2), format: .binary),
        ])
        let expected: [UInt8] = [
            0x54, 0, 0, 0, 0x2f,           // 'T', length 47 = 4 + 2 + (2 + 18) + (3 + 18)
            0, 2,                          // two fields
            0x61, 0,                       // "a"
            0, 0, 0, 0,                    // table OID 0
            0, 0,                          // column number 0
            0, 0, 0, 23,                   // int4
            0, 4,                          // typlen 4
            0xff, 0xff, 0xff, 0xff,        // typmod -1
            0, 0,                          // text
            0x62, 0x63, 0,                 // "bc"
            0, 0, 0x40, 0,                 // table OID 16384
            0, 2,                          // column 2
            0, 0, 0x04, 0x13,              // varchar 1043
            0xff, 0xff,                    // typlen -1
            0xff, 0xff, 0xff, 0xff,        // typmod -1
            0, 1,                          // binary
        ]
        #expect(message.bytes == expected)
    }

    @Test func dataRowWithNull() {
        let message = PGBackendMessage.dataRow(PGDataRow(fields: [Array("42".utf8), nil, []]))
        let expected: [UInt8] = [
            0x44, 0, 0, 0, 0x14,           // 'D', length 20 = 4 + 2 + (4 + 2) + 4 + 4
            0, 3,
            0, 0, 0, 2, 0x34, 0x32,        // "42"
            0xff, 0xff, 0xff, 0xff,        // NULL
            0, 0, 0, 0,                    // empty string
        ]
        #expect(message.bytes == expected)
    }

    @Test func dataRowFromChunkInTextAndBinary() {
        let chunk = Chunk(columns: [
            Column(type: .int32, values: [.int32(7), .null]),
            Column(type: .boolean, values: [.bool(true), .bool(false)]),
        ])
        #expect(PGDataRow(chunk: chunk, rowIndex: 0, formats: []).fields == [Array("7".utf8), Array("t".utf8)])
        #expect(PGDataRow(chunk: chunk, rowIndex: 0, formats: [.binary]).fields == [[0, 0, 0, 7], [1]])
        #expect(PGDataRow(chunk: chunk, rowIndex: 1, formats: [.binary, .text]).fields == [nil, Array("f".utf8)])
    }

    @Test func errorResponseWithAllFields() {
        let error = SluiceError(.syntaxError, "syntax error", detail: "D.", hint: "H.", position: 8)
        let expected: [UInt8] = [0x45, 0, 0, 0, 0x33]  // 'E', length 51 = 4 + 7 + 7 + 7 + 14 + 4 + 4 + 3 + 1
            + [0x53] + Array("ERROR".utf8) + [0]
            + [0x56] + Array("ERROR".utf8) + [0]
            + [0x43] + Array("42601".utf8) + [0]
            + [0x4d] + Array("syntax error".utf8) + [0]
            + [0x44] + Array("D.".utf8) + [0]
            + [0x48] + Array("H.".utf8) + [0]
            + [0x50] + Array("8".utf8) + [0]
            + [0]
        #expect(PGBackendMessage.errorResponse(PGErrorFields(.error, error)).bytes == expected)
    }

    @Test func noticeResponseSeverityFollowsSQLStateClass() {
        #expect(PGSeverity.notice(for: .warning) == .warning)
        #expect(PGSeverity.notice(for: .successfulCompletion) == .notice)
        let bytes = PGBackendMessage.noticeResponse(PGErrorFields(.notice, SluiceError(.successfulCompletion, "hi"))).bytes
        #expect(bytes.first == UInt8(ascii: "N"))
        #expect(RawBackendMessage.split(bytes).first?.errorFields == ["S": "NOTICE", "V": "NOTICE", "C": "00000", "M": "hi"])
    }

    @Test func smallMessages() {
        #expect(PGBackendMessage.readyForQuery(.idle).bytes == [0x5a, 0, 0, 0, 5, 0x49])
        #expect(PGBackendMessage.readyForQuery(.inBlock).bytes == [0x5a, 0, 0, 0, 5, 0x54])
        #expect(PGBackendMessage.authentication(.ok).bytes == [0x52, 0, 0, 0, 8, 0, 0, 0, 0])
        #expect(PGBackendMessage.authentication(.cleartextPassword).bytes == [0x52, 0, 0, 0, 8, 0, 0, 0, 3])
        #expect(PGBackendMessage.authentication(.sasl(mechanisms: ["SCRAM-SHA-256"])).bytes
            == [0x52, 0, 0, 0, 23, 0, 0, 0, 10] + Array("SCRAM-SHA-256".utf8) + [0, 0])
        #expect(PGBackendMessage.backendKeyData(processID: 1, secretKey: -1).bytes == [0x4b, 0, 0, 0, 12, 0, 0, 0, 1, 0xff, 0xff, 0xff, 0xff])
        #expect(PGBackendMessage.parameterStatus(name: "a", value: "b").bytes == [0x53, 0, 0, 0, 8, 0x61, 0, 0x62, 0])
        #expect(PGBackendMessage.commandComplete("SELECT 1").bytes == [0x43, 0, 0, 0, 13] + Array("SELECT 1".utf8) + [0])
        #expect(PGBackendMessage.parameterDescription([23, 25]).bytes == [0x74, 0, 0, 0, 14, 0, 2, 0, 0, 0, 23, 0, 0, 0, 25])
        #expect(PGBackendMessage.emptyQueryResponse.bytes == [0x49, 0, 0, 0, 4])
        #expect(PGBackendMessage.parseComplete.bytes == [0x31, 0, 0, 0, 4])
        #expect(PGBackendMessage.bindComplete.bytes == [0x32, 0, 0, 0, 4])
        #expect(PGBackendMessage.closeComplete.bytes == [0x33, 0, 0, 0, 4])
        #expect(PGBackendMessage.noData.bytes == [0x6e, 0, 0, 0, 4])
        #expect(PGBackendMessage.portalSuspended.bytes == [0x73, 0, 0, 0, 4])
        #expect(PGBackendMessage.encryptionRefused.bytes == [0x4e])
    }
}
