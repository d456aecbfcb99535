import NIOCore

/// Fetch response (key 1): per partition, the high watermark and record batches from the fetch
/// offset on.
///
/// The records are carried as bytes: a slice of the response buffer when read, the log's batches
/// when written. The replication-only tagged fields of v12+ partitions (diverging epoch, current
/// leader, snapshot id) are skipped when read and not written.
package struct FetchResponse: KafkaResponse {
    package static let api = KafkaAPI.fetch

    /// v4+: a transaction aborted within the returned records, for read-committed consumers.
    package struct AbortedTransaction: Sendable, Equatable {
        /// The producer id of the aborted transaction.
        package var producerID: Int64
        /// The first offset of the aborted transaction.
        package var firstOffset: Int64

        package init(producerID: Int64, firstOffset: Int64) {
            self.producerID = producerID
            self.firstOffset = firstOffset
        }
    }

    /// The data for one partition.
    package struct Partition: Sendable, Equatable {
        /// The partition index.
        package var partitionIndex: Int32
        /// The error code, or 0.
        package var errorCode: Int16
        /// The offset after the last record every in-sync replica has.
        package var highWatermark: Int64
        /// v4+: the offset after the last record of a decided transaction, or -1.
        package var lastStableOffset: Int64
        /// v5+: the first offset in the log, or -1.
        package var logStartOffset: Int64
        /// v4+: the aborted transactions among the records, or nil.
        package var abortedTransactions: [AbortedTransaction]?
        /// v11+: the replica the consumer should read from instead (KIP-392), or -1.
        package var preferredReadReplica: Int32
        /// The record batches, or nil.
        package var records: ByteBuffer?

        package init(
            partitionIndex: Int32,
            errorCode: Int16 = 0,
            highWatermark: Int64,
            lastStableOffset: Int64 = -1,
            logStartOffset: Int64 = -1,
            abortedTransactions: [AbortedTransaction]? = nil,
            preferredReadReplica: Int32 = -1,
            records: ByteBuffer?
        ) {
            self.partitionIndex = partitionIndex
            self.errorCode = errorCode
            self.highWatermark = highWatermark
            self.lastStableOffset = lastStableOffset
            self.logStartOffset = logStartOffset
            self.abortedTransactions = abortedTransactions
            self.preferredReadReplica = preferredReadReplica
            self.records = records
        }
    }

    /// The data for one topic.
    package struct Topic: Sendable, Equatable {
        /// The topic name.
        package var topic: String
        /// The partitions.
        package var partitions: [Partition]

        package init(topic: String, partitions: [Partition]) {
            self.topic = topic
            self.partitions = partitions
        }
    }

    /// v1+: how long the request was throttled for a quota, in milliseconds.
    package var throttleTimeMs: Int32
    /// v7+: the top-level error code (fetch session errors), or 0.
    package var errorCode: Int16
    /// v7+: the fetch session id, or 0 when there is no session.
    package var sessionID: Int32
    /// The data, per topic.
    package var responses: [Topic]

    package init(throttleTimeMs: Int32 = 0, errorCode: Int16 = 0, sessionID: Int32 = 0, responses: [Topic]) {
        self.throttleTimeMs = throttleTimeMs
        self.errorCode = errorCode
        self.sessionID = sessionID
        self.responses = responses
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(responses: [])
        throttleTimeMs = try buffer.readKafkaInteger()
        if version >= 7 {
            errorCode = try buffer.readKafkaInteger()
            sessionID = try buffer.readKafkaInteger()
        }
        responses = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
            let name = try buffer.readKafkaString(compact: compact)
            let partitions = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
                try Partition(from: &buffer, version: version)
            }
            if compact { try buffer.skipKafkaTaggedFields() }
            return Topic(topic: name, partitions: partitions)
        }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        var spliced: [Splice] = []
        write(to: &buffer, version: version, splicing: .max, spliced: &spliced)
    }

    /// Where a partition's records were left out of the written response: they belong at `at`
    /// (a writer index of the buffer, past their length).
    package struct Splice {
        package var at: Int
        package var records: ByteBuffer
    }

    /// Writes the response as ``write(to:version:)`` does, except that of each partition's
    /// records of `splicing` bytes or more only the length is written: `spliced` gets the records
    /// and where they belong, in order, to be sent between the buffer's pieces (a fetch's records
    /// leave the broker without being copied into the frame).
    package func write(to buffer: inout ByteBuffer, version: Int16, splicing: Int, spliced: inout [Splice]) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        buffer.writeInteger(throttleTimeMs)
        if version >= 7 {
            buffer.writeInteger(errorCode)
            buffer.writeInteger(sessionID)
        }
        buffer.writeKafkaArray(responses, compact: compact) { topic, buffer in
            buffer.writeKafkaString(topic.topic, compact: compact)
            buffer.writeKafkaArray(topic.partitions, compact: compact) { partition, buffer in
                partition.write(to: &buffer, version: version, splicing: splicing, spliced: &spliced)
            }
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}

extension FetchResponse.Partition {
    init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        let compact = FetchResponse.api.isFlexible(version)
        // Supported versions start at 4: the last stable offset and aborted transactions are there.
        self.init(
            partitionIndex: try buffer.readKafkaInteger(),
            errorCode: try buffer.readKafkaInteger(),
            highWatermark: try buffer.readKafkaInteger(),
            lastStableOffset: try buffer.readKafkaInteger(),
            records: nil
        )
        if version >= 5 { logStartOffset = try buffer.readKafkaInteger() }
        abortedTransactions = try buffer.readKafkaNullableArray(compact: compact) { buffer throws(KafkaDecodingError) in
            let aborted = FetchResponse.AbortedTransaction(
                producerID: try buffer.readKafkaInteger(),
                firstOffset: try buffer.readKafkaInteger()
            )
            if compact { try buffer.skipKafkaTaggedFields() }
            return aborted
        }
        if version >= 11 { preferredReadReplica = try buffer.readKafkaInteger() }
        records = try buffer.readKafkaNullableBytes(compact: compact)
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    func write(to buffer: inout ByteBuffer, version: Int16, splicing: Int, spliced: inout [FetchResponse.Splice]) {
        let compact = FetchResponse.api.isFlexible(version)
        buffer.writeInteger(partitionIndex)
        buffer.writeInteger(errorCode)
        buffer.writeInteger(highWatermark)
        buffer.writeInteger(lastStableOffset)
        if version >= 5 { buffer.writeInteger(logStartOffset) }
        buffer.writeKafkaNullableArray(abortedTransactions, compact: compact) { aborted, buffer in
            buffer.writeInteger(aborted.producerID)
            buffer.writeInteger(aborted.firstOffset)
            if compact { buffer.writeKafkaEmptyTaggedFields() }
        }
        if version >= 11 { buffer.writeInteger(preferredReadReplica) }
        if let records, records.readableBytes >= splicing {
            buffer.writeKafkaDataLength(records.readableBytes, compact: compact, wide: true)
            spliced.append(FetchResponse.Splice(at: buffer.writerIndex, records: records))
        } else {
            buffer.writeKafkaNullableBytes(records, compact: compact)
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
