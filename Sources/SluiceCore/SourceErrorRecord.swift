/// One row a source connector could not decode: where it was, why, and how it began. Kept by
/// the connector (SluiceDataflow's `SourceStatistics`) and shown by `sluice_source_errors`.
package struct SourceErrorRecord: Sendable, Equatable {
    /// The Kafka partition, or -1 where there is none.
    package var partition: Int32
    /// The Kafka offset, or the row's number where there is no offset.
    package var offset: Int64
    package var message: String
    /// The first bytes of the payload, as text (invalid UTF-8 replaced).
    package var payload: String
    /// When it was rejected, in microseconds since 1970.
    package var rejectedAt: Int64

    package init(partition: Int32, offset: Int64, message: String, payload: String, rejectedAt: Int64) {
        self.partition = partition
        self.offset = offset
        self.message = message
        self.payload = payload
        self.rejectedAt = rejectedAt
    }
}
