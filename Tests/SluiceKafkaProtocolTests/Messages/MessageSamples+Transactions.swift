import NIOCore

@testable import SluiceKafkaProtocol

extension MessageSamples {
    /// AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, TxnOffsetCommit.
    static let transactions: [MessageCase] = [
        MessageCase(AddPartitionsToTxnRequest.self) { _ in
            AddPartitionsToTxnRequest(
                transactionalID: "tx-orders",
                producerID: 4_000,
                producerEpoch: 1,
                topics: [.init(name: "orders", partitions: [0, 1, 2]), .init(name: "payments", partitions: [])]
            )
        },
        MessageCase(AddPartitionsToTxnResponse.self) { _ in
            AddPartitionsToTxnResponse(
                throttleTimeMs: 5,
                resultsByTopic: [
                    .init(name: "orders", resultsByPartition: [.init(partitionIndex: 0), .init(partitionIndex: 1, partitionErrorCode: 51)]),
                    .init(name: "payments", resultsByPartition: []),
                ]
            )
        },
        MessageCase(AddOffsetsToTxnRequest.self) { _ in
            AddOffsetsToTxnRequest(transactionalID: "tx-orders", producerID: 4_000, producerEpoch: 1, groupID: "orders-consumer")
        },
        MessageCase(AddOffsetsToTxnResponse.self) { _ in
            AddOffsetsToTxnResponse(throttleTimeMs: 2, errorCode: 47)
        },
        MessageCase(EndTxnRequest.self) { _ in
            EndTxnRequest(transactionalID: "tx-orders", producerID: 4_000, producerEpoch: 1, committed: true)
        },
        MessageCase(EndTxnResponse.self) { _ in
            EndTxnResponse(throttleTimeMs: 7, errorCode: 48)
        },
        MessageCase(TxnOffsetCommitRequest.self) { version in
            var request = TxnOffsetCommitRequest(
                transactionalID: "tx-orders",
                groupID: "orders-consumer",
                producerID: 4_000,
                producerEpoch: 1,
                topics: [
                    .init(name: "orders", partitions: [
                        .init(partitionIndex: 0, committedOffset: 120, committedMetadata: "checkpoint 7"),
                        .init(partitionIndex: 1, committedOffset: 0),
                    ]),
                    .init(name: "payments", partitions: []),
                ]
            )
            if version >= 2 { request.topics[0].partitions[0].committedLeaderEpoch = 3 }
            if version >= 3 {
                request.generationID = 12
                request.memberID = "consumer-1-4b6a"
                request.groupInstanceID = "worker-1"
            }
            return request
        },
        MessageCase(TxnOffsetCommitResponse.self) { _ in
            TxnOffsetCommitResponse(
                throttleTimeMs: 0,
                topics: [
                    .init(name: "orders", partitions: [.init(partitionIndex: 0), .init(partitionIndex: 1, errorCode: 22)]),
                    .init(name: "payments", partitions: []),
                ]
            )
        },
    ]
}
