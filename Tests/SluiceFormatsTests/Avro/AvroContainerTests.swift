import SluiceCore
import Testing
@testable import SluiceFormats

@Suite struct AvroContainerTests {
    static let sync: [UInt8] = Array(repeating: 0xAA, count: 16)

    static let schema = AvroSchema.record("row", [
        AvroField("id", .long, fieldID: 1),
        AvroField("name", .optional(.string), fieldID: 2),
        AvroField("tags", .array(.string, elementID: 3), fieldID: 4),
        AvroField("score", .double),
    ])

    static func row(_ index: Int) -> AvroValue {
        .record([.long(Int64(index) * 1_000_003 - 7), index % 3 == 0 ? .null : .string("name \(index)"),
                 .array((0 ..< index % 4).map { .string("t\($0)") }), .double(Double(index) / 3)])
    }

    @Test func aNullCodecFileMatchesTheSpecificationLayoutByteForByte() throws {
        var writer = try AvroContainerWriter(schema: .long, codec: .null, syncMarker: Self.sync)
        try writer.append(.long(27))
        let file = writer.finish()
        var expected: [UInt8] = [0x4F, 0x62, 0x6A, 0x01]          // "Obj" 1
        expected += [0x04]                                         // a metadata block of 2 entries
        expected += [0x16] + Array("avro.schema".utf8)             // key, 11 bytes
        expected += [0x0C] + Array("\"long\"".utf8)                // value, 6 bytes
        expected += [0x14] + Array("avro.codec".utf8)              // key, 10 bytes
        expected += [0x08] + Array("null".utf8)                    // value, 4 bytes
        expected += [0x00] + Self.sync                             // end of map, sync marker
        expected += [0x02, 0x02, 0x36] + Self.sync                 // 1 object, 1 byte, 27, sync
        #expect(file == expected)
        var reader = try AvroContainerReader(bytes: file)
        #expect(try reader.readAll() == [.long(27)])
    }

    @Test(arguments: AvroCodec.allCases)
    func recordsRoundTripThroughEveryCodecAcrossBlocks(codec: AvroCodec) throws {
        var writer = try AvroContainerWriter(
            schema: Self.schema, codec: codec, metadata: ["owner": Array("sluice".utf8)], blockSize: 256)
        let rows = (0 ..< 200).map(Self.row)
        for row in rows { try writer.append(row) }
        #expect(writer.recordCount == 200)
        let file = writer.finish()
        var reader = try AvroContainerReader(bytes: file)
        #expect(reader.codec == codec)
        #expect(reader.schema == Self.schema)
        #expect(reader.metadataString("owner") == "sluice")
        #expect(reader.metadataString("avro.codec") == codec.rawValue)
        let read = try reader.readAll()
        #expect(read == rows)
        #expect(read[4].field(named: "name", in: reader.schema) == .string("name 4"))
        #expect(read[4].field(withID: 1, in: reader.schema) == .long(4 * 1_000_003 - 7))
    }

    @Test func anEmptyFileHasAHeaderAndNoBlocks() throws {
        let file = try AvroContainerWriter(schema: Self.schema, codec: .deflate).finish()
        var reader = try AvroContainerReader(bytes: file)
        #expect(try reader.next() == nil)
    }

    @Test func rawDeflateFromZlibInflates() throws {
        // Python: zlib.compressobj(6, zlib.DEFLATED, -15) over b"hello hello hello hello".
        let stream: [UInt8] = [0xCB, 0x48, 0xCD, 0xC9, 0xC9, 0x57, 0xC8, 0x40, 0x27, 0x01]
        #expect(try AvroDeflate.decompress(stream[...], maximumOutputSize: 100) == Array("hello hello hello hello".utf8))
        #expect(throws: SluiceError.self) { try AvroDeflate.decompress(stream[...], maximumOutputSize: 10) }
        #expect(throws: SluiceError.self) { try AvroDeflate.decompress(stream.dropLast(3), maximumOutputSize: 100) }
        let big = [UInt8](repeating: 7, count: 100_000)
        #expect(try AvroDeflate.decompress(AvroDeflate.compress(big)[...], maximumOutputSize: 100_000) == big)
        #expect(throws: SluiceError.self) { try AvroDeflate.decompress(AvroDeflate.compress(big)[...], maximumOutputSize: 99_999) }
    }

