import NIOCore

/// Fetch request (key 1): a consumer, or a follower replica, asks for records from offsets on,
/// in an incremental fetch session (KIP-227) or a full one.
package struct FetchRequest: KafkaRequest {
    package typealias Response = FetchResponse
    package static let api = KafkaAPI.fetch

    /// Where to read one partition from.
    package struct Partition: Sendable, Equatable {
        /// The partition index.
        package var partition: Int32
        /// v9+: the leader epoch the client knows, or -1 (KIP-320).
        package var currentLeaderEpoch: Int32
        /// The offset to read from.
        package var fetchOffset: Int64
        /// v12+: the epoch of the last fetched record, or -1 (followers only).
        package var lastFetchedEpoch: Int32
        /// v5+: the follower's log start offset, or -1 for consumers.
        package var logStartOffset: Int64
        /// The most bytes to return for this partition.
        package var partitionMaxBytes: Int32

        package init(
            partition: Int32,
            currentLeaderEpoch: Int32 = -1,
            fetchOffset: Int64,
            lastFetchedEpoch: Int32 = -1,
            logStartOffset: Int64 = -1,
            partitionMaxBytes: Int32
        ) {
            self.partition = partition
            self.currentLeaderEpoch = currentLeaderEpoch
            self.fetchOffset = fetchOffset
            self.lastFetchedEpoch = lastFetchedEpoch
            self.logStartOffset = logStartOffset
            self.partitionMaxBytes = partitionMaxBytes
        }
    }

    /// The partitions to read of one topic.
    package struct Topic: Sendable, Equatable {
        /// The topic name.
        package var topic: String
        /// The partitions to read.
        package var partitions: [Partition]

        package init(topic: String, partitions: [Partition]) {
            self.topic = topic
            self.partitions = partitions
        }
    }

    /// v7+: partitions an incremental fetch session should stop reading.
    package struct ForgottenTopic: Sendable, Equatable {
        /// The topic name.
        package var topic: String
        /// The partition indexes to forget.
        package var partitions: [Int32]

        package init(topic: String, partitions: [Int32]) {
            self.topic = topic
            self.partitions = partitions
        }
    }

    /// v12+ (tagged field 0): the cluster id the client believes it talks to, or nil.
    package var clusterID: String?
    /// The follower's broker id, or -1 for a consumer.
    package var replicaID: Int32
    /// How long to wait for `minBytes`, in milliseconds.
    package var maxWaitMs: Int32
    /// The fewest bytes worth answering with before `maxWaitMs` runs out.
    package var minBytes: Int32
    /// v3+: the most bytes to return in all (the first batch is returned whatever its size).
    package var maxBytes: Int32
    /// v4+: 0 reads uncommitted records; 1 reads only committed ones (up to the last stable offset).
    package var isolationLevel: Int8
    /// v7+: the fetch session id, or 0.
    package var sessionID: Int32
    /// v7+: the fetch session epoch: -1 for a full fetch without a session, 0 to open one.
    package var sessionEpoch: Int32
    /// The partitions to read.
    package var topics: [Topic]
    /// v7+: partitions to drop from the fetch session.
    package var forgottenTopicsData: [ForgottenTopic]
    /// v11+: the rack of the consumer, for reading from a close follower (KIP-392), or "".
    package var rackID: String

    package init(
        clusterID: String? = nil,
        replicaID: Int32 = -1,
        maxWaitMs: Int32,
        minBytes: Int32,
        maxBytes: Int32 = Int32.max,
        isolationLevel: Int8 = 0,
        sessionID: Int32 = 0,
        sessionEpoch: Int32 = -1,
        topics: [Topic],
        forgottenTopicsData: [ForgottenTopic] = [],
        rackID: String = ""
    ) {
        self.clusterID = clusterID
        self.replicaID = replicaID
        self.maxWaitMs = maxWaitMs
        self.minBytes = minBytes
        self.maxBytes = maxBytes
        self.isolationLevel = isolationLevel
        self.sessionID = sessionID
        self.sessionEpoch = sessionEpoch
        self.topics = topics
        self.forgottenTopicsData = forgottenTopicsData
        self.rackID = rackID
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        // Supported versions start at 4: max bytes (v3+) and isolation level (v4+) are always there.
        self.init(
            replicaID: try buffer.readKafkaInteger(),
            maxWaitMs: try buffer.readKafkaInteger(),
            minBytes: try buffer.readKafkaInteger(),
            maxBytes: try buffer.readKafkaInteger(),
            isolationLevel: try buffer.readKafkaInteger(),
            topics: []
        )
        if version >= 7 {
            sessionID = try buffer.readKafkaInteger()
            sessionEpoch = try buffer.readKafkaInteger()
        }
        topics = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            let name = try buffer.readKafkaString(compact: compact)
            let partitions = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
                var partition = Partition(partition: try buffer.readKafkaInteger(), fetchOffset: 0, partitionMaxBytes: 0)
                if version >= 9 { partition.currentLeaderEpoch = try buffer.readKafkaInteger() }
                partition.fetchOffset = try buffer.readKafkaInteger()
                if version >= 12 { partition.lastFetchedEpoch = try buffer.readKafkaInteger() }
                if version >= 5 { partition.logStartOffset = try buffer.readKafkaInteger() }
                partition.partitionMaxBytes = try buffer.readKafkaInteger()
                if compact { try buffer.skipKafkaTaggedFields() }
                return partition
            }
            if compact { try buffer.skipKafkaTaggedFields() }
            return Topic(topic: name, partitions: partitions)
        }
        if version >= 7 {
            forgottenTopicsData = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
                let forgotten = ForgottenTopic(
                    topic: try buffer.readKafkaString(compact: compact),
                    partitions: try buffer.readKafkaInt32Array(compact: compact)
                )
                if compact { try buffer.skipKafkaTaggedFields() }
                return forgotten
            }
        }
        if version >= 11 { rackID = try buffer.readKafkaString(compact: compact) }
        if compact {
            var clusterID: String?
            try buffer.readKafkaTaggedFields { tag, field throws(KafkaDecodingError) in
                if tag == 0 { clusterID = try field.readKafkaNullableString(compact: true) }
            }
            self.clusterID = clusterID
        }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeInteger(replicaID)
        buffer.writeInteger(maxWaitMs)
        buffer.writeInteger(minBytes)
        buffer.writeInteger(maxBytes)
        buffer.writeInteger(isolationLevel)
        if version >= 7 {
            buffer.writeInteger(sessionID)
            buffer.writeInteger(sessionEpoch)
        }
        buffer.writeKafkaArray(topics, compact: compact) { topic, buffer in
            buffer.writeKafkaString(topic.topic, compact: compact)
            buffer.writeKafkaArray(topic.partitions, compact: compact) { partition, buffer in
                buffer.writeInteger(partition.partition)
                if version >= 9 { buffer.writeInteger(partition.currentLeaderEpoch) }
                buffer.writeInteger(partition.fetchOffset)
                if version >= 12 { buffer.writeInteger(partition.lastFetchedEpoch) }
                if version >= 5 { buffer.writeInteger(partition.logStartOffset) }
                buffer.writeInteger(partition.partitionMaxBytes)
                if compact { buffer.writeKafkaEmptyTaggedFields() }
            }
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if version >= 7 {
            buffer.writeKafkaArray(forgottenTopicsData, compact: compact) { forgotten, buffer in
                buffer.writeKafkaString(forgotten.topic, compact: compact)
                buffer.writeKafkaInt32Array(forgotten.partitions, compact: compact)
                if compact { buffer.writeKafkaEmptyTaggedFields() }
            }
        }
        if version >= 11 { buffer.writeKafkaString(rackID, compact: compact) }
        if compact {
            // A tagged field is written only when it differs from its default (null).
            if let clusterID {
                buffer.writeKafkaTaggedFields([(0, { $0.writeKafkaNullableString(clusterID, compact: true) })])
            } else {
                buffer.writeKafkaEmptyTaggedFields()
            }
        }
    }
}
