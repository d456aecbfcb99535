import NIOCore
import Testing

@testable import SluiceKafkaProtocol

/// The transaction messages written out by hand from their definitions in apache/kafka
/// (AddPartitionsToTxnRequest.json … TxnOffsetCommitResponse.json) and the protocol guide's
/// primitive types, to check the codecs against the spec rather than against themselves.
///
/// Every sample uses transactional id "tx", producer id 1,000 (0x3E8) and producer epoch 2.
@Suite struct TransactionGoldenBytesTests {
    private func bytes(_ string: String) -> [UInt8] { Array(string.utf8) }

    /// INT64 1,000.
    private let producerID: [UInt8] = [0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xE8]

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

    @Test func addPartitionsToTxnRequestInClassicAndFlexibleVersions() throws {
        let request = AddPartitionsToTxnRequest(transactionalID: "tx", producerID: 1_000, producerEpoch: 2, topics: [.init(name: "t", partitions: [0, 1])])
        // v0 (and v1, v2: the same fields; v2 only allows PRODUCER_FENCED in the answer).
        let classic: [UInt8] = [
            0x00, 0x02,  // V3AndBelowTransactionalId: STRING, INT16 length 2 …
        ] + bytes("tx") + producerID + [  // V3AndBelowProducerId: INT64
            0x00, 0x02,  // V3AndBelowProducerEpoch: INT16
            0x00, 0x00, 0x00, 0x01,  // V3AndBelowTopics: ARRAY, INT32 count 1
            0x00, 0x01,  // Name: STRING, INT16 length 1 …
        ] + bytes("t") + [
            0x00, 0x00, 0x00, 0x02,  // Partitions: ARRAY of INT32, count 2
            0x00, 0x00, 0x00, 0x00,  // 0
            0x00, 0x00, 0x00, 0x01,  // 1
        ]
        try check(request, version: 0, classic)
        try check(request, version: 1, classic)
        try check(request, version: 2, classic)
        // v3: the first flexible version.
        let flexible: [UInt8] = [
            0x03,  // V3AndBelowTransactionalId: COMPACT_STRING, varint 2 + 1 …
        ] + bytes("tx") + producerID + [
            0x00, 0x02,  // V3AndBelowProducerEpoch
            0x02,  // V3AndBelowTopics: COMPACT_ARRAY, varint 1 + 1
            0x02,  // Name: COMPACT_STRING, varint 1 + 1 …
        ] + bytes("t") + [
            0x03,  // Partitions: COMPACT_ARRAY, varint 2 + 1
            0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x00, 0x01,
            0x00,  // topic tagged fields: none
            0x00,  // request tagged fields: none
        ]
        try check(request, version: 3, flexible)
        // v4 starts the brokers' batched form, which Sluice does not read.
        var v4 = ByteBuffer(bytes: flexible)
        #expect(throws: KafkaDecodingError.unsupportedVersion(apiKey: 24, version: 4)) {
            try AddPartitionsToTxnRequest(from: &v4, version: 4)
        }
    }

    @Test func addPartitionsToTxnResponseInClassicAndFlexibleVersions() throws {
        let response = AddPartitionsToTxnResponse(resultsByTopic: [
            .init(name: "t", resultsByPartition: [.init(partitionIndex: 0), .init(partitionIndex: 1, partitionErrorCode: 51)]),
        ])
        try check(response, version: 0, [
            0x00, 0x00, 0x00, 0x00,  // ThrottleTimeMs: INT32
            0x00, 0x00, 0x00, 0x01,  // ResultsByTopicV3AndBelow: ARRAY, count 1
            0x00, 0x01,  // Name: STRING …
        ] + bytes("t") + [
            0x00, 0x00, 0x00, 0x02,  // ResultsByPartition: ARRAY, count 2
            0x00, 0x00, 0x00, 0x00,  // PartitionIndex 0
            0x00, 0x00,  // PartitionErrorCode 0
            0x00, 0x00, 0x00, 0x01,  // PartitionIndex 1
            0x00, 0x33,  // PartitionErrorCode 51 (CONCURRENT_TRANSACTIONS)
        ])
        try check(response, version: 3, [
            0x00, 0x00, 0x00, 0x00,  // ThrottleTimeMs
            0x02,  // ResultsByTopicV3AndBelow: COMPACT_ARRAY, count 1
            0x02,  // Name: COMPACT_STRING …
        ] + bytes("t") + [
            0x03,  // ResultsByPartition: COMPACT_ARRAY, count 2
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // partition 0, no error
            0x00,  // partition result tagged fields
            0x00, 0x00, 0x00, 0x01, 0x00, 0x33,  // partition 1, CONCURRENT_TRANSACTIONS
            0x00,  // partition result tagged fields
            0x00,  // topic result tagged fields
            0x00,  // response tagged fields
        ])
    }

    @Test func addOffsetsToTxnRequestInClassicAndFlexibleVersions() throws {
        let request = AddOffsetsToTxnRequest(transactionalID: "tx", producerID: 1_000, producerEpoch: 2, groupID: "g")
        try check(request, version: 0, [0x00, 0x02] + bytes("tx") + producerID + [0x00, 0x02] + [0x00, 0x01] + bytes("g"))
        // v3: compact strings, then the request's tagged fields.
        try check(request, version: 3, [0x03] + bytes("tx") + producerID + [0x00, 0x02] + [0x02] + bytes("g") + [0x00])
    }

    @Test func endTxnRequestInClassicAndFlexibleVersions() throws {
        let commit = EndTxnRequest(transactionalID: "tx", producerID: 1_000, producerEpoch: 2, committed: true)
        let classic: [UInt8] = [
            0x00, 0x02,  // TransactionalId: STRING …
        ] + bytes("tx") + producerID + [
            0x00, 0x02,  // ProducerEpoch
            0x01,  // Committed: BOOLEAN true
        ]
        try check(commit, version: 0, classic)
        try check(commit, version: 2, classic)
        let flexible: [UInt8] = [
            0x03,  // TransactionalId: COMPACT_STRING …
        ] + bytes("tx") + producerID + [
            0x00, 0x02,  // ProducerEpoch
            0x01,  // Committed
            0x00,  // tagged fields
        ]
        try check(commit, version: 3, flexible)
        var abort = commit
        abort.committed = false
        try check(abort, version: 0, [0x00, 0x02] + bytes("tx") + producerID + [0x00, 0x02, 0x00])
    }

    @Test func endTxnV3RequestFrameUsesHeaderV2() throws {
        var frame = ByteBuffer()
        EndTxnRequest(transactionalID: "tx", producerID: 1_000, producerEpoch: 2, committed: true)
            .writeFrame(to: &frame, version: 3, correlationID: 5, clientID: "c")
        #expect(Array(frame.readableBytesView) == [
            0x00, 0x00, 0x00, 0x1B,  // size: 12 header + 15 body bytes
            0x00, 0x1A,  // api key: 26 (EndTxn)
            0x00, 0x03,  // api version: 3
            0x00, 0x00, 0x00, 0x05,  // correlation id
            0x00, 0x01, 0x63,  // client id: INT16 length 1, "c" (never compact)
            0x00,  // header tagged fields
            0x03,  // body: TransactionalId, compact …
        ] + bytes("tx") + producerID + [0x00, 0x02, 0x01, 0x00])
    }

    @Test func endTxnV3RequestSkipsUnknownTaggedFields() throws {
        var buffer = ByteBuffer(bytes: [0x03] + bytes("tx") + producerID + [
            0x00, 0x02,  // ProducerEpoch
            0x00,  // Committed: false (abort)
            0x01,  // tagged fields: 1 field …
            0x07, 0x02, 0xAA, 0xBB,  // tag 7, size 2, bytes a newer client might send
        ])
        #expect(try EndTxnRequest(from: &buffer, version: 3) == EndTxnRequest(transactionalID: "tx", producerID: 1_000, producerEpoch: 2, committed: false))
        #expect(buffer.readableBytes == 0)
    }

    @Test func endTxnResponseInClassicAndFlexibleVersions() throws {
        let response = EndTxnResponse(throttleTimeMs: 0, errorCode: 48)
        let classic: [UInt8] = [
            0x00, 0x00, 0x00, 0x00,  // ThrottleTimeMs
            0x00, 0x30,  // ErrorCode: 48 (INVALID_TXN_STATE)
        ]
        try check(response, version: 0, classic)
        try check(response, version: 3, classic + [0x00])  // + tagged fields
        var frame = ByteBuffer()
        response.writeFrame(to: &frame, version: 3, correlationID: 5)
        #expect(Array(frame.readableBytesView) == [
            0x00, 0x00, 0x00, 0x0C,  // size: 12
            0x00, 0x00, 0x00, 0x05,  // response header v1: correlation id …
            0x00,  // … and its tagged fields
        ] + classic + [0x00])
    }

    @Test func txnOffsetCommitRequestAddsItsFieldsByVersion() throws {
        let partition = TxnOffsetCommitRequest.Partition(partitionIndex: 0, committedOffset: 42, committedLeaderEpoch: 7)
        var request = TxnOffsetCommitRequest(
            transactionalID: "tx", groupID: "g", producerID: 1_000, producerEpoch: 2,
            topics: [.init(name: "t", partitions: [partition])])
        let head: [UInt8] = [0x00, 0x02] + bytes("tx") + [0x00, 0x01] + bytes("g") + producerID + [0x00, 0x02]
        let topicAndPartition: [UInt8] = [
            0x00, 0x00, 0x00, 0x01,  // Topics: ARRAY, count 1
            0x00, 0x01,  // Name …
        ] + bytes("t") + [
            0x00, 0x00, 0x00, 0x01,  // Partitions: ARRAY, count 1
            0x00, 0x00, 0x00, 0x00,  // PartitionIndex
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2A,  // CommittedOffset: 42
        ]
        // v2 adds CommittedLeaderEpoch between the offset and the metadata.
        try check(request, version: 2, head + topicAndPartition + [
            0x00, 0x00, 0x00, 0x07,  // CommittedLeaderEpoch: 7
            0xFF, 0xFF,  // CommittedMetadata: null
        ])
        request.topics[0].partitions[0].committedLeaderEpoch = -1
        try check(request, version: 0, head + topicAndPartition + [0xFF, 0xFF])

        // v3 adds the consumer's group membership after the producer epoch, before the topics.
        request.topics[0].partitions[0].committedLeaderEpoch = 7
        request.generationID = 5
        request.memberID = "m"
        try check(request, version: 3, [
            0x03,  // TransactionalId: COMPACT_STRING …
        ] + bytes("tx") + [
            0x02,  // GroupId …
        ] + bytes("g") + producerID + [
            0x00, 0x02,  // ProducerEpoch
            0x00, 0x00, 0x00, 0x05,  // GenerationId: 5
            0x02,  // MemberId: COMPACT_STRING …
        ] + bytes("m") + [
            0x00,  // GroupInstanceId: compact null
            0x02,  // Topics: COMPACT_ARRAY, count 1
            0x02,  // Name …
        ] + bytes("t") + [
            0x02,  // Partitions: COMPACT_ARRAY, count 1
            0x00, 0x00, 0x00, 0x00,  // PartitionIndex
            0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2A,  // CommittedOffset
            0x00, 0x00, 0x00, 0x07,  // CommittedLeaderEpoch
            0x00,  // CommittedMetadata: compact null
            0x00,  // partition tagged fields
            0x00,  // topic tagged fields
            0x00,  // request tagged fields
        ])
    }

    @Test func txnOffsetCommitResponseInClassicAndFlexibleVersions() throws {
        let response = TxnOffsetCommitResponse(topics: [.init(name: "t", partitions: [.init(partitionIndex: 1, errorCode: 22)])])
        try check(response, version: 2, [
            0x00, 0x00, 0x00, 0x00,  // ThrottleTimeMs
            0x00, 0x00, 0x00, 0x01,  // Topics: ARRAY, count 1
            0x00, 0x01,
        ] + bytes("t") + [
            0x00, 0x00, 0x00, 0x01,  // Partitions: ARRAY, count 1
            0x00, 0x00, 0x00, 0x01,  // PartitionIndex 1
            0x00, 0x16,  // ErrorCode: 22 (ILLEGAL_GENERATION)
        ])
        try check(response, version: 3, [
            0x00, 0x00, 0x00, 0x00,
            0x02,  // Topics: COMPACT_ARRAY, count 1
            0x02,
        ] + bytes("t") + [
            0x02,  // Partitions: COMPACT_ARRAY, count 1
            0x00, 0x00, 0x00, 0x01, 0x00, 0x16,
            0x00,  // partition tagged fields
            0x00,  // topic tagged fields
            0x00,  // response tagged fields
        ])
    }
}
