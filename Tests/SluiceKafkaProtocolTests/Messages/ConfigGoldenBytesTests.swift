import NIOCore
import Testing

@testable import SluiceKafkaProtocol

/// AlterConfigs and IncrementalAlterConfigs written out by hand from their definitions in
/// apache/kafka (AlterConfigsRequest.json … IncrementalAlterConfigsResponse.json) and the protocol
/// guide's primitive types, to check the codecs against the spec rather than against themselves.
@Suite struct ConfigGoldenBytesTests {
    private func bytes(_ string: String) -> [UInt8] { Array(string.utf8) }

    /// Writes `message` at `version` and reads the bytes back.
    private func check<Message: KafkaMessage>(
        _ message: Message, version: Int16, _ expected: [UInt8], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        var written = ByteBuffer()
        message.write(to: &written, version: version)
        #expect(Array(written.readableBytesView) == expected, "\(Message.self) v\(version)", sourceLocation: sourceLocation)
        var reading = ByteBuffer(bytes: expected)
        #expect(try Message(from: &reading, version: version) == message, sourceLocation: sourceLocation)
        #expect(reading.readableBytes == 0, sourceLocation: sourceLocation)
    }

    @Test func incrementalAlterConfigsRequestInClassicAndFlexibleVersions() throws {
        let request = IncrementalAlterConfigsRequest(resources: [
            .init(resourceType: 2, resourceName: "t", configs: [
                .init(name: "retention.ms", configOperation: 0, value: "1000"),
                .init(name: "cleanup.policy", configOperation: 1, value: nil),
            ]),
        ])
        try check(request, version: 0, [
            0x00, 0x00, 0x00, 0x01,  // Resources: ARRAY, INT32 count 1
            0x02,  // ResourceType: INT8 2 (topic)
            0x00, 0x01,  // ResourceName: STRING, INT16 length 1 …
        ] + bytes("t") + [
            0x00, 0x00, 0x00, 0x02,  // Configs: ARRAY, count 2
            0x00, 0x0C,  // Name: STRING, length 12 …
        ] + bytes("retention.ms") + [
            0x00,  // ConfigOperation: INT8 0 (SET)
            0x00, 0x04,  // Value: NULLABLE_STRING, length 4 …
        ] + bytes("1000") + [
            0x00, 0x0E,  // Name: STRING, length 14 …
        ] + bytes("cleanup.policy") + [
            0x01,  // ConfigOperation: INT8 1 (DELETE)
            0xFF, 0xFF,  // Value: null
            0x00,  // ValidateOnly: false
        ])
        // v1: the first flexible version.
        try check(request, version: 1, [
            0x02,  // Resources: COMPACT_ARRAY, varint 1 + 1
            0x02,  // ResourceType
            0x02,  // ResourceName: COMPACT_STRING, varint 1 + 1 …
        ] + bytes("t") + [
            0x03,  // Configs: COMPACT_ARRAY, varint 2 + 1
            0x0D,  // Name: COMPACT_STRING, varint 12 + 1 …
        ] + bytes("retention.ms") + [
            0x00,  // ConfigOperation: SET
            0x05,  // Value: COMPACT_NULLABLE_STRING, varint 4 + 1 …
        ] + bytes("1000") + [
            0x00,  // config tagged fields
            0x0F,  // Name: varint 14 + 1 …
        ] + bytes("cleanup.policy") + [
            0x01,  // ConfigOperation: DELETE
            0x00,  // Value: compact null
            0x00,  // config tagged fields
            0x00,  // resource tagged fields
            0x00,  // ValidateOnly: false
            0x00,  // request tagged fields
        ])
    }

