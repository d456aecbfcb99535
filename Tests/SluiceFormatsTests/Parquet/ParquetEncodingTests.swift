import Testing
import SluiceCore
@testable import SluiceFormats

/// The Thrift compact protocol and the RLE hybrid against bytes worked out by hand from
/// thrift-compact-protocol.md and parquet-format Encodings.md.
@Suite("Parquet encodings: golden bytes")
struct ParquetEncodingTests {
    @Test func compactProtocolFieldsMatchHandEncodedBytes() {
        var writer = ThriftCompactWriter()
        writer.beginStruct()
        writer.write(i32: 2, field: 1)           // delta 1, type 5: 0x15; zigzag(2) = 4
        writer.write(i64: 3000, field: 3)        // delta 2, type 6: 0x26; zigzag(3000) = 6000 = 0xF0 0x2E
        writer.write(string: "ab", field: 4)     // 0x18, length 2, 'a' 'b'
        writer.write(i32: -1, field: 20)         // delta 16 > 15: 0x05, zigzag(20) = 40 = 0x28, zigzag(-1) = 1
        writer.write(bool: true, field: 21)      // delta 1, type 1 (true): 0x11
        writer.beginListField(22, elementType: .i32, count: 3)  // 0x19, size 3 of type 5: 0x35
        for value: Int32 in [1, 2, 3] { writer.writeElement(i32: value) }  // 2, 4, 6
        writer.beginStructField(23)              // 0x1C
        writer.write(bool: false, field: 1)      // 0x12
        writer.endStruct()                       // 0x00
        writer.endStruct()                       // 0x00
        #expect(writer.bytes == [
            0x15, 0x04, 0x26, 0xF0, 0x2E, 0x18, 0x02, 0x61, 0x62, 0x05, 0x28, 0x01, 0x11,
            0x19, 0x35, 0x02, 0x04, 0x06, 0x1C, 0x12, 0x00, 0x00,
        ])
    }

    @Test func longListHeaderCarriesItsSizeAsVarint() {
        var writer = ThriftCompactWriter()
        writer.beginStruct()
        writer.beginListField(1, elementType: .binary, count: 20)  // 0x19, 0xF8, varint 20
        #expect(writer.bytes == [0x19, 0xF8, 0x14])
    }

    @Test func readerSkipsUnknownFieldsOfEveryType() throws {
        // KeyValue { 1: "k", 9: {1: i32 7, 2: [binary "x"]}, 10: double, 11: map{i32→i32: 1→2}, 2: "v" };
        // field 2 after 11 takes the long header: type 8, then zigzag(2) = 4.
        let bytes: [UInt8] = [
            0x18, 0x01, 0x6B,
            0x8C, 0x15, 0x0E, 0x19, 0x18, 0x01, 0x78, 0x00,
            0x17, 0, 0, 0, 0, 0, 0, 0xF0, 0x3F,
            0x1B, 0x01, 0x55, 0x02, 0x04,
            0x08, 0x04, 0x01, 0x76,
            0x00,
        ]
        var reader = ThriftCompactReader(bytes)
        let pair = try ParquetKeyValue(reading: &reader, .structure)
        #expect(pair == ParquetKeyValue(key: "k", value: "v"))
        #expect(reader.position == bytes.count)
    }

    @Test func readerRefusesNestingBeyondItsLimit() {
        // Field 1 of type struct, nested 100 times.
        let bytes = [UInt8](repeating: 0x1C, count: 100) + [UInt8](repeating: 0, count: 101)
        var reader = ThriftCompactReader(bytes)
        #expect(throws: SluiceError.self) { try reader.skip(.structure) }
    }

    @Test func metadataRoundTripsThroughTheCompactProtocol() throws {
        var metadata = ParquetFileMetaData()
        metadata.schema = [
            ParquetSchemaElement(name: "schema", childCount: 1),
            ParquetSchemaElement(type: 2, repetition: 1, name: "ts", fieldID: 5),
        ]
        metadata.schema[1].logicalType = .timestamp(isAdjustedToUTC: true, unit: .nanos)
        metadata.rowCount = 10
        metadata.createdBy = "me"
        metadata.hasTypeDefinedColumnOrders = true
        metadata.keyValueMetadata = [ParquetKeyValue(key: "a", value: nil)]
        var chunk = ParquetColumnMetaData()
        chunk.encodings = [0, 8]
        chunk.pathInSchema = ["ts"]
        chunk.statistics = ParquetStatistics(nullCount: 1, maxValue: [1, 2], minValue: [])
        metadata.rowGroups = [ParquetRowGroup(columns: [ParquetColumnChunk(fileOffset: 4, metaData: chunk)], totalByteSize: 9, rowCount: 10)]
        #expect(try ParquetFileMetaData(decoding: metadata.encoded()) == metadata)
    }

    @Test func rleHybridMatchesTheSpecExamples() throws {
        // Encodings.md: 0…7 at bit width 3 bit-pack to 0x88 0xC6 0xFA, after header (1 << 1 | 1).
        var output: [UInt8] = []
        let values: [UInt32] = [0, 1, 2, 3, 4, 5, 6, 7]
        values.withUnsafeBufferPointer { RLEHybridEncoder.encode($0, bitWidth: 3, into: &output) }
        #expect(output == [0x03, 0x88, 0xC6, 0xFA])
        // A run of 100 fives at width 3: header varint(100 << 1) = 0xC8 0x01, value byte 0x05.
        output = []
        let run = [UInt32](repeating: 5, count: 100)
        run.withUnsafeBufferPointer { RLEHybridEncoder.encode($0, bitWidth: 3, into: &output) }
        #expect(output == [0xC8, 0x01, 0x05])
    }

    @Test func rleHybridRoundTripsMixedRunsAndLiterals() throws {
        var random = SplitMix64(seed: 7)
        for _ in 0 ..< 50 {
            let bitWidth = 1 + random.next(below: 20)
            var values: [UInt32] = []
            while values.count < 3000 {
                let value = UInt32(random.next(below: 1 << bitWidth))
                values += Array(repeating: value, count: random.next(below: 2) == 0 ? 1 : random.next(below: 40))
            }
            var encoded: [UInt8] = []
            values.withUnsafeBufferPointer { RLEHybridEncoder.encode($0, bitWidth: bitWidth, into: &encoded) }
            var decoded = [UInt32](repeating: 0, count: values.count)
            try encoded.withUnsafeBytes { bytes in
                var decoder = RLEHybridDecoder(bytes, bitWidth: bitWidth)
                try decoded.withUnsafeMutableBufferPointer { try decoder.decode(into: $0) }
            }
            #expect(decoded == values)
        }
    }
}

