import CRdKafka

extension KafkaConsumer {
    /// The partition ids of `topic`, ascending, from the cluster's metadata.
    ///
    /// - Throws: ``KafkaClientError`` with ``KafkaClientError/isUnknownTopic`` when the cluster
    ///   has no such topic (the consumer never creates topics), or with
    ///   ``KafkaClientError/isBrokerUnreachable`` when no broker answered within `timeout`.
    package func partitions(of topic: String, timeout: Duration = .seconds(10)) throws(KafkaClientError) -> [Int32] {
        let pointer = try open()
        guard let topicHandle = rd_kafka_topic_new(pointer, topic, nil) else {
            throw KafkaClientError(rd_kafka_last_error(), "cannot look up topic \"\(topic)\": \(String(cString: rd_kafka_err2str(rd_kafka_last_error())))")
        }
        defer { rd_kafka_topic_destroy(topicHandle) }
        var metadata: UnsafePointer<rd_kafka_metadata_t>?
        let error = rd_kafka_metadata(pointer, 0, topicHandle, &metadata, timeout.kafkaMilliseconds)
        guard error == RD_KAFKA_RESP_ERR_NO_ERROR, let metadata else {
            throw unreachable(error, doing: "get the metadata of topic \"\(topic)\"", within: timeout)
        }
        defer { rd_kafka_metadata_destroy(metadata) }
        let topics = UnsafeBufferPointer(start: metadata.pointee.topics, count: Int(metadata.pointee.topic_cnt))
        guard let entry = topics.first(where: { String(cString: $0.topic) == topic }) else {
            throw KafkaClientError(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART, "unknown topic \"\(topic)\": the metadata does not list it")
        }
        guard entry.err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            let reason = String(cString: rd_kafka_err2str(entry.err))
            if entry.err == RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART { throw KafkaClientError(entry.err, "unknown topic \"\(topic)\": \(reason)") }
            throw KafkaClientError(entry.err, "topic \"\(topic)\": \(reason)")
        }
        let partitions = UnsafeBufferPointer(start: entry.partitions, count: Int(entry.partition_cnt))
        return partitions.map(\.id).sorted()
    }

    /// The low and high watermarks of a partition, as the broker knows them now.
    ///
    /// - Throws: ``KafkaClientError`` for an unknown topic or partition, or an unreachable broker.
    package func watermarks(topic: String, partition: Int32, timeout: Duration = .seconds(10)) throws(KafkaClientError) -> KafkaWatermarks {
        let pointer = try open()
        var low: Int64 = -1
        var high: Int64 = -1
        let error = rd_kafka_query_watermark_offsets(pointer, topic, partition, &low, &high, timeout.kafkaMilliseconds)
        guard error == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw describe(error, doing: "query the watermarks of \(topic)[\(partition)]", within: timeout)
        }
        return KafkaWatermarks(low: low, high: high)
    }

    /// Where to start each of `partitions` of `topic` to read the messages whose timestamp is
    /// `timestamp` (milliseconds since the Unix epoch) or later: the earliest such offset, or
    /// ``KafkaOffset/latest`` when the partition has none yet. The result can be passed to
    /// ``assign(_:)``.
    ///
    /// - Throws: ``KafkaClientError`` for an unknown topic or partition, or an unreachable broker.
    package func offsets(
        forTimestamp timestamp: Int64, topic: String, partitions: [Int32], timeout: Duration = .seconds(10)
    ) throws(KafkaClientError) -> [KafkaAssignment] {
        let pointer = try open()
        guard !partitions.isEmpty else { return [] }
        return try withPartitionList(partitions.lazy.map { (topic, $0, timestamp) }) { list throws(KafkaClientError) in
            let error = rd_kafka_offsets_for_times(pointer, list, timeout.kafkaMilliseconds)
            guard error == RD_KAFKA_RESP_ERR_NO_ERROR else {
                throw describe(error, doing: "look up offsets by timestamp in \(topic)", within: timeout)
            }
            var result: [KafkaAssignment] = []
            for element in list.elements {
                guard element.err == RD_KAFKA_RESP_ERR_NO_ERROR else {
                    throw describe(element.err, doing: "look up offsets by timestamp in \(topic)[\(element.partition)]", within: timeout)
                }
                // Kafka answers -1 (the end) when no message is that recent.
                let offset: KafkaOffset = element.offset < 0 ? .latest : .exact(element.offset)
                result.append(KafkaAssignment(topic: topic, partition: element.partition, offset: offset))
            }
            return result
        }
    }

    /// An error for a request that failed with `code`, saying what was being done.
    func describe(_ code: rd_kafka_resp_err_t, doing action: String, within timeout: Duration) -> KafkaClientError {
        let error = KafkaClientError(code)
        if error.isBrokerUnreachable { return unreachable(code, doing: action, within: timeout) }
        return KafkaClientError(code, "cannot \(action): \(error.message)")
    }

    /// The error for a request no broker answered.
    func unreachable(_ code: rd_kafka_resp_err_t, doing action: String, within timeout: Duration) -> KafkaClientError {
        KafkaClientError(
            code, "cannot \(action): no answer from \(bootstrapServers) within \(timeout) (\(String(cString: rd_kafka_err2str(code))))")
    }
}
