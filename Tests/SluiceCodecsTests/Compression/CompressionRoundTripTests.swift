import SluiceCore
import Testing

@testable import SluiceCodecs

/// Every codec gives back what it was given, over sizes around the codecs' block boundaries,
/// and honours the output cap exactly.
@Suite struct CompressionRoundTripTests {
    /// Named inputs: empty, one byte, text, snappy-java's 32 KiB block boundary and past it,
    /// 1 MiB of random bytes (incompressible) and 1 MiB of a repeated phrase.
    static let inputs: [(name: String, bytes: [UInt8])] = [
        ("empty", []),
        ("one byte", [0x2A]),
        ("text", Array(#"{"n":1,"codec":"any","pad":"xxxxxxxxxxxx"}"#.utf8)),
        ("one snappy block", randomBytes(count: Snappy.xerialBlockSize, seed: 1)),
        ("one byte past a snappy block", randomBytes(count: Snappy.xerialBlockSize + 1, seed: 2)),
        ("1 MiB incompressible", randomBytes(count: 1 << 20, seed: 3)),
        ("1 MiB repetitive", Array(repeating: Array("sluice streams rows; ".utf8), count: (1 << 20) / 21).flatMap { $0 }),
    ]

    @Test(arguments: CompressionCodec.allCases)
    func roundTripsEverySize(codec: CompressionCodec) throws {
        for input in Self.inputs {
            let compressed = codec.compress(input.bytes)
            let output = try codec.decompress(compressed, maximumOutputSize: input.bytes.count)
            #expect(output == input.bytes, "\(codec), \(input.name)")
        }
    }

    @Test(arguments: CompressionCodec.allCases)
    func repetitiveInputShrinks(codec: CompressionCodec) {
        let input = Self.inputs.last!.bytes
        #expect(codec.compress(input).count < input.count / 10)
    }

    @Test(arguments: CompressionCodec.allCases)
    func capIsExact(codec: CompressionCodec) throws {
        let input = randomBytes(count: 5000, seed: 9).map { $0 & 0x0F }
        let compressed = codec.compress(input)
        #expect(try codec.decompress(compressed, maximumOutputSize: input.count) == input)
        #expect(throws: CompressionError.outputLimitExceeded(codec, limit: input.count - 1)) {
            try codec.decompress(compressed, maximumOutputSize: input.count - 1)
        }
        #expect(throws: CompressionError.outputLimitExceeded(codec, limit: 0)) {
            try codec.decompress(compressed, maximumOutputSize: 0)
        }
    }

    @Test(arguments: CompressionCodec.allCases)
    func emptyStreamFitsAZeroCap(codec: CompressionCodec) throws {
        #expect(try codec.decompress(codec.compress([]), maximumOutputSize: 0) == [])
    }

    @Test func snappyRawBlocksRoundTrip() throws {
        for input in Self.inputs {
            let block = input.bytes.withUnsafeBytes { Snappy.compressBlock($0) }
            let output = try block.withUnsafeBytes { try Snappy.decompressBlock($0, maximumOutputSize: input.bytes.count) }
            #expect(output == input.bytes, "\(input.name)")
        }
    }
}

/// `count` bytes from a seeded generator: incompressible, and the same every run.
func randomBytes(count: Int, seed: UInt64) -> [UInt8] {
    var random = SplitMix64(seed: seed)
    var bytes: [UInt8] = []
    bytes.reserveCapacity(count + 8)
    while bytes.count < count {
        withUnsafeBytes(of: random.next()) { bytes.append(contentsOf: $0) }
    }
    return Array(bytes.prefix(count))
}
