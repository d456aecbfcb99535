import NIOCore
import SluiceCore
import SluiceNet
import Testing

/// HTTP/2 frames (RFC 9113 Section 4, 6): every type written and read back, whole and a byte
/// at a time, padding removed, and the layouts the decoder must refuse.
@Suite struct HTTP2FrameTests {
    static func buffer(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    static let frames: [(HTTP2Frame, UInt8?)] = [
        (HTTP2Frame(streamID: 1, .data(buffer("hello"), endStream: false)), nil),
        (HTTP2Frame(streamID: 3, .data(buffer(""), endStream: true)), nil),
        (HTTP2Frame(streamID: 5, .data(buffer("padded"), endStream: true, padding: 11)), 10),
        (HTTP2Frame(streamID: 1, .headers(block: buffer("\u{82}\u{86}"), endStream: true, endHeaders: true, priority: nil)), nil),
        (
            HTTP2Frame(
                streamID: 7,
                .headers(block: buffer("abc"), endStream: false, endHeaders: false, priority: HTTP2Priority(exclusive: true, dependency: 3, weight: 200))),
            4
        ),
        (HTTP2Frame(streamID: 9, .priority(HTTP2Priority(exclusive: false, dependency: 1, weight: 15))), nil),
        (HTTP2Frame(streamID: 1, .rstStream(.cancel)), nil),
        (HTTP2Frame(streamID: 0, .settings([HTTP2Setting(HTTP2Setting.maxFrameSize, 32_768), HTTP2Setting(0x99, 1)])), nil),
        (HTTP2Frame(streamID: 0, .settings([])), nil),
        (HTTP2Frame(streamID: 0, .settingsAck), nil),
        (HTTP2Frame(streamID: 1, .pushPromise(promisedStreamID: 2, block: buffer("xyz"), endHeaders: true)), nil),
        (HTTP2Frame(streamID: 0, .ping(0x0102_0304_0506_0708, ack: false)), nil),
        (HTTP2Frame(streamID: 0, .ping(42, ack: true)), nil),
        (HTTP2Frame(streamID: 0, .goAway(lastStreamID: 7, code: .protocolError, debugData: buffer("bad"))), nil),
        (HTTP2Frame(streamID: 0, .windowUpdate(increment: 0x7fff_ffff)), nil),
        (HTTP2Frame(streamID: 3, .windowUpdate(increment: 1)), nil),
        (HTTP2Frame(streamID: 7, .continuation(block: buffer("more"), endHeaders: true)), nil),
        (HTTP2Frame(streamID: 7, .unknown(type: 0xfa, flags: 0x3, payload: buffer("extension"))), nil),
    ]

    /// The frames read back, whole and fed a byte at a time.
    static func decode(_ bytes: ByteBuffer, piece: Int) throws(HTTP2ProtocolError) -> [HTTP2Frame] {
        let decoder = HTTP2FrameDecoder()
        var input = ByteBuffer()
        var frames: [HTTP2Frame] = []
        var rest = bytes
        while rest.readableBytes > 0 {
            var part = rest.readSlice(length: min(piece, rest.readableBytes))!
            input.writeBuffer(&part)
            while let frame = try decoder.next(&input) { frames.append(frame) }
        }
        return frames
    }

    @Test func everyTypeRoundTrips() throws {
        var bytes = ByteBuffer()
        for (frame, padding) in Self.frames { HTTP2FrameEncoder.write(frame, padding: padding, into: &bytes) }
        for piece in [1, 7, 9, 100_000] {
            let frames = try Self.decode(bytes, piece: piece)
            #expect(frames == Self.frames.map(\.0), "pieces of \(piece)")
        }
    }

    @Test func headerLayoutIsRFC9113s() {
        var bytes = ByteBuffer()
        HTTP2FrameEncoder.write(HTTP2Frame(streamID: 3, .data(Self.buffer("ab"), endStream: true)), into: &bytes)
        #expect(Array(bytes.readableBytesView) == [0, 0, 2, 0, 1, 0, 0, 0, 3, 0x61, 0x62])
        var direct = ByteBuffer()
        HTTP2FrameEncoder.writeData(streamID: 3, Array("ab".utf8)[...], endStream: true, into: &direct)
        #expect(direct == bytes)
    }

    static func error(_ bytes: [UInt8], maximumFrameSize: Int = 16_384) -> HTTP2ProtocolError? {
        var input = ByteBuffer(bytes: bytes)
        do throws(HTTP2ProtocolError) {
            _ = try HTTP2FrameDecoder(maximumFrameSize: maximumFrameSize).next(&input)
            return nil
        } catch {
            return error
        }
    }

    @Test func malformedFramesAreRefused() {
        // Past the maximum frame size (the header alone tells).
        #expect(Self.error([0, 0x40, 1, 0, 0, 0, 0, 0, 1])?.code == .frameSizeError)
        // DATA on stream 0; SETTINGS on stream 1; SETTINGS of 5 bytes; an ACK with a payload.
        #expect(Self.error([0, 0, 0, 0, 0, 0, 0, 0, 0])?.code == .protocolError)
        #expect(Self.error([0, 0, 0, 4, 0, 0, 0, 0, 1])?.code == .protocolError)
        #expect(Self.error([0, 0, 5, 4, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5])?.code == .frameSizeError)
        #expect(Self.error([0, 0, 6, 4, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0])?.code == .frameSizeError)
        // PING of 7 bytes; RST_STREAM of 3; WINDOW_UPDATE of 5; GOAWAY of 7.
        #expect(Self.error([0, 0, 7, 6, 0, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 7))?.code == .frameSizeError)
        #expect(Self.error([0, 0, 3, 3, 0, 0, 0, 0, 1, 0, 0, 0])?.code == .frameSizeError)
        #expect(Self.error([0, 0, 5, 8, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])?.code == .frameSizeError)
        #expect(Self.error([0, 0, 7, 7, 0, 0, 0, 0, 0] + [UInt8](repeating: 0, count: 7))?.code == .frameSizeError)
        // Padding as long as the payload; a PRIORITY of 4 bytes is a stream error.
        #expect(Self.error([0, 0, 2, 0, 0x8, 0, 0, 0, 1, 2, 0])?.code == .protocolError)
        let priority = Self.error([0, 0, 4, 2, 0, 0, 0, 0, 5, 0, 0, 0, 1])
        #expect(priority?.code == .frameSizeError && priority?.streamID == 5)
        // A header not yet whole is no error.
        #expect(Self.error([0, 0, 4]) == nil)
    }
}
