import NIOCore
import Testing

@testable import SluiceKafkaProtocol

/// Whole frames written out by hand from the Kafka protocol guide and the message definitions, to
/// check the codecs against the spec rather than against themselves.
@Suite struct GoldenBytesTests {
    /// An ApiVersions v3 request as confluent-kafka 2.16.1 (librdkafka 2.16.0) sends it first on a
    /// connection (checked against a captured one).
    static let apiVersionsV3Request: [UInt8] = [
        0x00, 0x00, 0x00, 0x40,  // size: 64 bytes follow
        // Request header v2 (ApiVersions v3 is flexible).
        0x00, 0x12,  // api key: 18 (ApiVersions)
        0x00, 0x03,  // api version: 3
        0x00, 0x00, 0x00, 0x01,  // correlation id: 1
        0x00, 0x07, 0x72, 0x64, 0x6B, 0x61, 0x66, 0x6B, 0x61,  // client id: INT16 length 7, "rdkafka" (never compact)
        0x00,  // header tagged fields: none
        // Body.
        0x17,  // client software name: compact string, varint 22+1
        0x63, 0x6F, 0x6E, 0x66, 0x6C, 0x75, 0x65, 0x6E, 0x74, 0x2D, 0x6B,  // "confluent-k"
        0x61, 0x66, 0x6B, 0x61, 0x2D, 0x70, 0x79, 0x74, 0x68, 0x6F, 0x6E,  // "afka-python"
        0x16,  // client software version: compact string, varint 21+1
        0x32, 0x2E, 0x31, 0x36, 0x2E, 0x31, 0x2D, 0x72, 0x64, 0x6B, 0x61,  // "2.16.1-rdka"
        0x66, 0x6B, 0x61, 0x2D, 0x32, 0x2E, 0x31, 0x36, 0x2E, 0x30,  // "fka-2.16.0"
        0x00,  // body tagged fields: none
    ]

    @Test func apiVersionsV3RequestAsLibrdkafkaSendsIt() throws {
        var frame = ByteBuffer(bytes: Self.apiVersionsV3Request)
        #expect(frame.readInteger(as: Int32.self) == Int32(frame.readableBytes))
        let header = try KafkaRequestHeader(from: &frame)
        #expect(header == KafkaRequestHeader(api: .apiVersions, apiVersion: 3, correlationID: 1, clientID: "rdkafka"))
        #expect(header.headerVersion == 2)
        let request = try ApiVersionsRequest(from: &frame, version: 3)
        #expect(request == ApiVersionsRequest(clientSoftwareName: "confluent-kafka-python", clientSoftwareVersion: "2.16.1-rdkafka-2.16.0"))
        #expect(frame.readableBytes == 0)

        var written = ByteBuffer()
        request.writeFrame(to: &written, version: 3, correlationID: 1, clientID: "rdkafka")
        #expect(Array(written.readableBytesView) == Self.apiVersionsV3Request)
    }

