import Testing
import SluiceCodecs
import SluiceCore
@testable import SluiceFormats

/// The writer's hot paths against plain reference computations: dictionary lookups against
/// Swift dictionaries, bit packing against packing bit by bit, pages against the reader.
@Suite("Parquet writer: dictionaries, bit packing, levels, page compression")
struct ParquetWriterEncodingTests {
    /// Strings of every length to 40 (each word-load path of the hash and the comparison), and
    /// for each, the variants that differ from it in one bit of one byte.
    static let nearlyEqualStrings: [[UInt8]] = {
        var strings: [[UInt8]] = []
        for length in 0 ... 40 {
            let base = (0 ..< length).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            strings.append(base)
            for position in 0 ..< length {
                var variant = base
                variant[position] ^= 0x10
                strings.append(variant)
            }
        }
        return strings
    }()

    @Test func byteArrayDictionaryNumbersStringsInFirstSeenOrder() {
        var random = SplitMix64(seed: 3)
        let distinct = Self.nearlyEqualStrings
        let sequence = distinct + distinct.reversed() + (0 ..< 3000).map { _ in distinct[random.next(below: distinct.count)] }
        var values = VarBytes()
        for string in sequence { values.append(string) }
        var expected: [UInt32] = []
        var expectedAdded: [Int] = []
        var seen: [[UInt8]: UInt32] = [:]
        for (row, string) in sequence.enumerated() {
            if let index = seen[string] {
                expected.append(index)
            } else {
                seen[string] = UInt32(seen.count)
                expected.append(UInt32(seen.count - 1))
                expectedAdded.append(row)
            }
        }
        var dictionary = ByteArrayDictionary()
        var indices: [UInt32] = []
        var added: [Int] = []
        values.offsets.withUnsafeBufferPointer { offsets in
            values.data.withUnsafeBytes { bytes in
                // Two calls, the second starting mid-way, as pages slice a batch.
                let split = 700
                dictionary.encode(offsets: offsets, bytes: bytes.baseAddress!, rows: 0 ..< split, into: &indices, added: &added)
                dictionary.encode(offsets: offsets, bytes: bytes.baseAddress!, rows: split ..< sequence.count, into: &indices, added: &added)
            }
        }
        #expect(indices == expected)
        #expect(added == expectedAdded)
        #expect(dictionary.count == distinct.count)
        #expect((0 ..< dictionary.count).allSatisfy { entry in dictionary.withEntry(entry) { Array($0) } == distinct[entry] })
    }

    @Test func byteArrayComparisonAndHashSeeEveryByte() {
        let strings = Self.nearlyEqualStrings
        for left in strings.indices {
            for right in strings.indices where strings[left].count == strings[right].count {
                let same = strings[left] == strings[right]
                strings[left].withUnsafeBytes { a in
                    strings[right].withUnsafeBytes { b in
                        let dummy = UnsafeRawPointer(bitPattern: 0x10)!
                        let equal = ByteArrayDictionary.equal(a.baseAddress ?? dummy, b.baseAddress ?? dummy, a.count)
                        #expect(equal == same)
                        if same {
                            #expect(ByteArrayDictionary.hash(a.baseAddress ?? dummy, a.count) == ByteArrayDictionary.hash(b.baseAddress ?? dummy, b.count))
                        }
                    }
                }
            }
        }
    }

    @Test func fixedWidthDictionaryNumbersValuesInFirstSeenOrder() {
        var random = SplitMix64(seed: 5)
        let values = (0 ..< 6000).map { _ in Int64(random.next(below: 2500)) - 1000 }
        var expected: [UInt32] = []
        var seen: [Int64: UInt32] = [:]
        for value in values {
            if let index = seen[value] { expected.append(index) } else {
                seen[value] = UInt32(seen.count)
                expected.append(UInt32(seen.count - 1))
            }
        }
        var dictionary = FixedWidthDictionary<Int64>()
        var indices: [UInt32] = []
        var added: [Int] = []
        values.withUnsafeBufferPointer { dictionary.encode($0, into: &indices, added: &added) }
        #expect(indices == expected)
        #expect(added.map { values[$0] } == dictionary.entries)
        #expect(dictionary.count == seen.count)

        // -0.0 and 0.0 are distinct entries (their bits differ), as are two NaN payloads.
        var doubles = FixedWidthDictionary<Double>()
        let special: [Double] = [0.0, -0.0, .nan, Double(nan: 5, signaling: false), 0.0, -0.0]
        var doubleIndices: [UInt32] = []
        special.withUnsafeBufferPointer { doubles.encode($0, into: &doubleIndices, added: &added) }
        #expect(doubleIndices == [0, 1, 2, 3, 0, 1])
    }

