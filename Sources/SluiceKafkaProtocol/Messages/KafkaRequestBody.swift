import NIOCore

/// The body of a request of any API in the `KafkaAPI` table, read according to its header: what
/// the broker gets per network message.
package enum KafkaRequestBody: Sendable, Equatable {
    case produce(ProduceRequest)
    case fetch(FetchRequest)
    case listOffsets(ListOffsetsRequest)
    case metadata(MetadataRequest)
    case offsetCommit(OffsetCommitRequest)
    case offsetFetch(OffsetFetchRequest)
    case findCoordinator(FindCoordinatorRequest)
    case joinGroup(JoinGroupRequest)
    case heartbeat(HeartbeatRequest)
    case leaveGroup(LeaveGroupRequest)
    case syncGroup(SyncGroupRequest)
    case describeGroups(DescribeGroupsRequest)
    case listGroups(ListGroupsRequest)
    case saslHandshake(SaslHandshakeRequest)
    case apiVersions(ApiVersionsRequest)
    case createTopics(CreateTopicsRequest)
    case deleteTopics(DeleteTopicsRequest)
    case initProducerID(InitProducerIdRequest)
    case addPartitionsToTxn(AddPartitionsToTxnRequest)
    case addOffsetsToTxn(AddOffsetsToTxnRequest)
    case endTxn(EndTxnRequest)
    case txnOffsetCommit(TxnOffsetCommitRequest)
    case describeAcls(DescribeAclsRequest)
    case createAcls(CreateAclsRequest)
    case deleteAcls(DeleteAclsRequest)
    case describeConfigs(DescribeConfigsRequest)
    case alterConfigs(AlterConfigsRequest)
    case saslAuthenticate(SaslAuthenticateRequest)
    case createPartitions(CreatePartitionsRequest)
    case incrementalAlterConfigs(IncrementalAlterConfigsRequest)

    /// Reads the body that follows `header`. Throws `unsupportedVersion` for an API key outside
    /// the table or a version outside its range; for ApiVersions the broker then answers with a
    /// version 0 response carrying UNSUPPORTED_VERSION and its table (KIP-511).
    package init(from buffer: inout ByteBuffer, header: KafkaRequestHeader) throws(KafkaDecodingError) {
        guard let api = header.api else {
            throw .unsupportedVersion(apiKey: header.apiKey, version: header.apiVersion)
        }
        let version = header.apiVersion
        switch api {
        case .produce: self = .produce(try ProduceRequest(from: &buffer, version: version))
        case .fetch: self = .fetch(try FetchRequest(from: &buffer, version: version))
        case .listOffsets: self = .listOffsets(try ListOffsetsRequest(from: &buffer, version: version))
        case .metadata: self = .metadata(try MetadataRequest(from: &buffer, version: version))
        case .offsetCommit: self = .offsetCommit(try OffsetCommitRequest(from: &buffer, version: version))
        case .offsetFetch: self = .offsetFetch(try OffsetFetchRequest(from: &buffer, version: version))
        case .findCoordinator: self = .findCoordinator(try FindCoordinatorRequest(from: &buffer, version: version))
        case .joinGroup: self = .joinGroup(try JoinGroupRequest(from: &buffer, version: version))
        case .heartbeat: self = .heartbeat(try HeartbeatRequest(from: &buffer, version: version))
        case .leaveGroup: self = .leaveGroup(try LeaveGroupRequest(from: &buffer, version: version))
        case .syncGroup: self = .syncGroup(try SyncGroupRequest(from: &buffer, version: version))
        case .describeGroups: self = .describeGroups(try DescribeGroupsRequest(from: &buffer, version: version))
        case .listGroups: self = .listGroups(try ListGroupsRequest(from: &buffer, version: version))
        case .saslHandshake: self = .saslHandshake(try SaslHandshakeRequest(from: &buffer, version: version))
        case .apiVersions: self = .apiVersions(try ApiVersionsRequest(from: &buffer, version: version))
        case .createTopics: self = .createTopics(try CreateTopicsRequest(from: &buffer, version: version))
        case .deleteTopics: self = .deleteTopics(try DeleteTopicsRequest(from: &buffer, version: version))
        case .initProducerID: self = .initProducerID(try InitProducerIdRequest(from: &buffer, version: version))
        case .addPartitionsToTxn: self = .addPartitionsToTxn(try AddPartitionsToTxnRequest(from: &buffer, version: version))
        case .addOffsetsToTxn: self = .addOffsetsToTxn(try AddOffsetsToTxnRequest(from: &buffer, version: version))
        case .endTxn: self = .endTxn(try EndTxnRequest(from: &buffer, version: version))
        case .txnOffsetCommit: self = .txnOffsetCommit(try TxnOffsetCommitRequest(from: &buffer, version: version))
        case .describeAcls: self = .describeAcls(try DescribeAclsRequest(from: &buffer, version: version))
        case .createAcls: self = .createAcls(try CreateAclsRequest(from: &buffer, version: version))
        case .deleteAcls: self = .deleteAcls(try DeleteAclsRequest(from: &buffer, version: version))
        case .describeConfigs: self = .describeConfigs(try DescribeConfigsRequest(from: &buffer, version: version))
        case .alterConfigs: self = .alterConfigs(try AlterConfigsRequest(from: &buffer, version: version))
        case .saslAuthenticate: self = .saslAuthenticate(try SaslAuthenticateRequest(from: &buffer, version: version))
        case .createPartitions: self = .createPartitions(try CreatePartitionsRequest(from: &buffer, version: version))
        case .incrementalAlterConfigs: self = .incrementalAlterConfigs(try IncrementalAlterConfigsRequest(from: &buffer, version: version))
        }
    }

    /// The API of the request.
    package var api: KafkaAPI {
        switch self {
        case .produce: .produce
        case .fetch: .fetch
        case .listOffsets: .listOffsets
        case .metadata: .metadata
        case .offsetCommit: .offsetCommit
        case .offsetFetch: .offsetFetch
        case .findCoordinator: .findCoordinator
        case .joinGroup: .joinGroup
        case .heartbeat: .heartbeat
        case .leaveGroup: .leaveGroup
        case .syncGroup: .syncGroup
        case .describeGroups: .describeGroups
        case .listGroups: .listGroups
        case .saslHandshake: .saslHandshake
        case .apiVersions: .apiVersions
        case .createTopics: .createTopics
        case .deleteTopics: .deleteTopics
        case .initProducerID: .initProducerID
        case .addPartitionsToTxn: .addPartitionsToTxn
        case .addOffsetsToTxn: .addOffsetsToTxn
        case .endTxn: .endTxn
        case .txnOffsetCommit: .txnOffsetCommit
        case .describeAcls: .describeAcls
        case .createAcls: .createAcls
        case .deleteAcls: .deleteAcls
        case .describeConfigs: .describeConfigs
        case .alterConfigs: .alterConfigs
        case .saslAuthenticate: .saslAuthenticate
        case .createPartitions: .createPartitions
        case .incrementalAlterConfigs: .incrementalAlterConfigs
        }
    }
}
