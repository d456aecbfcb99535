import CRdKafka
import SluiceCore

/// Owns one `rd_kafka_t` and the callback context its opaque points to; destroys both once.
///
/// Not `Sendable`: the owning client uses it from one thread.
final class KafkaHandle {
    /// The `rd_kafka_t`; nil once destroyed.
    private(set) var pointer: OpaquePointer?
    private let context: Unmanaged<KafkaCallbackContext>

    /// Creates a handle of `kind` with `properties` applied in order (later ones win).
    ///
    /// - Throws: `_INVALID_ARG` with librdkafka's explanation when a property is unknown or its
    ///   value invalid, or when librdkafka rejects the configuration as a whole.
    init(
        kind: rd_kafka_type_t, properties: [(key: String, value: String)], callbacks: KafkaClientCallbacks, deliveryReports: Bool = false,
        statistics: Bool = false
    ) throws(KafkaClientError) {
        guard let configuration = rd_kafka_conf_new() else {
            throw KafkaClientError(RD_KAFKA_RESP_ERR__CRIT_SYS_RESOURCE, "could not allocate a librdkafka configuration")
        }
        var errorText = [CChar](repeating: 0, count: 512)
        do {
            try Self.apply(properties, to: configuration)
        } catch {
            rd_kafka_conf_destroy(configuration)
            throw error
        }
        let context = Unmanaged.passRetained(KafkaCallbackContext(callbacks))
        context.takeUnretainedValue().install(on: configuration, deliveryReports: deliveryReports, statistics: statistics)
        rd_kafka_conf_set_opaque(configuration, context.toOpaque())
        // On success the handle owns the configuration; on failure it is still ours.
        guard let handle = rd_kafka_new(kind, configuration, &errorText, errorText.count) else {
            rd_kafka_conf_destroy(configuration)
            context.release()
            throw KafkaClientError(RD_KAFKA_RESP_ERR__INVALID_ARG, Self.string(errorText))
        }
        self.pointer = handle
        self.context = context
    }

    var callbackContext: KafkaCallbackContext { context.takeUnretainedValue() }

    /// Checks `properties` as ``init(kind:properties:callbacks:deliveryReports:statistics:)``
    /// would, without making a client.
    static func check(_ properties: [(key: String, value: String)]) throws(KafkaClientError) {
        guard let configuration = rd_kafka_conf_new() else {
            throw KafkaClientError(RD_KAFKA_RESP_ERR__CRIT_SYS_RESOURCE, "could not allocate a librdkafka configuration")
        }
        defer { rd_kafka_conf_destroy(configuration) }
        try apply(properties, to: configuration)
    }

    private static func apply(_ properties: [(key: String, value: String)], to configuration: OpaquePointer) throws(KafkaClientError) {
        var errorText = [CChar](repeating: 0, count: 512)
        for (key, value) in properties {
            let result = rd_kafka_conf_set(configuration, key, value, &errorText, errorText.count)
            if result != RD_KAFKA_CONF_OK {
                // librdkafka names the property it resolved, which for an alias ("linger.ms")
                // is not the one the caller wrote. A secret's value is not repeated.
                let isSecret = SecretOptions.isSecret(key)
                let reason = SecretOptions.maskingSecrets(in: Self.string(errorText), values: isSecret ? [value] : [])
                throw KafkaClientError(RD_KAFKA_RESP_ERR__INVALID_ARG, "property \(key)=\(isSecret ? SecretOptions.mask : URLCredentials.masking(in: value, inProse: false)): \(reason)")
            }
        }
    }

    /// Destroys the handle (blocking until librdkafka's threads end) and then the context the
    /// callbacks used. Later calls do nothing.
    func destroy(flags: Int32 = 0) {
        guard let pointer else { return }
        self.pointer = nil
        rd_kafka_destroy_flags(pointer, flags)
        context.release()
    }

    deinit { destroy() }

    private static func string(_ text: [CChar]) -> String {
        text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}

/// Builds a topic-partition list, hands it to `body` and destroys it.
func withPartitionList<Result>(
    _ entries: some Collection<(topic: String, partition: Int32, offset: Int64)>,
    _ body: (UnsafeMutablePointer<rd_kafka_topic_partition_list_t>) throws(KafkaClientError) -> Result
) throws(KafkaClientError) -> Result {
    let list = rd_kafka_topic_partition_list_new(Int32(clamping: entries.count))!
    defer { rd_kafka_topic_partition_list_destroy(list) }
    for entry in entries {
        rd_kafka_topic_partition_list_add(list, entry.topic, entry.partition).pointee.offset = entry.offset
    }
    return try body(list)
}

extension UnsafeMutablePointer<rd_kafka_topic_partition_list_t> {
    /// The list's elements in order.
    var elements: UnsafeMutableBufferPointer<rd_kafka_topic_partition_t> {
        UnsafeMutableBufferPointer(start: pointee.elems, count: Int(pointee.cnt))
    }
}
