import NIOCore

/// The header that starts every Kafka response, after its INT32 size (Kafka's
/// ResponseHeader.json): the request's correlation id, and in version 1 a tagged-field section.
/// `KafkaAPI.responseHeaderVersion(for:)` says which version a response uses.
package struct KafkaResponseHeader: Sendable, Equatable {
    /// The correlation id of the request this response answers.
    package var correlationID: Int32

    package init(correlationID: Int32) {
        self.correlationID = correlationID
    }

    /// Reads a header of version 0 or 1.
    package init(from buffer: inout ByteBuffer, headerVersion: Int16) throws(KafkaDecodingError) {
        correlationID = try buffer.readKafkaInteger()
        if headerVersion >= 1 {
            try buffer.skipKafkaTaggedFields()
        }
    }

    /// Writes the header as version 0 or 1.
    package func write(to buffer: inout ByteBuffer, headerVersion: Int16) {
        buffer.writeInteger(correlationID)
        if headerVersion >= 1 {
            buffer.writeKafkaEmptyTaggedFields()
        }
    }
}
