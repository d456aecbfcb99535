import NIOCore
import Testing

@testable import SluiceKafkaProtocol

@Suite struct VarintTests {
    @Test func signedValuesRoundTripWithTheProtobufBytes() {
        // Zigzag: 0 → 0, -1 → 1, 1 → 2, -64 → 127, 64 → 128 (two bytes 0x80 0x01).
        let cases: [(Int64, [UInt8])] = [(0, [0]), (-1, [1]), (1, [2]), (-64, [127]), (64, [0x80, 0x01]), (300, [0xD8, 0x04])]
        for (value, bytes) in cases {
            var buffer = ByteBuffer()
            buffer.writeVarint(value)
            #expect(Array(buffer.readableBytesView) == bytes)
            #expect(buffer.readVarint() == value)
        }
        for value in [Int64.min, Int64.max, -1_000_000_007, 1 << 40] {
            var buffer = ByteBuffer()
            buffer.writeVarint(value)
            #expect(buffer.readVarint() == value)
            #expect(buffer.readableBytes == 0)
        }
    }

    @Test func unsignedValuesAndMalformedInput() {
        var buffer = ByteBuffer()
        buffer.writeUnsignedVarint(UInt32.max)
        #expect(buffer.readableBytes == 5)
        #expect(buffer.readUnsignedVarint() == UInt32.max)
        var truncated = ByteBuffer(bytes: [0x80, 0x80])
        #expect(truncated.readUnsignedVarint() == nil)
        #expect(truncated.readerIndex == 0)
        var tooLong = ByteBuffer(bytes: [0x80, 0x80, 0x80, 0x80, 0x80, 0x01])
        #expect(tooLong.readUnsignedVarint() == nil)
    }
}
