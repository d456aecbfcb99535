import NIOCore

/// Metadata response (key 3): the brokers, the controller, and each requested topic's partitions
/// with their leaders and replicas.
package struct MetadataResponse: KafkaResponse {
    package static let api = KafkaAPI.metadata

    /// A broker clients can connect to.
    package struct Broker: Sendable, Equatable {
        /// The broker id.
        package var nodeID: Int32
        /// The host name clients connect to.
        package var host: String
        /// The port clients connect to.
        package var port: Int32
        /// v1+: the broker's rack, or nil.
        package var rack: String?

        package init(nodeID: Int32, host: String, port: Int32, rack: String? = nil) {
            self.nodeID = nodeID
            self.host = host
            self.port = port
            self.rack = rack
        }
    }

    /// One partition of a topic.
    package struct Partition: Sendable, Equatable {
        /// The partition's error code, or 0.
        package var errorCode: Int16
        /// The partition index.
        package var partitionIndex: Int32
        /// The id of the leader broker.
        package var leaderID: Int32
        /// v7+: the leader epoch, or -1.
        package var leaderEpoch: Int32
        /// All brokers that host the partition.
        package var replicaNodes: [Int32]
        /// The brokers in sync with the leader.
        package var isrNodes: [Int32]
        /// v5+: the replicas that are offline.
        package var offlineReplicas: [Int32]

        package init(
            errorCode: Int16 = 0,
            partitionIndex: Int32,
            leaderID: Int32,
            leaderEpoch: Int32 = -1,
            replicaNodes: [Int32],
            isrNodes: [Int32],
            offlineReplicas: [Int32] = []
        ) {
            self.errorCode = errorCode
            self.partitionIndex = partitionIndex
            self.leaderID = leaderID
            self.leaderEpoch = leaderEpoch
            self.replicaNodes = replicaNodes
            self.isrNodes = isrNodes
            self.offlineReplicas = offlineReplicas
        }
    }

    /// One topic.
    package struct Topic: Sendable, Equatable {
        /// The topic's error code (e.g. UNKNOWN_TOPIC_OR_PARTITION, 3), or 0.
        package var errorCode: Int16
        /// The topic name; nil (v12+) only for a topic asked for by an id that does not exist.
        package var name: String?
        /// v10+: the topic id, zero when unknown.
        package var topicID: KafkaUUID
        /// v1+: whether the topic is internal (e.g. __consumer_offsets).
        package var isInternal: Bool
        /// The topic's partitions.
        package var partitions: [Partition]
        /// v8+: a bit field of the operations the client may perform on the topic.
        package var topicAuthorizedOperations: Int32

        package init(
            errorCode: Int16 = 0,
            name: String?,
            topicID: KafkaUUID = .zero,
            isInternal: Bool = false,
            partitions: [Partition],
            topicAuthorizedOperations: Int32 = Int32.min
        ) {
            self.errorCode = errorCode
            self.name = name
            self.topicID = topicID
            self.isInternal = isInternal
            self.partitions = partitions
            self.topicAuthorizedOperations = topicAuthorizedOperations
        }
    }

    /// v3+: how long the request was throttled for a quota, in milliseconds.
    package var throttleTimeMs: Int32
    /// The brokers of the cluster.
    package var brokers: [Broker]
    /// v2+: the cluster id, or nil.
    package var clusterID: String?
    /// v1+: the controller's broker id, or -1.
    package var controllerID: Int32
    /// The requested topics.
    package var topics: [Topic]
    /// v8–10: a bit field of the operations the client may perform on the cluster.
    package var clusterAuthorizedOperations: Int32

    package init(
        throttleTimeMs: Int32 = 0,
        brokers: [Broker],
        clusterID: String? = nil,
        controllerID: Int32 = -1,
        topics: [Topic],
        clusterAuthorizedOperations: Int32 = Int32.min
    ) {
        self.throttleTimeMs = throttleTimeMs
        self.brokers = brokers
        self.clusterID = clusterID
        self.controllerID = controllerID
        self.topics = topics
        self.clusterAuthorizedOperations = clusterAuthorizedOperations
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(brokers: [], topics: [])
        if version >= 3 { throttleTimeMs = try buffer.readKafkaInteger() }
        brokers = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            var broker = Broker(
                nodeID: try buffer.readKafkaInteger(),
                host: try buffer.readKafkaString(compact: compact),
                port: try buffer.readKafkaInteger()
            )
            if version >= 1 { broker.rack = try buffer.readKafkaNullableString(compact: compact) }
            if compact { try buffer.skipKafkaTaggedFields() }
            return broker
        }
        if version >= 2 { clusterID = try buffer.readKafkaNullableString(compact: compact) }
        if version >= 1 { controllerID = try buffer.readKafkaInteger() }
        topics = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            try Topic(from: &buffer, version: version)
        }
        if (8 ... 10).contains(version) { clusterAuthorizedOperations = try buffer.readKafkaInteger() }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        if version >= 3 { buffer.writeInteger(throttleTimeMs) }
        buffer.writeKafkaArray(brokers, compact: compact) { broker, buffer in
            buffer.writeInteger(broker.nodeID)
            buffer.writeKafkaString(broker.host, compact: compact)
            buffer.writeInteger(broker.port)
            if version >= 1 { buffer.writeKafkaNullableString(broker.rack, compact: compact) }
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if version >= 2 { buffer.writeKafkaNullableString(clusterID, compact: compact) }
        if version >= 1 { buffer.writeInteger(controllerID) }
        buffer.writeKafkaArray(topics, compact: compact) { topic, buffer in topic.write(to: &buffer, version: version) }
        if (8 ... 10).contains(version) { buffer.writeInteger(clusterAuthorizedOperations) }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}

