import NIOCore
import Testing

@testable import SluiceKafkaProtocol

@Suite struct MalformedInputTests {
    /// Cutting a valid message anywhere before its end must throw, never trap or read past the cut.
    @Test(arguments: MessageSamples.all)
    func truncationAtEveryOffsetThrows(_ message: MessageCase) {
        for version in message.representativeVersions {
            let full = message.encode(version)
            for length in 0 ..< full.readableBytes {
                var truncated = full.getSlice(at: full.readerIndex, length: length)!
                #expect(throws: KafkaDecodingError.self, "\(message) v\(version) cut at \(length)") {
                    _ = try message.decodeAndRewrite(&truncated, version)
                }
            }
        }
    }

    @Test func lyingArrayCountIsRefusedBeforeAllocating() {
        // Metadata v1 request: topics array count 0x7FFFFFFF and nothing after it.
        var classic = Sample.bytes([0x7F, 0xFF, 0xFF, 0xFF])
        #expect(throws: KafkaDecodingError.invalidLength(0x7FFF_FFFF)) { _ = try MetadataRequest(from: &classic, version: 1) }
        // Flexible: compact count 0xFFFFFFFF (5-byte varint) means 0xFFFFFFFE elements.
        var compact = Sample.bytes([0xFF, 0xFF, 0xFF, 0xFF, 0x0F])
        #expect(throws: KafkaDecodingError.invalidLength(0xFFFF_FFFE)) { _ = try MetadataRequest(from: &compact, version: 9) }
        // Produce v3: an INT32 array of partitions claiming more elements than bytes follow.
        var produce = ByteBuffer()
        produce.writeInteger(Int16(-1))  // transactional id: null
        produce.writeInteger(Int16(1))  // acks
        produce.writeInteger(Int32(1000))  // timeout
        produce.writeInteger(Int32(1))  // one topic
        produce.writeKafkaString("t", compact: false)
        produce.writeInteger(Int32(1_000_000))  // a million partitions, in 4 bytes
        produce.writeInteger(Int32(0))
        #expect(throws: KafkaDecodingError.invalidLength(1_000_000)) { _ = try ProduceRequest(from: &produce, version: 3) }
    }

    @Test func negativeLengthsOtherThanMinusOneThrow() {
        // STRING of length -2.
        var string = Sample.bytes([0xFF, 0xFE])
        #expect(throws: KafkaDecodingError.invalidLength(-2)) { _ = try string.readKafkaNullableString(compact: false) }
        // BYTES of length -5.
        var bytes = Sample.bytes([0xFF, 0xFF, 0xFF, 0xFB])
        #expect(throws: KafkaDecodingError.invalidLength(-5)) { _ = try bytes.readKafkaNullableBytes(compact: false) }
        // ARRAY of count -3.
        var array = Sample.bytes([0xFF, 0xFF, 0xFF, 0xFD])
        #expect(throws: KafkaDecodingError.invalidLength(-3)) { _ = try array.readKafkaNullableStringArray(compact: false) }
        // A Metadata v3 response whose brokers array has count Int32.min.
        var response = ByteBuffer()
        response.writeInteger(Int32(0))  // throttle time
        response.writeInteger(Int32.min)  // brokers
        #expect(throws: KafkaDecodingError.invalidLength(Int64(Int32.min))) { _ = try MetadataResponse(from: &response, version: 3) }
    }

    @Test func nullInNonNullableFieldsThrows() {
        // Produce v3 with a null topic name.
        var produce = ByteBuffer()
        produce.writeInteger(Int16(-1))
        produce.writeInteger(Int16(1))
        produce.writeInteger(Int32(1000))
        produce.writeInteger(Int32(1))
        produce.writeInteger(Int16(-1))  // topic name: null
        #expect(throws: KafkaDecodingError.unexpectedNull) { _ = try ProduceRequest(from: &produce, version: 3) }
        // Metadata v0 has no null topics array.
        var metadata = Sample.bytes([0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: KafkaDecodingError.unexpectedNull) { _ = try MetadataRequest(from: &metadata, version: 0) }
        // ApiVersions v3: compact string length 0 is null.
        var apiVersions = Sample.bytes([0x00, 0x01, 0x00])
        #expect(throws: KafkaDecodingError.unexpectedNull) { _ = try ApiVersionsRequest(from: &apiVersions, version: 3) }
    }

    @Test func lengthsBeyondTheBufferThrowTruncated() {
        var string = Sample.bytes([0x00, 0x05, 0x61, 0x62])
        #expect(throws: KafkaDecodingError.truncated(needed: 5, remaining: 2)) { _ = try string.readKafkaString(compact: false) }
        var records = Sample.bytes([0x7F, 0xFF, 0xFF, 0xFF, 0x00])
        #expect(throws: KafkaDecodingError.truncated(needed: 0x7FFF_FFFF, remaining: 1)) { _ = try records.readKafkaNullableBytes(compact: false) }
        // A compact string claiming more than 32,767 bytes is refused even when the bytes are there.
        var long = ByteBuffer()
        long.writeUnsignedVarint(40_001)
        long.writeRepeatingByte(0x61, count: 40_000)
        #expect(throws: KafkaDecodingError.invalidLength(40_000)) { _ = try long.readKafkaString(compact: true) }
    }

    @Test func lyingTaggedFieldsThrow() {
        // A tag section claiming 1,000 fields in 3 bytes.
        var count = ByteBuffer()
        count.writeUnsignedVarint(1_000)
        count.writeBytes([0, 0, 0])
        #expect(throws: KafkaDecodingError.invalidLength(1_000)) { try count.skipKafkaTaggedFields() }
        // One field whose size runs past the end.
        var size = Sample.bytes([0x01, 0x05, 0x7F, 0x00])
        #expect(throws: KafkaDecodingError.truncated(needed: 127, remaining: 1)) { try size.skipKafkaTaggedFields() }
        // A varint that never ends.
        var varint = Sample.bytes([0x81, 0x81, 0x81, 0x81, 0x81, 0x81])
        #expect(throws: KafkaDecodingError.malformedVarint) { try varint.skipKafkaTaggedFields() }
    }
}