    /// The answer librdkafka gets when it asks with a version the broker does not support: a v0
    /// body with UNSUPPORTED_VERSION, behind a v0 response header as every ApiVersions response.
    @Test func apiVersionsV0ErrorResponse() throws {
        let response = ApiVersionsResponse(errorCode: 35, apiKeys: [.init(apiKey: 18, minVersion: 0, maxVersion: 4)])
        var buffer = ByteBuffer()
        response.writeFrame(to: &buffer, version: 0, correlationID: 1)
        #expect(Array(buffer.readableBytesView) == [
            0x00, 0x00, 0x00, 0x10,  // size: 16 bytes follow
            0x00, 0x00, 0x00, 0x01,  // response header v0: correlation id 1, no tagged fields
            0x00, 0x23,  // error code: 35 (UNSUPPORTED_VERSION)
            0x00, 0x00, 0x00, 0x01,  // api keys: INT32 count 1
            0x00, 0x12, 0x00, 0x00, 0x00, 0x04,  // ApiVersions: 0 ... 4
            // v0 has no throttle time and no tagged fields.
        ])
    }

    /// A Metadata v1 request for one topic, as kafka-python sends it.
    static let metadataV1Request: [UInt8] = [
        0x00, 0x00, 0x00, 0x1E,  // size: 30 bytes follow
        // Request header v1 (Metadata v1 is not flexible).
        0x00, 0x03,  // api key: 3 (Metadata)
        0x00, 0x01,  // api version: 1
        0x00, 0x00, 0x00, 0x07,  // correlation id: 7
        0x00, 0x0C, 0x6B, 0x61, 0x66, 0x6B, 0x61, 0x2D, 0x70, 0x79, 0x74, 0x68, 0x6F, 0x6E,  // client id: "kafka-python"
        // Body.
        0x00, 0x00, 0x00, 0x01,  // topics: INT32 count 1
        0x00, 0x02, 0x74, 0x31,  // name: STRING "t1"
    ]

    @Test func metadataV1Request() throws {
        var frame = ByteBuffer(bytes: Self.metadataV1Request)
        #expect(frame.readInteger(as: Int32.self) == Int32(frame.readableBytes))
        let header = try KafkaRequestHeader(from: &frame)
        #expect(header == KafkaRequestHeader(api: .metadata, apiVersion: 1, correlationID: 7, clientID: "kafka-python"))
        #expect(header.headerVersion == 1)
        let request = try MetadataRequest(from: &frame, version: 1)
        #expect(request == MetadataRequest(topics: [.init(name: "t1")]))
        #expect(frame.readableBytes == 0)
        var written = ByteBuffer()
        request.writeFrame(to: &written, version: 1, correlationID: 7, clientID: "kafka-python")
        #expect(Array(written.readableBytesView) == Self.metadataV1Request)

        // All topics: a null array from v1 on, an empty array in v0.
        var all = ByteBuffer()
        MetadataRequest(topics: nil).write(to: &all, version: 1)
        #expect(Array(all.readableBytesView) == [0xFF, 0xFF, 0xFF, 0xFF])
        var allV0 = ByteBuffer()
        MetadataRequest(topics: nil).write(to: &allV0, version: 0)
        #expect(Array(allV0.readableBytesView) == [0x00, 0x00, 0x00, 0x00])
        #expect(try MetadataRequest(from: &allV0, version: 0).topics == nil)
    }

    @Test func responseHeaderV1() throws {
        // Metadata v9 is flexible, so its response header is v1.
        #expect(KafkaAPI.metadata.responseHeaderVersion(for: 9) == 1)
        var buffer = ByteBuffer()
        KafkaResponseHeader(correlationID: 0x0102_0304).write(to: &buffer, headerVersion: 1)
        #expect(Array(buffer.readableBytesView) == [
            0x01, 0x02, 0x03, 0x04,  // correlation id
            0x00,  // tagged fields: none
        ])
        // A header that carries an unknown tagged field (tag 5, 2 bytes) reads the same.
        var tagged = Sample.bytes([0x01, 0x02, 0x03, 0x04, 0x01, 0x05, 0x02, 0xAA, 0xBB])
        #expect(try KafkaResponseHeader(from: &tagged, headerVersion: 1) == KafkaResponseHeader(correlationID: 0x0102_0304))
        #expect(tagged.readableBytes == 0)
    }

    /// A Produce v9 (flexible) request for one partition with a 3-byte record set.
    @Test func produceV9Request() throws {
        let bytes: [UInt8] = [
            0x00,  // transactional id: compact null
            0xFF, 0xFF,  // acks: -1
            0x00, 0x00, 0x75, 0x30,  // timeout: 30,000 ms
            0x02,  // topics: compact count 1
            0x02, 0x74,  // name: compact "t"
            0x02,  // partitions: compact count 1
            0x00, 0x00, 0x00, 0x00,  // index: 0
            0x04, 0x01, 0x02, 0x03,  // records: compact bytes, 3 bytes
            0x00,  // partition tagged fields
            0x00,  // topic tagged fields
            0x00,  // request tagged fields
        ]
        var buffer = ByteBuffer(bytes: bytes)
        let request = try ProduceRequest(from: &buffer, version: 9)
        #expect(request == ProduceRequest(acks: -1, timeoutMs: 30_000, topicData: [
            .init(name: "t", partitionData: [.init(index: 0, records: Sample.bytes([1, 2, 3]))]),
        ]))
        var written = ByteBuffer()
        request.write(to: &written, version: 9)
        #expect(Array(written.readableBytesView) == bytes)
    }

    /// A Fetch v12 request as confluent-kafka 2.16.1 sends it to read partition 0 of "t" from
    /// offset 0, read-committed, without a fetch session (checked against a captured one).
    @Test func fetchV12RequestAsLibrdkafkaSendsIt() throws {
        let bytes: [UInt8] = [
            // Request header v2.
            0x00, 0x01,  // api key: 1 (Fetch)
            0x00, 0x0C,  // api version: 12
            0x00, 0x00, 0x00, 0x06,  // correlation id: 6
            0x00, 0x07, 0x72, 0x64, 0x6B, 0x61, 0x66, 0x6B, 0x61,  // client id: "rdkafka"
            0x00,  // header tagged fields
            // Body.
            0xFF, 0xFF, 0xFF, 0xFF,  // replica id: -1 (a consumer)
            0x00, 0x00, 0x01, 0xF4,  // max wait: 500 ms
            0x00, 0x00, 0x00, 0x01,  // min bytes: 1
            0x03, 0x20, 0x00, 0x00,  // max bytes: 52,428,800
            0x01,  // isolation level: read committed
            0x00, 0x00, 0x00, 0x00,  // session id: 0
            0xFF, 0xFF, 0xFF, 0xFF,  // session epoch: -1 (no session)
            0x02,  // topics: compact count 1
            0x02, 0x74,  // topic: compact "t"
            0x02,  // partitions: compact count 1
            0x00, 0x00, 0x00, 0x00,  // partition: 0
            0x00, 0x00, 0x00, 0x00,  // current leader epoch: 0
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // fetch offset: 0
            0xFF, 0xFF, 0xFF, 0xFF,  // last fetched epoch: -1
            0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,  // log start offset: -1
            0x00, 0x10, 0x00, 0x00,  // partition max bytes: 1,048,576
            0x00,  // partition tagged fields
            0x00,  // topic tagged fields
            0x01,  // forgotten topics: compact count 0
            0x01,  // rack id: compact ""
            0x00,  // request tagged fields (no cluster id)
        ]
        var buffer = ByteBuffer(bytes: bytes)
        let header = try KafkaRequestHeader(from: &buffer)
        #expect(header == KafkaRequestHeader(api: .fetch, apiVersion: 12, correlationID: 6, clientID: "rdkafka"))
        let expected = FetchRequest(
            maxWaitMs: 500,
            minBytes: 1,
            maxBytes: 52_428_800,
            isolationLevel: 1,
            topics: [.init(topic: "t", partitions: [.init(partition: 0, currentLeaderEpoch: 0, fetchOffset: 0, partitionMaxBytes: 1_048_576)])]
        )
        #expect(try KafkaRequestBody(from: &buffer, header: header) == .fetch(expected))
        #expect(buffer.readableBytes == 0)
        var written = ByteBuffer()
        header.write(to: &written)
        expected.write(to: &written, version: 12)
        #expect(Array(written.readableBytesView) == bytes)
    }
}
