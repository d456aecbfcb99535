import NIOCore
import Testing

@testable import SluiceKafkaProtocol

/// The wire primitives, each against bytes from the protocol guide's "Protocol Primitive Types".
@Suite struct PrimitiveTests {
    @Test func fixedWidthValuesAreBigEndian() throws {
        var buffer = ByteBuffer()
        buffer.writeInteger(Int8(-2))
        buffer.writeInteger(Int16(0x0102))
        buffer.writeInteger(Int32(-1))
        buffer.writeInteger(Int64(0x0102_0304_0506_0708))
        buffer.writeInteger(UInt16(0xFFFE))
        buffer.writeInteger(UInt32(0xDEAD_BEEF))
        buffer.writeKafkaBool(true)
        buffer.writeKafkaFloat64(1.5)
        buffer.writeKafkaUUID(Sample.topicID)
        #expect(Array(buffer.readableBytesView.prefix(7)) == [0xFE, 0x01, 0x02, 0xFF, 0xFF, 0xFF, 0xFF])
        #expect(try buffer.readKafkaInteger(as: Int8.self) == -2)
        #expect(try buffer.readKafkaInteger(as: Int16.self) == 0x0102)
        #expect(try buffer.readKafkaInteger(as: Int32.self) == -1)
        #expect(try buffer.readKafkaInteger(as: Int64.self) == 0x0102_0304_0506_0708)
        #expect(try buffer.readKafkaInteger(as: UInt16.self) == 0xFFFE)
        #expect(try buffer.readKafkaInteger(as: UInt32.self) == 0xDEAD_BEEF)
        #expect(try buffer.readKafkaBool())
        #expect(Array(buffer.readableBytesView.prefix(8)) == [0x3F, 0xF8, 0, 0, 0, 0, 0, 0])
        #expect(try buffer.readKafkaFloat64() == 1.5)
        #expect(Array(buffer.readableBytesView.prefix(2)) == [0x01, 0x23])
        #expect(try buffer.readKafkaUUID() == Sample.topicID)
        #expect(buffer.readableBytes == 0)
        #expect(throws: KafkaDecodingError.truncated(needed: 4, remaining: 0)) { try buffer.readKafkaInteger(as: Int32.self) }
        var short = Sample.bytes(Array(repeating: 0, count: 15))
        #expect(throws: KafkaDecodingError.truncated(needed: 16, remaining: 15)) { try short.readKafkaUUID() }
        #expect(short.readerIndex == 0)
    }

    @Test func varintsThrowWhenMalformed() throws {
        var buffer = ByteBuffer()
        buffer.writeVarint(-300)
        buffer.writeUnsignedVarint(300)
        #expect(try buffer.readKafkaVarint() == -300)
        #expect(try buffer.readKafkaUnsignedVarint() == 300)
        var unterminated = Sample.bytes([0xFF, 0xFF])
        #expect(throws: KafkaDecodingError.malformedVarint) { try unterminated.readKafkaVarint() }
        var tooLong = Sample.bytes(Array(repeating: 0x80, count: 10) + [0x01])
        #expect(throws: KafkaDecodingError.malformedVarint) { try tooLong.readKafkaVarint() }
    }

    @Test func anyNonZeroByteIsTrue() throws {
        var buffer = Sample.bytes([0x00, 0x01, 0x7F])
        #expect(try buffer.readKafkaBool() == false)
        #expect(try buffer.readKafkaBool())
        #expect(try buffer.readKafkaBool())
    }

