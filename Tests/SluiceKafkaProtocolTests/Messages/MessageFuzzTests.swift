import NIOCore
import SluiceCore
import Testing

@testable import SluiceKafkaProtocol

/// Mutates valid messages at random (seeded, so a failure reproduces) and feeds them to the
/// decoders: each must either throw `KafkaDecodingError` or return a message, never trap. A message
/// that decodes must also survive write → read → write unchanged, so read and write agree.
@Suite struct MessageFuzzTests {
    static let iterations = 40_000

    @Test func mutatedMessagesNeverTrapTheDecoders() throws {
        var random = SplitMix64(seed: 0x5EED_CAFE)
        let cases = MessageSamples.all
        var decodedCount = 0
        for iteration in 0 ..< Self.iterations {
            let message = cases[random.next(below: cases.count)]
            let versions = message.api.supportedVersions
            let version = versions.lowerBound + Int16(random.next(below: versions.count))
            var bytes = Array(message.encode(version).readableBytesView)
            for _ in 0 ... random.next(below: 3) {
                Self.mutate(&bytes, using: &random)
            }
            // Usually read at the version the bytes were written for; sometimes at another one.
            let readVersion = random.next(below: 8) == 0 ? versions.lowerBound + Int16(random.next(below: versions.count)) : version
            var buffer = ByteBuffer(bytes: bytes)
            guard let rewritten = try? message.decodeAndRewrite(&buffer, readVersion) else { continue }
            decodedCount += 1
            var again = rewritten
            let rewrittenAgain = try message.decodeAndRewrite(&again, readVersion)
            #expect(rewrittenAgain == rewritten, "\(message) v\(readVersion), iteration \(iteration)")
            #expect(again.readableBytes == 0, "\(message) v\(readVersion), iteration \(iteration)")
        }
        // The mutations must leave enough messages readable for the second property to mean something.
        #expect(decodedCount > Self.iterations / 20)
    }

    /// One random change: a bit flip, a byte, a lying length, a cut, an insertion or a deletion.
    static func mutate(_ bytes: inout [UInt8], using random: inout SplitMix64) {
        let position = random.next(below: bytes.count + 1)
        switch random.next(below: 7) {
        case 0 where !bytes.isEmpty:
            bytes[min(position, bytes.count - 1)] ^= UInt8(1) << UInt8(random.next(below: 8))
        case 1 where !bytes.isEmpty:
            bytes[min(position, bytes.count - 1)] = UInt8(truncatingIfNeeded: random.next())
        case 2:
            // A length that lies: huge, negative, or just past the end.
            let lies: [[UInt8]] = [[0x7F, 0xFF, 0xFF, 0xFF], [0xFF, 0xFF, 0xFF, 0xFE], [0x80, 0, 0, 0], [0xFF, 0xFE], [0x7F, 0xFF], [0xFF, 0xFF, 0xFF, 0xFF, 0x0F]]
            let lie = lies[random.next(below: lies.count)]
            for (offset, byte) in lie.enumerated() where position + offset < bytes.count {
                bytes[position + offset] = byte
            }
        case 3:
            bytes.removeLast(bytes.count - position)
        case 4:
            let count = 1 + random.next(below: 4)
            bytes.insert(contentsOf: (0 ..< count).map { _ in UInt8(truncatingIfNeeded: random.next()) }, at: position)
        case 5 where position < bytes.count:
            bytes.removeSubrange(position ..< min(bytes.count, position + 1 + random.next(below: 4)))
        default:
            // Small counts are the likeliest to be read on: nudge a byte by one.
            if !bytes.isEmpty {
                let index = min(position, bytes.count - 1)
                bytes[index] = random.next(below: 2) == 0 ? bytes[index] &+ 1 : bytes[index] &- 1
            }
        }
    }
}