    @Test func incrementalAlterConfigsResponseInClassicAndFlexibleVersions() throws {
        let response = IncrementalAlterConfigsResponse(responses: [
            .init(resourceType: 2, resourceName: "t"),
            .init(errorCode: 40, errorMessage: "bad", resourceType: 4, resourceName: "1"),
        ])
        try check(response, version: 0, [
            0x00, 0x00, 0x00, 0x00,  // ThrottleTimeMs
            0x00, 0x00, 0x00, 0x02,  // Responses: ARRAY, count 2
            0x00, 0x00,  // ErrorCode: 0
            0xFF, 0xFF,  // ErrorMessage: null
            0x02,  // ResourceType: topic
            0x00, 0x01,  // ResourceName …
        ] + bytes("t") + [
            0x00, 0x28,  // ErrorCode: 40 (INVALID_CONFIG)
            0x00, 0x03,  // ErrorMessage: length 3 …
        ] + bytes("bad") + [
            0x04,  // ResourceType: broker
            0x00, 0x01,  // ResourceName …
        ] + bytes("1"))
        try check(response, version: 1, [
            0x00, 0x00, 0x00, 0x00,  // ThrottleTimeMs
            0x03,  // Responses: COMPACT_ARRAY, count 2
            0x00, 0x00,  // ErrorCode
            0x00,  // ErrorMessage: compact null
            0x02,  // ResourceType
            0x02,  // ResourceName: varint 1 + 1 …
        ] + bytes("t") + [
            0x00,  // resource tagged fields
            0x00, 0x28,  // ErrorCode: 40
            0x04,  // ErrorMessage: varint 3 + 1 …
        ] + bytes("bad") + [
            0x04,  // ResourceType
            0x02,  // ResourceName …
        ] + bytes("1") + [
            0x00,  // resource tagged fields
            0x00,  // response tagged fields
        ])
    }

    @Test func alterConfigsRequestInClassicAndFlexibleVersions() throws {
        let request = AlterConfigsRequest(resources: [.init(resourceType: 2, resourceName: "t", configs: [.init(name: "retention.ms", value: "1000")])], validateOnly: true)
        let classic: [UInt8] = [
            0x00, 0x00, 0x00, 0x01,  // Resources: ARRAY, count 1
            0x02,  // ResourceType: topic
            0x00, 0x01,  // ResourceName …
        ] + bytes("t") + [
            0x00, 0x00, 0x00, 0x01,  // Configs: ARRAY, count 1
            0x00, 0x0C,  // Name …
        ] + bytes("retention.ms") + [
            0x00, 0x04,  // Value: NULLABLE_STRING, length 4 … (no operation field, unlike key 44)
        ] + bytes("1000") + [
            0x01,  // ValidateOnly: true
        ]
        try check(request, version: 0, classic)
        try check(request, version: 1, classic)
        try check(request, version: 2, [
            0x02,  // Resources: COMPACT_ARRAY, count 1
            0x02,  // ResourceType
            0x02,  // ResourceName …
        ] + bytes("t") + [
            0x02,  // Configs: COMPACT_ARRAY, count 1
            0x0D,  // Name …
        ] + bytes("retention.ms") + [
            0x05,  // Value …
        ] + bytes("1000") + [
            0x00,  // config tagged fields
            0x00,  // resource tagged fields
            0x01,  // ValidateOnly
            0x00,  // request tagged fields
        ])
    }

    @Test func alterConfigsResponseInClassicAndFlexibleVersions() throws {
        let response = AlterConfigsResponse(throttleTimeMs: 1, responses: [.init(resourceType: 2, resourceName: "t")])
        try check(response, version: 1, [
            0x00, 0x00, 0x00, 0x01,  // ThrottleTimeMs: 1
            0x00, 0x00, 0x00, 0x01,  // Responses: ARRAY, count 1
            0x00, 0x00,  // ErrorCode
            0xFF, 0xFF,  // ErrorMessage: null
            0x02,  // ResourceType
            0x00, 0x01,
        ] + bytes("t"))
        try check(response, version: 2, [
            0x00, 0x00, 0x00, 0x01,  // ThrottleTimeMs
            0x02,  // Responses: COMPACT_ARRAY, count 1
            0x00, 0x00,  // ErrorCode
            0x00,  // ErrorMessage: compact null
            0x02,  // ResourceType
            0x02,
        ] + bytes("t") + [
            0x00,  // resource tagged fields
            0x00,  // response tagged fields
        ])
    }
}
