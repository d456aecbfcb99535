import NIOCore
import Testing

@testable import SluiceKafkaProtocol

/// One message type with a sample value per version, type-erased so that the round-trip,
/// truncation and fuzz tests can run over every message alike.
struct MessageCase: CustomStringConvertible, Sendable {
    let name: String
    let api: KafkaAPI
    /// The sample's bytes at a version.
    let encode: @Sendable (Int16) -> ByteBuffer
    /// Reads the sample at a version, checks it equals the sample and that every byte was used;
    /// returns the re-encoded bytes.
    let decodeAndCompare: @Sendable (inout ByteBuffer, Int16) throws -> ByteBuffer
    /// Reads any bytes at a version and writes back what it read; only errors, never traps.
    let decodeAndRewrite: @Sendable (inout ByteBuffer, Int16) throws(KafkaDecodingError) -> ByteBuffer

    var description: String { name }

    /// `sample(version)` must hold only what `version` carries (other fields at their defaults),
    /// so that reading its bytes back gives an equal value.
    init<Message: KafkaMessage>(_ type: Message.Type, sample: @escaping @Sendable (Int16) -> Message) {
        name = "\(Message.self)"
        api = Message.api
        encode = { version in
            var buffer = ByteBuffer()
            sample(version).write(to: &buffer, version: version)
            return buffer
        }
        decodeAndCompare = { buffer, version in
            let decoded = try Message(from: &buffer, version: version)
            #expect(decoded == sample(version), "\(Message.self) v\(version)")
            #expect(buffer.readableBytes == 0, "\(Message.self) v\(version) left \(buffer.readableBytes) bytes")
            var rewritten = ByteBuffer()
            decoded.write(to: &rewritten, version: version)
            return rewritten
        }
        decodeAndRewrite = { (buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) -> ByteBuffer in
            let decoded = try Message(from: &buffer, version: version)
            var rewritten = ByteBuffer()
            decoded.write(to: &rewritten, version: version)
            return rewritten
        }
    }

    /// The lowest, a middle and the highest supported version.
    var representativeVersions: [Int16] {
        let range = api.supportedVersions
        return Array(Set([range.lowerBound, (range.lowerBound + range.upperBound) / 2, range.upperBound])).sorted()
    }
}

/// Sample values used across the message samples.
enum Sample {
    static let topicID = KafkaUUID(mostSignificantBits: 0x0123_4567_89AB_CDEF, leastSignificantBits: 0xFEDC_BA98_7654_3210)

    static func bytes(_ values: [UInt8]) -> ByteBuffer {
        ByteBuffer(bytes: values)
    }

    /// Bytes that look like a record batch header; the messages treat records as opaque.
    static let records = bytes([0, 0, 0, 0, 0, 0, 0, 7, 0, 0, 0, 0x31, 0xFF, 0xFF, 0xFF, 0xFF, 2, 0xDE, 0xAD, 0xBE, 0xEF])
}
