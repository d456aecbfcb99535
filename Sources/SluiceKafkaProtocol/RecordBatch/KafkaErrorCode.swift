/// A Kafka protocol error code, as carried in the `error_code` (int16) fields of responses.
///
/// A struct with static names rather than an enum (as `SQLState`, and swift-system's `Errno`):
/// a code read off the wire that this list does not name is still a value, and another file
/// can add names with `extension KafkaErrorCode { package static let … }`. Names and numbers
/// follow Kafka's `org.apache.kafka.common.protocol.Errors` (the "Error Codes" table of the
/// protocol guide); the Kafka name is in each doc comment.
package struct KafkaErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The code on the wire.
    package let rawValue: Int16

    package init(rawValue: Int16) {
        self.rawValue = rawValue
    }

    package var description: String { "Kafka error \(rawValue)" }

    /// `NONE` (0): no error. (Not named `none`, which `Optional<KafkaErrorCode>` would shadow.)
    package static let noError = KafkaErrorCode(rawValue: 0)
    /// `OFFSET_OUT_OF_RANGE` (1): the requested offset is not within the range of offsets the
    /// server holds for the partition.
    package static let offsetOutOfRange = KafkaErrorCode(rawValue: 1)
    /// `CORRUPT_MESSAGE` (2): a message failed its CRC check, exceeds the valid size, has a null
    /// key on a compacted topic, or is otherwise malformed.
    package static let corruptMessage = KafkaErrorCode(rawValue: 2)
    /// `UNKNOWN_TOPIC_OR_PARTITION` (3): the server does not host the topic-partition.
    package static let unknownTopicOrPartition = KafkaErrorCode(rawValue: 3)
    /// `INVALID_FETCH_SIZE` (4): the requested fetch size is invalid.
    package static let invalidFetchSize = KafkaErrorCode(rawValue: 4)
    /// `LEADER_NOT_AVAILABLE` (5): the partition has no leader, as during a leader election.
    package static let leaderNotAvailable = KafkaErrorCode(rawValue: 5)
    /// `NOT_LEADER_OR_FOLLOWER` (6): this server is not the leader or a follower of the partition
    /// (named `NOT_LEADER_FOR_PARTITION` before Kafka 2.7).
    package static let notLeaderOrFollower = KafkaErrorCode(rawValue: 6)
    /// `REQUEST_TIMED_OUT` (7): the request timed out.
    package static let requestTimedOut = KafkaErrorCode(rawValue: 7)
    /// `MESSAGE_TOO_LARGE` (10): the request held a message larger than the server accepts.
    package static let messageTooLarge = KafkaErrorCode(rawValue: 10)
    /// `COORDINATOR_LOAD_IN_PROGRESS` (14): the coordinator is loading and cannot serve the group yet.
    package static let coordinatorLoadInProgress = KafkaErrorCode(rawValue: 14)
    /// `COORDINATOR_NOT_AVAILABLE` (15): the coordinator is not available.
    package static let coordinatorNotAvailable = KafkaErrorCode(rawValue: 15)
    /// `NOT_COORDINATOR` (16): this is not the coordinator of the group.
    package static let notCoordinator = KafkaErrorCode(rawValue: 16)
    /// `INVALID_TOPIC_EXCEPTION` (17): the topic name is invalid, or an operation is not allowed
    /// on it.
    package static let invalidTopic = KafkaErrorCode(rawValue: 17)
    /// `RECORD_LIST_TOO_LARGE` (18): a record batch is larger than the configured segment size.
    package static let recordListTooLarge = KafkaErrorCode(rawValue: 18)
    /// `INVALID_REQUIRED_ACKS` (21): the produce request's `acks` is not -1, 0 or 1.
    package static let invalidRequiredAcks = KafkaErrorCode(rawValue: 21)
    /// `ILLEGAL_GENERATION` (22): the group generation id is not the current one.
    package static let illegalGeneration = KafkaErrorCode(rawValue: 22)
    /// `INCONSISTENT_GROUP_PROTOCOL` (23): the member's protocols do not match the group's.
    package static let inconsistentGroupProtocol = KafkaErrorCode(rawValue: 23)
    /// `INVALID_GROUP_ID` (24): the group id is invalid (empty, say).
    package static let invalidGroupID = KafkaErrorCode(rawValue: 24)
    /// `UNKNOWN_MEMBER_ID` (25): the coordinator does not know this member.
    package static let unknownMemberID = KafkaErrorCode(rawValue: 25)
    /// `INVALID_SESSION_TIMEOUT` (26): the session timeout is outside the broker's allowed range.
    package static let invalidSessionTimeout = KafkaErrorCode(rawValue: 26)
    /// `REBALANCE_IN_PROGRESS` (27): the group is rebalancing, so the member must rejoin.
    package static let rebalanceInProgress = KafkaErrorCode(rawValue: 27)
    /// `INVALID_COMMIT_OFFSET_SIZE` (28): the committed offset's metadata is too large.
    package static let invalidCommitOffsetSize = KafkaErrorCode(rawValue: 28)
    /// `TOPIC_AUTHORIZATION_FAILED` (29): the principal may not perform the operation on the topic.
    package static let topicAuthorizationFailed = KafkaErrorCode(rawValue: 29)
    /// `GROUP_AUTHORIZATION_FAILED` (30): the principal may not use the group.
    package static let groupAuthorizationFailed = KafkaErrorCode(rawValue: 30)
    /// `CLUSTER_AUTHORIZATION_FAILED` (31): the principal may not perform a cluster operation
    /// (such as changing ACLs).
    package static let clusterAuthorizationFailed = KafkaErrorCode(rawValue: 31)
    /// `UNSUPPORTED_SASL_MECHANISM` (33): the broker does not enable the SASL mechanism asked for.
    package static let unsupportedSaslMechanism = KafkaErrorCode(rawValue: 33)
    /// `ILLEGAL_SASL_STATE` (34): a SASL request that the connection's state does not allow.
    package static let illegalSaslState = KafkaErrorCode(rawValue: 34)
    /// `UNSUPPORTED_VERSION` (35): the API version is not supported.
    package static let unsupportedVersion = KafkaErrorCode(rawValue: 35)
    /// `TOPIC_ALREADY_EXISTS` (36): a topic with this name already exists.
    package static let topicAlreadyExists = KafkaErrorCode(rawValue: 36)
    /// `INVALID_PARTITIONS` (37): the number of partitions is invalid.
    package static let invalidPartitions = KafkaErrorCode(rawValue: 37)
    /// `INVALID_REPLICATION_FACTOR` (38): the replication factor is invalid.
    package static let invalidReplicationFactor = KafkaErrorCode(rawValue: 38)
    /// `INVALID_REQUEST` (42): the request is malformed or not valid for this broker.
    package static let invalidRequest = KafkaErrorCode(rawValue: 42)
    /// `UNSUPPORTED_FOR_MESSAGE_FORMAT` (43): the message format (magic) is not supported.
    package static let unsupportedForMessageFormat = KafkaErrorCode(rawValue: 43)
    /// `OUT_OF_ORDER_SEQUENCE_NUMBER` (45): an idempotent producer's sequence number skips ahead.
    package static let outOfOrderSequenceNumber = KafkaErrorCode(rawValue: 45)
    /// `DUPLICATE_SEQUENCE_NUMBER` (46): an idempotent producer's batch was already written.
    package static let duplicateSequenceNumber = KafkaErrorCode(rawValue: 46)
    /// `INVALID_PRODUCER_EPOCH` (47): the producer's epoch is older than the current one (fenced).
    package static let invalidProducerEpoch = KafkaErrorCode(rawValue: 47)
    /// `GROUP_ID_NOT_FOUND` (69): the group does not exist.
    package static let groupIDNotFound = KafkaErrorCode(rawValue: 69)
    /// `UNSUPPORTED_COMPRESSION_TYPE` (76): the compression codec is not supported.
    package static let unsupportedCompressionType = KafkaErrorCode(rawValue: 76)
    /// `MEMBER_ID_REQUIRED` (79): the member must rejoin with the member id the coordinator gave.
    package static let memberIDRequired = KafkaErrorCode(rawValue: 79)
    /// `SASL_AUTHENTICATION_FAILED` (58): SASL authentication failed (wrong credentials,
    /// unknown user, or a malformed token); the broker closes the connection after the response.
    package static let saslAuthenticationFailed = KafkaErrorCode(rawValue: 58)
    /// `INVALID_RECORD` (87): a record or batch failed the broker's validation (counts, offsets,
    /// sequence numbers, control batches from clients).
    package static let invalidRecord = KafkaErrorCode(rawValue: 87)
    /// `UNKNOWN_TOPIC_ID` (100): the server does not know the topic id.
    package static let unknownTopicID = KafkaErrorCode(rawValue: 100)
}