    @Test func bitPackingMatchesPackingBitByBit() {
        var random = SplitMix64(seed: 11)
        for bitWidth in 1 ... 32 {
            for _ in 0 ..< 8 {
                let count = random.next(below: 70)
                let values = (0 ..< count).map { _ in UInt32(truncatingIfNeeded: random.next()) & UInt32(truncatingIfNeeded: (UInt64(1) << bitWidth) - 1) }
                let padded = (count + 7) / 8 * 8
                var expected = [UInt8](repeating: 0, count: (padded * bitWidth + 7) / 8)
                for (index, value) in values.enumerated() {
                    for bit in 0 ..< bitWidth where value >> bit & 1 == 1 {
                        let position = index * bitWidth + bit
                        expected[position / 8] |= 1 << (position % 8)
                    }
                }
                var output: [UInt8] = [0xAB]
                values.withUnsafeBufferPointer { BitPacking.pack($0, bitWidth: bitWidth, paddedTo: padded, into: &output) }
                #expect(output == [0xAB] + expected, "bit width \(bitWidth), \(count) values")
            }
        }
    }

    @Test(arguments: [Int32(1), 3, 19, -5, 0])
    func zstdCompressorWritesFramesTheCodecReads(level: Int32) throws {
        let compressor = ZstdCompressor(level: level)
        var random = SplitMix64(seed: UInt64(level + 100))
        for size in [0, 1, 100, 70_000] {
            let input = (0 ..< size).map { _ in UInt8(random.next(below: 16)) }
            var output: [UInt8] = [1, 2, 3]
            let written = input.withUnsafeBytes { compressor.compress($0, appendingTo: &output) }
            #expect(output.count == 3 + written)
            #expect(Array(output.prefix(3)) == [1, 2, 3])
            #expect(try CompressionCodec.zstd.decompress(Array(output.dropFirst(3)), maximumOutputSize: size) == input)
        }
    }

    @Test func zstdLevelChangesTheBytesButNotTheValues() throws {
        let chunk = ParquetTestSupport.chunk(0 ..< 2000)
        let fast = try ParquetTestSupport.write([chunk], options: ParquetWriterOptions(compression: .zstd, zstdLevel: 1)).0
        let small = try ParquetTestSupport.write([chunk], options: ParquetWriterOptions(compression: .zstd, zstdLevel: 19)).0
        #expect(fast != small)
        #expect(try ParquetTestSupport.readAll(fast) == ParquetTestSupport.readAll(small))
        #expect(try ParquetTestSupport.readAll(fast) == (0 ..< 2000).map(ParquetTestSupport.row))
    }

    /// Batches without nulls count their levels instead of storing them; a page that mixes them
    /// with batches holding nulls must still list every entry's level in order.
    @Test func pagesMixingBatchesWithAndWithoutNullsKeepEveryLevel() throws {
        let schema = [
            ParquetColumnSchema(name: "n", type: .int32, fieldID: 1),
            ParquetColumnSchema(name: "s", type: .varchar, fieldID: 2),
            ParquetColumnSchema(name: "b", type: .boolean, fieldID: 3),
        ]
        func row(_ index: Int) -> [Value] {
            let hasNulls = (index / 100) % 2 == 1
            let isNull = hasNulls && index % 3 == 0
            return [isNull ? .null : .int32(Int32(index % 17)), isNull ? .null : .string("v\(index % 5)"), isNull ? .null : .bool(index % 2 == 0)]
        }
        let chunks = stride(from: 0, to: 700, by: 100).map { ParquetTestSupport.chunk($0 ..< $0 + 100, schema: schema, row: row) }
        for dictionaryEnabled in [true, false] {
            let options = ParquetWriterOptions(compression: .uncompressed, dictionaryEnabled: dictionaryEnabled)
            let (bytes, summary) = try ParquetTestSupport.write(chunks, schema: schema, options: options)
            #expect(try ParquetTestSupport.readAll(bytes) == (0 ..< 700).map(row))
            #expect(summary.columns.map(\.nullCount) == [100, 100, 100])
        }
    }
}