@Suite("Parquet reader: hostile input")
struct ParquetFuzzTests {
    @Test func mutatedAndTruncatedFilesThrowOrReadButNeverTrap() throws {
        var files: [[UInt8]] = []
        for compression in [ParquetCompression.uncompressed, .snappy, .zstd] {
            let options = ParquetWriterOptions(compression: compression, pageBytes: 1024)
            files.append(try ParquetTestSupport.write([ParquetTestSupport.chunk(0 ..< 300)], options: options).0)
        }
        var random = SplitMix64(seed: 42)
        var outcomes = (read: 0, threw: 0)
        for round in 0 ..< 600 {
            var bytes = files[round % files.count]
            if round % 5 == 0 {
                bytes = Array(bytes.prefix(random.next(below: bytes.count)))
            } else {
                for _ in 0 ..< 1 + random.next(below: 4) {
                    // Mostly in the footer, where one byte changes the most.
                    let position = random.next(below: 3) == 0 ? random.next(below: bytes.count) : bytes.count - 1 - random.next(below: min(bytes.count, 2500))
                    bytes[position] = UInt8(truncatingIfNeeded: random.next())
                }
            }
            do {
                let reader = try ParquetReader(input: ParquetBytesInput(bytes))
                for index in reader.rowGroups.indices { _ = try reader.readRowGroup(index) }
                outcomes.read += 1
            } catch {
                outcomes.threw += 1
            }
            // The flat columns streamed a page at a time meet the same bytes the same way.
            if let reader = try? ParquetReader(input: ParquetBytesInput(bytes)) {
                for index in reader.rowGroups.indices {
                    _ = try? reader.readRowGroup(index, columns: Array(0 ..< 16), chunkRows: 64) { _ in true }
                }
            }
        }
        #expect(outcomes.threw > 0)
        #expect(outcomes.read + outcomes.threw == 600)
    }
}