extension MetadataResponse.Topic {
    init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        let compact = MetadataResponse.api.isFlexible(version)
        self.init(name: nil, partitions: [])
        errorCode = try buffer.readKafkaInteger()
        name = try version >= 12
            ? buffer.readKafkaNullableString(compact: compact)
            : buffer.readKafkaString(compact: compact)
        if version >= 10 { topicID = try buffer.readKafkaUUID() }
        if version >= 1 { isInternal = try buffer.readKafkaBool() }
        partitions = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            var partition = MetadataResponse.Partition(
                errorCode: try buffer.readKafkaInteger(),
                partitionIndex: try buffer.readKafkaInteger(),
                leaderID: try buffer.readKafkaInteger(),
                replicaNodes: [],
                isrNodes: []
            )
            if version >= 7 { partition.leaderEpoch = try buffer.readKafkaInteger() }
            partition.replicaNodes = try buffer.readKafkaInt32Array(compact: compact)
            partition.isrNodes = try buffer.readKafkaInt32Array(compact: compact)
            if version >= 5 { partition.offlineReplicas = try buffer.readKafkaInt32Array(compact: compact) }
            if compact { try buffer.skipKafkaTaggedFields() }
            return partition
        }
        if version >= 8 { topicAuthorizedOperations = try buffer.readKafkaInteger() }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    func write(to buffer: inout ByteBuffer, version: Int16) {
        let compact = MetadataResponse.api.isFlexible(version)
        buffer.writeInteger(errorCode)
        if version >= 12 {
            buffer.writeKafkaNullableString(name, compact: compact)
        } else {
            buffer.writeKafkaString(name ?? "", compact: compact)
        }
        if version >= 10 { buffer.writeKafkaUUID(topicID) }
        if version >= 1 { buffer.writeKafkaBool(isInternal) }
        buffer.writeKafkaArray(partitions, compact: compact) { partition, buffer in
            buffer.writeInteger(partition.errorCode)
            buffer.writeInteger(partition.partitionIndex)
            buffer.writeInteger(partition.leaderID)
            if version >= 7 { buffer.writeInteger(partition.leaderEpoch) }
            buffer.writeKafkaInt32Array(partition.replicaNodes, compact: compact)
            buffer.writeKafkaInt32Array(partition.isrNodes, compact: compact)
            if version >= 5 { buffer.writeKafkaInt32Array(partition.offlineReplicas, compact: compact) }
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if version >= 8 { buffer.writeInteger(topicAuthorizedOperations) }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
