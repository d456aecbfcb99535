import SluiceCore

/// A sink's side of exactly-once delivery, in two phases per checkpoint (Flink's
/// `TwoPhaseCommitSinkFunction`, RisingWave's sink coordinator):
/// - ``prepare(epoch:)`` when the checkpoint barrier of `epoch` reaches the sink: everything the
///   sink received up to the barrier is made ready but not visible (data files written, a Kafka
///   transaction flushed, rows staged in a Postgres transaction), and described by a
///   ``PreparedEpoch`` that the checkpoint stores;
/// - ``commit(_:)`` once that checkpoint is durable: the prepared data becomes visible;
/// - ``abort(_:)`` when the checkpoint failed: the prepared data is dropped.
///
/// On recovery the last checkpoint's ``PreparedEpoch`` is committed again, so a commit must be
/// idempotent: the sink records the epoch with the data (Iceberg snapshots carry the sink id
/// and epoch in their summary; a Postgres sink writes the epoch in the same transaction; Kafka
/// transactions are fenced by their transactional id) and recognises an epoch already done.
/// ``SinkCommitStateMachine`` decides which of the three to call when.
package protocol TwoPhaseSink: AnyObject, Sendable {
    func prepare(epoch: UInt64) throws(SluiceError) -> PreparedEpoch
    func commit(_ prepared: PreparedEpoch) throws(SluiceError)
    func abort(_ prepared: PreparedEpoch)
}

/// What a sink prepared for one epoch, kept in the checkpoint until committed: enough for the
/// sink to commit it again after a crash (file names, a transaction id), as opaque bytes.
package struct PreparedEpoch: Sendable, Equatable, Hashable {
    package var sinkID: Int
    package var epoch: UInt64
    package var token: [UInt8]

    package init(sinkID: Int, epoch: UInt64, token: [UInt8]) {
        self.sinkID = sinkID
        self.epoch = epoch
        self.token = token
    }
}
