import SluiceCore
import SluiceDataflow

/// RisingWave's `connector = 'blackhole'`: takes every row and keeps none. It measures what a
/// pipeline costs without its sink, and tests the sink machinery (prepare, commit, recovery)
/// with nothing outside the process.
package final class BlackholeSink: StreamSink {
    package static let entry = ConnectorEntry(name: "blackhole", makeSink: { description, _ in BlackholeSink(description) })

    package init(_ description: SinkDescription) {}

    package func write(_ chunk: StreamChunk) throws(SluiceError) {}

    package func prepare(epoch: UInt64) throws(SluiceError) -> [UInt8]? { nil }

    package func commit(_ prepared: [PreparedEpoch]) throws(SluiceError) -> SinkCommitSummary { SinkCommitSummary() }

    package func lastCommittedEpoch() throws(SluiceError) -> UInt64? { nil }

    package func close() {}
}
