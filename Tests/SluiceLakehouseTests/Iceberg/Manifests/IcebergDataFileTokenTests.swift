import SluiceCore
import SluiceFormats
@testable import SluiceLakehouse
import Testing

/// A sink's token of prepared files: parts round-trip in order, a token of one list (written
/// before parts) reads as one part, and damaged tokens are errors.
@Suite struct IcebergDataFileTokenTests {
    static let partitionType = IcebergManifestRoundTripTests.partitionType
    static let data = IcebergDataFile(filePath: "file:///w/t/data/a.parquet", partition: [.string("eu"), .int(19844)], recordCount: 10, fileSizeInBytes: 4096)
    static let deletes = IcebergDataFile(
        content: .equalityDeletes, filePath: "file:///w/t/data/d.parquet", partition: [.null, .int(19840)], recordCount: 3, fileSizeInBytes: 90,
        equalityIDs: [1])

    @Test func partsRoundTripInOrder() throws {
        let parts = [[Self.deletes, Self.data], [], [Self.data]]
        let token = try IcebergDataFile.encodeParts(parts, partitionType: Self.partitionType)
        #expect(try IcebergDataFile.decodeParts(token, partitionType: Self.partitionType) == parts)
    }

    @Test func aTokenOfOneListReadsAsOnePart() throws {
        // The form of tokens before parts: one Avro array of data_file records, of every length
        // (the item count's first byte must never look like the parts marker).
        for count in [0, 1, 41, 42, 43, 64, 300] {
            var encoder = AvroBinaryEncoder()
            let files = Array(repeating: Self.data, count: count)
            try encoder.encode(
                .array(files.map { $0.avroValue() }),
                as: AvroSchema(.array(items: IcebergManifestSchemas.dataFile(partitionType: Self.partitionType))))
            #expect(try IcebergDataFile.decodeParts(encoder.bytes, partitionType: Self.partitionType) == [files], "\(count) files")
        }
    }

    @Test func damagedTokensAreErrors() throws {
        let token = try IcebergDataFile.encodeParts([[Self.deletes, Self.data], [Self.data]], partitionType: Self.partitionType)
        var random: UInt64 = 7
        for length in 0 ..< token.count {
            #expect(throws: SluiceError.self) { try IcebergDataFile.decodeParts(Array(token[..<length]), partitionType: Self.partitionType) }
        }
        for _ in 0 ..< 2_000 {
            var damaged = token
            random = random &* 6364136223846793005 &+ 1442695040888963407
            damaged[Int(random >> 33) % damaged.count] ^= UInt8(truncatingIfNeeded: random >> 13) | 1
            // A flipped byte may still decode to other files; it must never crash.
            _ = try? IcebergDataFile.decodeParts(damaged, partitionType: Self.partitionType)
        }
    }
}
