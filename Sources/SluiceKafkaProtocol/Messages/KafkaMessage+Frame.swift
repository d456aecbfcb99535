import NIOCore

// Kafka protocol guide, "Common Request and Response Structure": every message is an INT32 size
// followed by that many bytes, a header and then the body.
extension KafkaRequest {
    /// Writes a whole request frame as a client sends it: size, request header (v1 or v2, as the
    /// API and version call for) and body.
    package func writeFrame(to buffer: inout ByteBuffer, version: Int16, correlationID: Int32, clientID: String?) {
        buffer.writeKafkaFrame {
            KafkaRequestHeader(api: Self.api, apiVersion: version, correlationID: correlationID, clientID: clientID).write(to: &$0)
            write(to: &$0, version: version)
        }
    }
}

extension KafkaResponse {
    /// Writes a whole response frame as the broker sends it: size, response header (v0 or v1, as
    /// the API and version call for) and body.
    package func writeFrame(to buffer: inout ByteBuffer, version: Int16, correlationID: Int32) {
        buffer.writeKafkaFrame {
            KafkaResponseHeader(correlationID: correlationID).write(to: &$0, headerVersion: Self.api.responseHeaderVersion(for: version))
            write(to: &$0, version: version)
        }
    }
}

extension ByteBuffer {
    /// Writes an INT32 size and then what `writeContent` writes, filling the size in afterwards so
    /// that nothing is copied.
    mutating func writeKafkaFrame(_ writeContent: (inout ByteBuffer) -> Void) {
        let sizeIndex = writerIndex
        writeInteger(Int32(0))
        writeContent(&self)
        setInteger(Int32(truncatingIfNeeded: writerIndex - sizeIndex - 4), at: sizeIndex)
    }
}
