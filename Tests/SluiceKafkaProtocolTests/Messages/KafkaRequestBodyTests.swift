import NIOCore
import Testing

@testable import SluiceKafkaProtocol

@Suite struct KafkaRequestBodyTests {
    /// Every request sample, framed as a client sends it and read back as the broker does:
    /// size, header (whose version follows from the API and version), body.
    @Test(arguments: MessageSamples.all.filter { $0.name.hasSuffix("Request") })
    func framedRequestsDecodeThroughTheirHeader(_ message: MessageCase) throws {
        for version in message.representativeVersions {
            let header = KafkaRequestHeader(api: message.api, apiVersion: version, correlationID: 42, clientID: "sluice")
            var content = ByteBuffer()
            header.write(to: &content)
            content.writeImmutableBuffer(message.encode(version))
            var frame = ByteBuffer()
            frame.writeKafkaFrame { $0.writeImmutableBuffer(content) }

            #expect(frame.readInteger(as: Int32.self) == Int32(frame.readableBytes))
            let readHeader = try KafkaRequestHeader(from: &frame)
            #expect(readHeader == header)
            let body = try KafkaRequestBody(from: &frame, header: readHeader)
            #expect(body.api == message.api)
            #expect(frame.readableBytes == 0, "\(message) v\(version)")
        }
    }

    @Test func unknownAPIsAndVersionsAreRefused() {
        var empty = ByteBuffer()
        let unknown = KafkaRequestHeader(apiKey: 57, apiVersion: 0, correlationID: 1, clientID: nil)
        #expect(throws: KafkaDecodingError.unsupportedVersion(apiKey: 57, version: 0)) {
            _ = try KafkaRequestBody(from: &empty, header: unknown)
        }
        let tooNew = KafkaRequestHeader(api: .produce, apiVersion: 10, correlationID: 1, clientID: nil)
        #expect(throws: KafkaDecodingError.unsupportedVersion(apiKey: 0, version: 10)) {
            _ = try KafkaRequestBody(from: &empty, header: tooNew)
        }
    }

    @Test func responseFramesCarryTheHeaderVersionOfTheirAPI() throws {
        // Heartbeat v4 is flexible: response header v1 (correlation id, empty tag section).
        var buffer = ByteBuffer()
        HeartbeatResponse(throttleTimeMs: 0, errorCode: 27).writeFrame(to: &buffer, version: 4, correlationID: 9)
        #expect(Array(buffer.readableBytesView) == [
            0x00, 0x00, 0x00, 0x0C,  // size: 12
            0x00, 0x00, 0x00, 0x09,  // correlation id
            0x00,  // response header tagged fields
            0x00, 0x00, 0x00, 0x00,  // throttle time
            0x00, 0x1B,  // error code 27 (REBALANCE_IN_PROGRESS)
            0x00,  // body tagged fields
        ])
        // ApiVersions v3 is flexible too, but its response header stays v0.
        var apiVersions = ByteBuffer()
        ApiVersionsResponse(apiKeys: []).writeFrame(to: &apiVersions, version: 3, correlationID: 9)
        #expect(Array(apiVersions.readableBytesView) == [
            0x00, 0x00, 0x00, 0x0C,  // size: 12
            0x00, 0x00, 0x00, 0x09,  // correlation id, no tag section
            0x00, 0x00,  // error code
            0x01,  // api keys: compact count 0
            0x00, 0x00, 0x00, 0x00,  // throttle time
            0x00,  // body tagged fields
        ])
    }
}
