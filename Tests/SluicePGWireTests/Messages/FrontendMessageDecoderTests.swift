import NIOCore
import NIOEmbedded
import SluiceCore
import Testing
@testable import SluicePGWire

@Suite struct FrontendMessageDecoderTests {
    typealias B = FrontendBytes

    /// Every kind of frontend message with the bytes that encode it.
    static let cases: [([UInt8], PGFrontendMessage)] = [
        (B.query("select 1"), .query("select 1")),
        (B.parse("s1", "select $1", oids: [23, 0]), .parse(PGParse(statementName: "s1", query: "select $1", parameterOIDs: [23, 0]))),
        (
            B.bind(portal: "p", statement: "s1", parameterFormats: [0, 1], parameters: [Array("42".utf8), nil], resultFormats: [1]),
            .bind(PGBind(portalName: "p", statementName: "s1", parameterFormats: [.text, .binary], parameters: [Array("42".utf8), nil], resultFormats: [.binary]))
        ),
        (B.describe("S", "s1"), .describe(.statement("s1"))),
        (B.describe("P", ""), .describe(.portal(""))),
        (B.execute("p", maxRows: 5), .execute(PGExecute(portalName: "p", maxRows: 5))),
        (B.close("S", "s1"), .close(.statement("s1"))),
        (B.close("P", "p"), .close(.portal("p"))),
        (B.sync, .sync),
        (B.flush, .flush),
        (B.terminate, .terminate),
        (B.password("secret"), .authenticationResponse(Array("secret".utf8) + [0])),
    ]

    /// Decodes `bytes` after a startup packet, fed in pieces of `pieceSize` bytes through a real
    /// `ByteToMessageHandler` in an `EmbeddedChannel`.
    static func decodeThroughChannel(_ bytes: [UInt8], pieceSize: Int) throws -> [PGFrontendMessage] {
        let channel = EmbeddedChannel(handler: ByteToMessageHandler(PGFrontendDecodingHandler(maxMessageLength: 1 << 20)))
        var start = 0
        while start < bytes.count {
            let end = min(start + pieceSize, bytes.count)
            try channel.writeInbound(ByteBuffer(bytes: bytes[start ..< end]))
            start = end
        }
        var messages: [PGFrontendMessage] = []
        while let message = try channel.readInbound(as: PGFrontendMessage.self) { messages.append(message) }
        _ = try channel.finish()
        return messages
    }

    static let startupBytes = B.startup([("user", "root"), ("database", "dev")])
    static let startupMessage = PGFrontendMessage.startup(PGStartupMessage(parameters: ["user": "root", "database": "dev"]))

    @Test func decodesEachMessageAllAtOnceAndByteAtATime() throws {
        for (bytes, expected) in Self.cases {
            for pieceSize in [1, 2, 3, 1000] {
                let messages = try Self.decodeThroughChannel(Self.startupBytes + bytes, pieceSize: pieceSize)
                #expect(messages == [Self.startupMessage, expected], "piece size \(pieceSize)")
            }
        }
    }

    @Test func decodesAPipelinedStreamTheSameInAnySplit() throws {
        let stream = B.sslRequest + Self.startupBytes + Self.cases.flatMap(\.0)
        let expected = [.sslRequest, Self.startupMessage] + Self.cases.map(\.1)
        #expect(try Self.decodeThroughChannel(stream, pieceSize: stream.count) == expected)
        #expect(try Self.decodeThroughChannel(stream, pieceSize: 1) == expected)
        #expect(try Self.decodeThroughChannel(stream, pieceSize: 7) == expected)
    }

