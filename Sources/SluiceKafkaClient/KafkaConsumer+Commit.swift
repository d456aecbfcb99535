import CRdKafka

extension KafkaConsumer {
    /// Commits `offsets` for consumer group `group` without joining it (generation -1, no
    /// member id, as Kafka allows for groups without members), so lag tools such as
    /// `kafka-consumer-groups` see how far a source has read. Each offset is the next one to
    /// read: the last processed message's offset plus one.
    ///
    /// Commits to a group other than the consumer's own `group.id` go through a second
    /// librdkafka handle configured with that `group.id`, created on first use and kept.
    ///
    /// - Throws: ``KafkaClientError`` when the commit or one of its partitions fails, or when
    ///   no answer came within `timeout` (the commit may still happen later).
    package func commit(_ offsets: [KafkaPartitionOffset], group: String, timeout: Duration = .seconds(10)) throws(KafkaClientError) {
        guard !offsets.isEmpty else { return }
        let pointer = try handle(for: group)
        try withPartitionList(offsets.lazy.map { ($0.topic, $0.partition, $0.offset) }) { list throws(KafkaClientError) in
            // The commit's result comes on a queue of our own, so waiting for it has a bound
            // (rd_kafka_commit with async=0 would wait for a coordinator indefinitely).
            let results = rd_kafka_queue_new(pointer)
            defer { rd_kafka_queue_destroy(results) }
            let error = rd_kafka_commit_queue(pointer, list, results, nil, nil)
            guard error == RD_KAFKA_RESP_ERR_NO_ERROR else { throw describe(error, doing: "commit offsets for group \"\(group)\"", within: timeout) }
            guard let event = rd_kafka_queue_poll(results, timeout.kafkaMilliseconds) else {
                throw unreachable(RD_KAFKA_RESP_ERR__TIMED_OUT, doing: "commit offsets for group \"\(group)\"", within: timeout)
            }
            defer { rd_kafka_event_destroy(event) }
            let eventError = rd_kafka_event_error(event)
            guard eventError == RD_KAFKA_RESP_ERR_NO_ERROR else {
                throw KafkaClientError(eventError, "cannot commit offsets for group \"\(group)\": \(String(cString: rd_kafka_event_error_string(event)))")
            }
            if let committed = rd_kafka_event_topic_partition_list(event) {
                for element in committed.elements where element.err != RD_KAFKA_RESP_ERR_NO_ERROR {
                    let topic = String(cString: element.topic)
                    throw describe(element.err, doing: "commit the offset of \(topic)[\(element.partition)] for group \"\(group)\"", within: timeout)
                }
            }
        }
    }

    /// The offsets `group` has committed for `partitions` of `topic`, in the order asked; nil
    /// for a partition the group has committed nothing for.
    ///
    /// - Throws: ``KafkaClientError`` when the broker cannot be asked within `timeout`.
    package func committedOffsets(
        group: String, topic: String, partitions: [Int32], timeout: Duration = .seconds(10)
    ) throws(KafkaClientError) -> [Int64?] {
        guard !partitions.isEmpty else { return [] }
        let pointer = try handle(for: group)
        return try withPartitionList(partitions.lazy.map { (topic, $0, -1001) }) { list throws(KafkaClientError) in
            let error = rd_kafka_committed(pointer, list, timeout.kafkaMilliseconds)
            guard error == RD_KAFKA_RESP_ERR_NO_ERROR else {
                throw describe(error, doing: "fetch the offsets committed by group \"\(group)\"", within: timeout)
            }
            return try list.elements.map { element throws(KafkaClientError) -> Int64? in
                guard element.err == RD_KAFKA_RESP_ERR_NO_ERROR else {
                    throw describe(element.err, doing: "fetch the offset of \(topic)[\(element.partition)] committed by \"\(group)\"", within: timeout)
                }
                // RD_KAFKA_OFFSET_INVALID (-1001): nothing committed.
                return element.offset < 0 ? nil : element.offset
            }
        }
    }

    /// The handle whose `group.id` is `group`: this consumer's own, or a commit-only one.
    private func handle(for group: String) throws(KafkaClientError) -> OpaquePointer {
        let own = try open()
        if group == groupID { return own }
        if let committer = committers[group]?.pointer {
            // Serve what its main queue collected (errors, logs) since the last use.
            rd_kafka_poll(committer, 0)
            return committer
        }
        let committer = try KafkaHandle(
            kind: RD_KAFKA_CONSUMER, properties: Self.configuration(bootstrapServers, properties, group: group), callbacks: callbacks)
        committers[group] = committer
        return committer.pointer!
    }
}
