import NIOCore

/// FindCoordinator response (key 10): the coordinator of each key. Versions 0–3 answer for one
/// key in top-level fields; v4 answers a list.
package struct FindCoordinatorResponse: KafkaResponse {
    package static let api = KafkaAPI.findCoordinator

    /// The coordinator of one key.
    package struct Coordinator: Sendable, Equatable {
        /// The key asked for; "" when read from versions 0–3, which do not echo it.
        package var key: String
        /// The coordinator's broker id, or -1.
        package var nodeID: Int32
        /// The coordinator's host name.
        package var host: String
        /// The coordinator's port, or -1.
        package var port: Int32
        /// The error code (e.g. COORDINATOR_NOT_AVAILABLE, 15), or 0.
        package var errorCode: Int16
        /// v1+: a message for the error, or nil.
        package var errorMessage: String?

        package init(key: String, nodeID: Int32, host: String, port: Int32, errorCode: Int16 = 0, errorMessage: String? = nil) {
            self.key = key
            self.nodeID = nodeID
            self.host = host
            self.port = port
            self.errorCode = errorCode
            self.errorMessage = errorMessage
        }
    }

    /// v1+: how long the request was throttled for a quota, in milliseconds.
    package var throttleTimeMs: Int32
    /// One coordinator per key. Versions 0–3 carry exactly one; only the first is written there.
    package var coordinators: [Coordinator]

    package init(throttleTimeMs: Int32 = 0, coordinators: [Coordinator]) {
        self.throttleTimeMs = throttleTimeMs
        self.coordinators = coordinators
    }

    package init(from buffer: inout ByteBuffer, version: Int16) throws(KafkaDecodingError) {
        try Self.api.checkSupported(version)
        let compact = Self.api.isFlexible(version)
        self.init(coordinators: [])
        if version >= 1 { throttleTimeMs = try buffer.readKafkaInteger() }
        if version >= 4 {
            coordinators = try buffer.readKafkaArray(compact: compact) { buffer throws(KafkaDecodingError) in
                let coordinator = Coordinator(
                    key: try buffer.readKafkaString(compact: compact),
                    nodeID: try buffer.readKafkaInteger(),
                    host: try buffer.readKafkaString(compact: compact),
                    port: try buffer.readKafkaInteger(),
                    errorCode: try buffer.readKafkaInteger(),
                    errorMessage: try buffer.readKafkaNullableString(compact: compact)
                )
                if compact { try buffer.skipKafkaTaggedFields() }
                return coordinator
            }
        } else {
            let errorCode: Int16 = try buffer.readKafkaInteger()
            let errorMessage = try version >= 1 ? buffer.readKafkaNullableString(compact: compact) : nil
            coordinators = [
                Coordinator(
                    key: "",
                    nodeID: try buffer.readKafkaInteger(),
                    host: try buffer.readKafkaString(compact: compact),
                    port: try buffer.readKafkaInteger(),
                    errorCode: errorCode,
                    errorMessage: errorMessage
                ),
            ]
        }
        if compact { try buffer.skipKafkaTaggedFields() }
    }

    package func write(to buffer: inout ByteBuffer, version: Int16) {
        assert(Self.api.supports(version))
        let compact = Self.api.isFlexible(version)
        if version >= 1 { buffer.writeInteger(throttleTimeMs) }
        if version >= 4 {
            buffer.writeKafkaArray(coordinators, compact: compact) { coordinator, buffer in
                buffer.writeKafkaString(coordinator.key, compact: compact)
                buffer.writeInteger(coordinator.nodeID)
                buffer.writeKafkaString(coordinator.host, compact: compact)
                buffer.writeInteger(coordinator.port)
                buffer.writeInteger(coordinator.errorCode)
                buffer.writeKafkaNullableString(coordinator.errorMessage, compact: compact)
                if compact { buffer.writeKafkaEmptyTaggedFields() }
            }
        } else {
            // No coordinator at all is answered as COORDINATOR_NOT_AVAILABLE (15).
            let coordinator = coordinators.first ?? Coordinator(key: "", nodeID: -1, host: "", port: -1, errorCode: 15)
            buffer.writeInteger(coordinator.errorCode)
            if version >= 1 { buffer.writeKafkaNullableString(coordinator.errorMessage, compact: compact) }
            buffer.writeInteger(coordinator.nodeID)
            buffer.writeKafkaString(coordinator.host, compact: compact)
            buffer.writeInteger(coordinator.port)
        }
        if compact { buffer.writeKafkaEmptyTaggedFields() }
    }
}