    @Test func stringsInAllFourForms() throws {
        var buffer = ByteBuffer()
        buffer.writeKafkaString("héllo", compact: false)
        buffer.writeKafkaNullableString(nil, compact: false)
        buffer.writeKafkaString("héllo", compact: true)
        buffer.writeKafkaNullableString(nil, compact: true)
        buffer.writeKafkaString("", compact: true)
        #expect(Array(buffer.readableBytesView) == [
            0x00, 0x06, 0x68, 0xC3, 0xA9, 0x6C, 0x6C, 0x6F,  // STRING: INT16 UTF-8 length 6
            0xFF, 0xFF,  // NULLABLE_STRING null: -1
            0x07, 0x68, 0xC3, 0xA9, 0x6C, 0x6C, 0x6F,  // COMPACT_STRING: varint 6+1
            0x00,  // COMPACT_NULLABLE_STRING null: 0
            0x01,  // COMPACT_STRING "": varint 0+1
        ])
        #expect(try buffer.readKafkaString(compact: false) == "héllo")
        #expect(try buffer.readKafkaNullableString(compact: false) == nil)
        #expect(try buffer.readKafkaString(compact: true) == "héllo")
        #expect(try buffer.readKafkaNullableString(compact: true) == nil)
        #expect(try buffer.readKafkaString(compact: true) == "")
    }

    @Test func bytesAreSlicesOfTheBuffer() throws {
        var buffer = ByteBuffer()
        buffer.writeKafkaBytes(Sample.bytes([1, 2, 3]), compact: false)
        buffer.writeKafkaNullableBytes(nil, compact: false)
        buffer.writeKafkaBytes(Sample.bytes([4]), compact: true)
        buffer.writeKafkaNullableBytes(nil, compact: true)
        #expect(Array(buffer.readableBytesView) == [0, 0, 0, 3, 1, 2, 3, 0xFF, 0xFF, 0xFF, 0xFF, 0x02, 4, 0x00])
        let slice = try buffer.readKafkaBytes(compact: false)
        #expect(Array(slice.readableBytesView) == [1, 2, 3])
        // A slice shares the request's storage: reading records copies nothing.
        slice.withUnsafeReadableBytes { sliceBytes in
            buffer.withUnsafeReadableBytes { rest in
                #expect(sliceBytes.baseAddress! + 3 == rest.baseAddress!)
            }
        }
        #expect(try buffer.readKafkaNullableBytes(compact: false) == nil)
        #expect(try buffer.readKafkaBytes(compact: true) == Sample.bytes([4]))
        #expect(try buffer.readKafkaNullableBytes(compact: true) == nil)
    }

    @Test func arraysAndNullArrays() throws {
        var buffer = ByteBuffer()
        buffer.writeKafkaInt32Array([7, -1], compact: false)
        buffer.writeKafkaNullableStringArray(nil, compact: false)
        buffer.writeKafkaStringArray(["a"], compact: true)
        buffer.writeKafkaNullableStringArray(nil, compact: true)
        #expect(Array(buffer.readableBytesView) == [
            0, 0, 0, 2, 0, 0, 0, 7, 0xFF, 0xFF, 0xFF, 0xFF,  // ARRAY[INT32] of 2
            0xFF, 0xFF, 0xFF, 0xFF,  // null ARRAY
            0x02, 0x02, 0x61,  // COMPACT_ARRAY of 1 COMPACT_STRING "a"
            0x00,  // null COMPACT_ARRAY
        ])
        #expect(try buffer.readKafkaInt32Array(compact: false) == [7, -1])
        #expect(try buffer.readKafkaNullableStringArray(compact: false) == nil)
        #expect(try buffer.readKafkaStringArray(compact: true) == ["a"])
        #expect(throws: KafkaDecodingError.unexpectedNull) { try buffer.readKafkaStringArray(compact: true) }
    }

    @Test func taggedFieldsAreReadWhenKnownAndSkippedOtherwise() throws {
        var buffer = ByteBuffer()
        buffer.writeKafkaTaggedFields([
            (0, { $0.writeKafkaNullableString("c1", compact: true) }),
            (7, { $0.writeInteger(UInt32(0xCAFE_BABE)) }),
        ])
        buffer.writeInteger(UInt8(0x99))  // the next field
        #expect(Array(buffer.readableBytesView) == [
            0x02,  // two tagged fields
            0x00, 0x03, 0x03, 0x63, 0x31,  // tag 0, size 3: compact string "c1"
            0x07, 0x04, 0xCA, 0xFE, 0xBA, 0xBE,  // tag 7, size 4
            0x99,
        ])
        var seen: [UInt32] = []
        var clusterID: String?
        try buffer.readKafkaTaggedFields { tag, field throws(KafkaDecodingError) in
            seen.append(tag)
            if tag == 0 { clusterID = try field.readKafkaNullableString(compact: true) }
        }
        #expect(seen == [0, 7])
        #expect(clusterID == "c1")
        #expect(try buffer.readKafkaInteger(as: UInt8.self) == 0x99)

        var empty = ByteBuffer()
        empty.writeKafkaEmptyTaggedFields()
        #expect(Array(empty.readableBytesView) == [0x00])
        try empty.skipKafkaTaggedFields()
        #expect(empty.readableBytes == 0)
    }

    @Test func unknownTaggedFieldsInAMessageAreSkipped() throws {
        // A Heartbeat-free example: an ApiVersions v3 request whose tag section carries tag 9.
        var buffer = Sample.bytes([0x02, 0x61, 0x02, 0x62, 0x01, 0x09, 0x01, 0xFF])
        let request = try ApiVersionsRequest(from: &buffer, version: 3)
        #expect(request == ApiVersionsRequest(clientSoftwareName: "a", clientSoftwareVersion: "b"))
        #expect(buffer.readableBytes == 0)
    }
}