extension KafkaErrorCode {
    /// The broker could not read or write its log files.
    package static let kafkaStorageError = KafkaErrorCode(rawValue: 56)
    /// The request asked for a policy the broker does not have (e.g. an unknown config name).
    package static let invalidConfig = KafkaErrorCode(rawValue: 40)
    /// A group with members cannot be deleted or described in that state.
    package static let nonEmptyGroup = KafkaErrorCode(rawValue: 68)
    /// A Produce request's records were larger than the broker accepts.
    package static let policyViolation = KafkaErrorCode(rawValue: 44)
    /// The producer id is unknown (its state expired).
    package static let unknownProducerID = KafkaErrorCode(rawValue: 59)
    /// `INVALID_TXN_STATE` (48): the request does not fit the transaction's state (ending a
    /// transaction that never started, writing to a partition not added to it).
    package static let invalidTxnState = KafkaErrorCode(rawValue: 48)
    /// `INVALID_PRODUCER_ID_MAPPING` (49): the producer id is not the one the transactional id has.
    package static let invalidProducerIDMapping = KafkaErrorCode(rawValue: 49)
    /// `INVALID_TRANSACTION_TIMEOUT` (50): the timeout is above `transaction.max.timeout.ms`.
    package static let invalidTransactionTimeout = KafkaErrorCode(rawValue: 50)
    /// `CONCURRENT_TRANSACTIONS` (51): the previous transaction is still being completed.
    package static let concurrentTransactions = KafkaErrorCode(rawValue: 51)
    /// `OPERATION_NOT_ATTEMPTED` (55): another part of the request failed, so this one was not tried.
    package static let operationNotAttempted = KafkaErrorCode(rawValue: 55)
    /// `PRODUCER_FENCED` (90): a newer producer with the same transactional id took over.
    package static let producerFenced = KafkaErrorCode(rawValue: 90)
}