    @Test func decodesStartupPackets() throws {
        var decoder = PGFrontendMessageDecoder()
        var buffer = ByteBuffer(bytes: B.gssEncryptionRequest + B.sslRequest + Self.startupBytes)
        #expect(try decoder.decodeMessage(from: &buffer) == .gssEncryptionRequest)
        #expect(try decoder.decodeMessage(from: &buffer) == .sslRequest)
        #expect(try decoder.decodeMessage(from: &buffer) == Self.startupMessage)
        #expect(try decoder.decodeMessage(from: &buffer) == nil)

        var cancelDecoder = PGFrontendMessageDecoder()
        var cancel = ByteBuffer(bytes: B.cancelRequest(processID: 7, secretKey: -3))
        #expect(try cancelDecoder.decodeMessage(from: &cancel) == .cancelRequest(processID: 7, secretKey: -3))
    }

    /// Inputs that must be rejected with 08P01 (or 22021 for bad UTF-8), after a valid startup where noted.
    static let malformed: [(String, [UInt8], Bool)] = [
        ("protocol 2.0", B.startup([("user", "u")], version: 2 << 16), false),
        ("startup length too small", B.int32(4) + B.int32(196_608), false),
        ("startup length too large", B.int32(20_000) + B.int32(196_608), false),
        ("startup missing terminator", B.int32(14) + B.int32(196_608) + Array("user".utf8) + [0, 0x75, 0x75], false),
        ("startup trailing bytes", B.int32(9) + B.int32(80_877_103) + [1], false),
        ("unknown message type", B.message("Z", []), true),
        ("length below 4", [UInt8(ascii: "Q")] + B.int32(3), true),
        ("negative length", [UInt8(ascii: "Q")] + B.int32(-1), true),
        ("length above the maximum", [UInt8(ascii: "Q")] + B.int32(Int32.max), true),
        ("query without NUL", B.message("Q", Array("select".utf8)), true),
        ("sync with a body", B.message("S", [1]), true),
        ("parse with truncated OIDs", B.message("P", B.cString("") + B.cString("x") + B.int16(3) + B.int32(0)), true),
        ("parse with negative count", B.message("P", B.cString("") + B.cString("x") + B.int16(-1)), true),
        ("bind with a bad parameter length", B.message("B", B.cString("") + B.cString("") + B.int16(0) + B.int16(1) + B.int32(-2) + B.int16(0)), true),
        ("bind with a parameter longer than the message", B.message("B", B.cString("") + B.cString("") + B.int16(0) + B.int16(1) + B.int32(1_000_000) + B.int16(0)), true),
        ("bind with format code 2", B.bind(portal: "", statement: "", parameterFormats: [2], parameters: [[1]]), true),
        ("bind with 2 formats for 1 parameter", B.bind(portal: "", statement: "", parameterFormats: [0, 0], parameters: [[1]]), true),
        ("describe with unknown kind", B.describe("X", "s"), true),
        ("execute truncated", B.message("E", B.cString("") + [0, 0]), true),
        ("query not UTF-8", B.message("Q", [0xff, 0xfe, 0]), true),
    ]

    @Test func rejectsMalformedInputWithoutWaitingForMoreBytes() {
        for (name, bytes, needsStartup) in Self.malformed {
            var decoder = PGFrontendMessageDecoder(maxMessageLength: 1 << 20)
            var buffer = ByteBuffer(bytes: (needsStartup ? Self.startupBytes : []) + bytes)
            do {
                if needsStartup { _ = try decoder.decodeMessage(from: &buffer) }
                let message = try decoder.decodeMessage(from: &buffer)
                Issue.record("\(name): decoded \(String(describing: message))")
            } catch {
                #expect(error.code == .protocolViolation || error.code == .characterNotInRepertoire, "\(name)")
            }
        }
    }

    @Test func partialMessagesWaitWithoutConsumingBytes() throws {
        let bytes = Self.startupBytes + B.query("select 1")
        var decoder = PGFrontendMessageDecoder()
        var buffer = ByteBuffer(bytes: Self.startupBytes)
        _ = try decoder.decodeMessage(from: &buffer)
        for length in 0 ..< B.query("select 1").count {
            var partial = ByteBuffer(bytes: B.query("select 1").prefix(length))
            #expect(try decoder.decodeMessage(from: &partial) == nil)
            #expect(partial.readableBytes == length)
        }
        _ = bytes
    }
}