    @Test func snappyBlocksEndWithTheCRC32OfTheirContent() throws {
        // The CRC-32 check value of "123456789" (ISO-HDLC).
        #expect(avroCRC32(Array("123456789".utf8)) == 0xCBF4_3926)
        let block = AvroCodec.snappy.compress(Array("123456789".utf8))
        #expect(Array(block.suffix(4)) == [0xCB, 0xF4, 0x39, 0x26])
        var corrupted = block
        corrupted[corrupted.count - 1] ^= 1
        #expect(throws: SluiceError.self) { try AvroCodec.snappy.decompress(corrupted[...], maximumSize: 100) }
    }

    @Test func aWrongSyncMarkerOrTrailingBlockBytesAreDetected() throws {
        var writer = try AvroContainerWriter(schema: .long, codec: .null, syncMarker: Self.sync)
        try writer.append(.long(27))
        let file = writer.finish()
        var badSync = file
        badSync[badSync.count - 1] = 0
        var reader = try AvroContainerReader(bytes: badSync)
        #expect(throws: SluiceError.self) { try reader.next() }
        // A block that declares 1 object but holds 2 bytes: [02 04 36 36].
        let trailing = Array(file.dropLast(19)) + [0x02, 0x04, 0x36, 0x36] + Self.sync
        var trailingReader = try AvroContainerReader(bytes: trailing)
        #expect(try trailingReader.next() == .long(27))
        #expect(throws: SluiceError.self) { try trailingReader.next() }
    }

    @Test func hugeDeclaredCountsAndSizesFailWithoutAllocating() throws {
        let header = Array(try AvroContainerWriter(schema: .long, codec: .null, syncMarker: Self.sync).finish())
        let huge: [UInt8] = [0xFE, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0x01]  // Int64.max
        // 2^63-1 objects in 1 byte; 1 object in 2^63-1 bytes; a negative count.
        for block in [huge + [0x02, 0x36], [0x02] + huge + [0x36], [0x01, 0x02, 0x36]] {
            var reader = try AvroContainerReader(bytes: header + block + Self.sync)
            #expect(throws: SluiceError.self) { try reader.next() }
        }
        // A metadata map declaring 2^62 entries.
        let hugeMap: [UInt8] = [0x4F, 0x62, 0x6A, 0x01, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01, 0x00]
        #expect(throws: SluiceError.self) { try AvroContainerReader(bytes: hugeMap) }
        #expect(throws: SluiceError.self) { try AvroContainerReader(bytes: Array("Obj".utf8)) }
    }

    @Test func reservedMetadataKeysAndShortSyncMarkersAreRefused() {
        #expect(throws: SluiceError.self) { try AvroContainerWriter(schema: .long, metadata: ["avro.x": []]) }
        #expect(throws: SluiceError.self) { try AvroContainerWriter(schema: .long, syncMarker: [1, 2, 3]) }
    }

    @Test(arguments: AvroCodec.allCases)
    func mutatedAndTruncatedFilesThrowOrDecodeButNeverTrap(codec: AvroCodec) throws {
        var writer = try AvroContainerWriter(schema: Self.schema, codec: codec, blockSize: 128)
        for index in 0 ..< 30 { try writer.append(Self.row(index)) }
        let file = writer.finish()
        var random = SplitMix64(seed: 0xA5A0 + UInt64(codec.rawValue.count))
        for _ in 0 ..< 1500 {
            var bytes = file
            for _ in 0 ... random.next(below: 3) {
                switch random.next(below: 6) {
                case 0: ByteMutations.truncate(&bytes, random: &random)
                case 1: ByteMutations.deleteRun(&bytes, upTo: 8, random: &random)
                case 2: ByteMutations.duplicateRun(&bytes, upTo: 16, random: &random)
                case 3: ByteMutations.insert([0xFF, 0xFF, 0xFF, 0xFF, 0x0F], into: &bytes, random: &random)
                default: ByteMutations.overwriteByte(&bytes, random: &random)
                }
            }
            do {
                var reader = try AvroContainerReader(bytes: bytes, maximumBlockSize: 1 << 20)
                var count = 0
                while try reader.next() != nil { count += 1 }
                #expect(count <= 1 << 16)
            } catch {
                #expect(!error.message.isEmpty)
            }
        }
    }
}
