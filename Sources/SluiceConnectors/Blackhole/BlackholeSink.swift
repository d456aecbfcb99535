import SluiceCore
import SluiceDataflow

/// RisingWave's `connector = 'blackhole'`: takes every row and keeps none. It measures what a
/// pipeline costs without its sink, and tests the sink machinery (prepare, commit, recovery)
/// with nothing outside the process. Its rows count as committed once the checkpoint that took
/// them is durable, as any sink's do.
package final class BlackholeSink: StreamSink, @unchecked Sendable {
    package static let entry = ConnectorEntry(name: "blackhole", makeSink: { description, _ in BlackholeSink(description) })
    /// Every checkpoint commits its rows.
    package var defaultCommitInterval: Int { 1 }
    /// Rows taken since the last prepare (the fragment's thread only).
    private var taken = 0

    package init(_ description: SinkDescription) {}

    package func write(_ chunk: StreamChunk) throws(SluiceError) {
        taken += chunk.count
    }

    /// The epoch's row count (little-endian), nil when it took none.
    package func prepare(epoch: UInt64) throws(SluiceError) -> [UInt8]? {
        guard taken > 0 else { return nil }
        defer { taken = 0 }
        return withUnsafeBytes(of: Int64(taken).littleEndian) { Array($0) }
    }

    package func commit(_ prepared: [PreparedEpoch]) throws(SluiceError) -> SinkCommitSummary {
        var rows = 0
        for entry in prepared where entry.token.count == 8 {
            rows += Int(entry.token.withUnsafeBytes { Int64(littleEndian: $0.loadUnaligned(as: Int64.self)) })
        }
        return SinkCommitSummary(rows: rows)
    }

    package func lastCommittedEpoch() throws(SluiceError) -> UInt64? { nil }

    package func close() {}
}
