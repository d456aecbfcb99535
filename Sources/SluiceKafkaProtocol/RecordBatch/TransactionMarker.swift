import NIOCore

/// A transaction marker: the control record that ends a producer's transaction in one partition
/// (KIP-98). It is alone in a control batch carrying the producer's id and epoch; its key is a
/// version (int16, 0) and a type (int16: 0 abort, 1 commit), its value a version (int16, 0) and
/// the coordinator epoch (int32).
package struct TransactionMarker: Hashable, Sendable {
    package var producerID: Int64
    package var producerEpoch: Int16
    /// Whether the transaction committed; false when it aborted.
    package var commits: Bool
    package var coordinatorEpoch: Int32

    package init(producerID: Int64, producerEpoch: Int16, commits: Bool, coordinatorEpoch: Int32 = 0) {
        self.producerID = producerID
        self.producerEpoch = producerEpoch
        self.commits = commits
        self.coordinatorEpoch = coordinatorEpoch
    }

    /// The control batch holding this marker, base offset 0 (the log sets it on append).
    package func batch(timestamp: Int64) -> ByteBuffer {
        var key = ByteBuffer()
        key.writeInteger(Int16(0))
        key.writeInteger(Int16(commits ? 1 : 0))
        var value = ByteBuffer()
        value.writeInteger(Int16(0))
        value.writeInteger(coordinatorEpoch)
        var encoder = RecordBatchEncoder()
        encoder.producerID = producerID
        encoder.producerEpoch = producerEpoch
        encoder.isControl = true
        var buffer = ByteBuffer()
        encoder.encode([KafkaRecord(offset: 0, timestamp: timestamp, key: key, value: value)], into: &buffer)
        return buffer
    }

    /// The marker in a stored control batch, nil when `batch` holds no readable one.
    package init?(controlBatch batch: ByteBuffer) {
        guard let view = try? RecordBatchValidator(origin: .log).validateBatch(in: batch, at: batch.readerIndex),
            view.header.isControl, let record = try? view.records(in: batch).first, var key = record.key,
            key.readInteger(as: Int16.self) != nil, let type = key.readInteger(as: Int16.self), type == 0 || type == 1
        else { return nil }
        var value = record.value ?? ByteBuffer()
        _ = value.readInteger(as: Int16.self)
        self.init(
            producerID: view.header.producerID, producerEpoch: view.header.producerEpoch, commits: type == 1,
            coordinatorEpoch: value.readInteger(as: Int32.self) ?? 0)
    }
}
