import SluiceCore
import Testing

@testable import SluiceCodecs

/// Bad input ends in a `CompressionError`, never a trap, and never costs more memory than the cap.
@Suite struct CompressionCorruptInputTests {
    static let sample = Array(repeating: Array("key=value; other=thing; ".utf8), count: 400).flatMap { $0 }
        + randomBytes(count: 3000, seed: 11)

    @Test(arguments: CompressionCodec.allCases)
    func emptyInputIsTruncated(codec: CompressionCodec) {
        #expect(throws: CompressionError.truncatedInput(codec)) { try codec.decompress([], maximumOutputSize: 100) }
    }

    @Test(arguments: CompressionCodec.allCases)
    func everyProperPrefixFails(codec: CompressionCodec) {
        let compressed = codec.compress(Self.sample)
        for length in 0..<compressed.count {
            // The xerial header alone is a whole stream, the empty one.
            if codec == .snappy && length == Snappy.xerialHeaderSize { continue }
            let prefix = Array(compressed.prefix(length))
            #expect(throws: CompressionError.self, "\(codec), \(length) of \(compressed.count) bytes") {
                try codec.decompress(prefix, maximumOutputSize: 1 << 20)
            }
        }
    }

    @Test(arguments: CompressionCodec.allCases)
    func garbageFails(codec: CompressionCodec) {
        for seed in UInt64(1)...20 {
            let garbage = randomBytes(count: 1 + Int(seed) * 37, seed: seed)
            #expect(throws: CompressionError.self) { try codec.decompress(garbage, maximumOutputSize: 1 << 20) }
        }
    }

    /// 16 MiB of zeros packs into a few KiB; unpacking it under a 1 MiB cap stops at the cap.
    @Test(arguments: CompressionCodec.allCases)
    func zipBombStopsAtTheCap(codec: CompressionCodec) {
        let bomb = codec.compress([UInt8](repeating: 0, count: 16 << 20))
        #expect(bomb.count < 1 << 20)
        #expect(throws: CompressionError.outputLimitExceeded(codec, limit: 1 << 20)) {
            try codec.decompress(bomb, maximumOutputSize: 1 << 20)
        }
    }

    @Test func snappyBlockLengthsAreCheckedBeforeAllocating() throws {
        // A raw block whose length varint says 2^32 - 1 bytes, followed by one literal byte: more
        // than any 7-byte block can hold (22 output bytes per input byte at most).
        let block: [UInt8] = [0xFF, 0xFF, 0xFF, 0xFF, 0x0F, 0x00, 0x41]
        #expect(throws: CompressionError.corruptInput(.snappy, reason: "a block of 7 bytes declares 4294967295 bytes")) {
            try CompressionCodec.snappy.decompress(block, maximumOutputSize: 1 << 30)
        }
        // The same lie inside the xerial framing.
        let framed = CompressionCodec.snappy.compress([]) + [0, 0, 0, 7] + block
        #expect(throws: CompressionError.self) {
            try CompressionCodec.snappy.decompress(framed, maximumOutputSize: 1 << 30)
        }
        // A plausible length (2 MiB in a 100 KB block) over the cap is refused by the cap.
        let plausible: [UInt8] = [0x80, 0x80, 0x80, 0x01] + [UInt8](repeating: 0x41, count: 100_000)
        #expect(throws: CompressionError.outputLimitExceeded(.snappy, limit: 1 << 20)) {
            try CompressionCodec.snappy.decompress(plausible, maximumOutputSize: 1 << 20)
        }
        // The densest real block, zeros, is within the bound.
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        let dense = zeros.withUnsafeBytes { Snappy.compressBlock($0) }
        #expect(dense.count * 22 > zeros.count)
        #expect(try CompressionCodec.snappy.decompress(dense, maximumOutputSize: zeros.count) == zeros)
    }

    @Test func xerialBlockLengthsAreChecked() {
        let header = CompressionCodec.snappy.compress([])
        let block = Array("abc".utf8).withUnsafeBytes { Snappy.compressBlock($0) }
        // Negative, zero, and longer than what follows.
        for length: [UInt8] in [[0xFF, 0xFF, 0xFF, 0xFF], [0, 0, 0, 0], [0, 0, 1, 0]] {
            #expect(throws: CompressionError.self) {
                try CompressionCodec.snappy.decompress(header + length + block, maximumOutputSize: 100)
            }
        }
        // A length cut short after the last block.
        #expect(throws: CompressionError.truncatedInput(.snappy)) {
            try CompressionCodec.snappy.decompress(header + [0, 0, 0, UInt8(block.count)] + block + [0, 0], maximumOutputSize: 100)
        }
        // Only part of the header.
        #expect(throws: CompressionError.truncatedInput(.snappy)) {
            try CompressionCodec.snappy.decompress(Array(header.prefix(12)), maximumOutputSize: 100)
        }
    }

    /// Random mutations of valid streams: each decodes within the cap or fails with an error.
    @Test(arguments: CompressionCodec.allCases)
    func mutatedStreamsNeverTrap(codec: CompressionCodec) {
        var random = SplitMix64(seed: 0xC0DEC + UInt64(codec.rawValue.utf8.count))
        let inputs = [Self.sample, Array(Self.sample.prefix(200)), randomBytes(count: 70_000, seed: 12)]
        let valid = inputs.map { codec.compress($0) }
        var failures = 0
        for _ in 0..<600 {
            var stream = valid[random.next(below: valid.count)]
            for _ in 0...random.next(below: 3) {
                mutate(&stream, using: &random)
            }
            let cap = random.next(below: 2) == 0 ? 1 << 20 : random.next(below: 10_000)
            do {
                let output = try codec.decompress(stream, maximumOutputSize: cap)
                #expect(output.count <= cap)
            } catch {
                failures += 1
            }
        }
        // Most mutations break the stream: the decoders check, not trust.
        #expect(failures > 100)
    }

    private func mutate(_ stream: inout [UInt8], using random: inout SplitMix64) {
        guard !stream.isEmpty else { return }
        let index = random.next(below: stream.count)
        switch random.next(below: 5) {
        case 0: stream[index] ^= 1 << UInt8(random.next(below: 8))
        case 1: stream[index] = UInt8(truncatingIfNeeded: random.next())
        case 2: stream.removeSubrange(index...)
        case 3: stream.insert(UInt8(truncatingIfNeeded: random.next()), at: index)
        default: stream.removeSubrange(index..<min(stream.count, index + 1 + random.next(below: 16)))
        }
    }
}
