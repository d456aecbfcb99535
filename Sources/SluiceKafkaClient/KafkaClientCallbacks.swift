import CRdKafka
import Synchronization

/// One line of librdkafka's log: a syslog level (3 error … 7 debug), a facility ("FAIL",
/// "CONFWARN", …) and the text.
package struct KafkaLogMessage: Sendable, Hashable {
    package var level: Int32
    package var facility: String
    package var message: String
}

/// Where a client's logs and client-level errors go.
///
/// Without a `log` handler librdkafka prints its log lines to standard error, as it does by
/// default. Without an `error` handler client-level errors (all brokers down, authentication
/// failures) reach a consumer as error entries of a polled batch and a producer's log. The
/// handlers may be called on librdkafka's internal threads.
package struct KafkaClientCallbacks: Sendable {
    package var log: (@Sendable (KafkaLogMessage) -> Void)?
    package var error: (@Sendable (KafkaClientError) -> Void)?

    package init(log: (@Sendable (KafkaLogMessage) -> Void)? = nil, error: (@Sendable (KafkaClientError) -> Void)? = nil) {
        self.log = log
        self.error = error
    }
}

/// What a producer's delivery reports said so far.
package struct KafkaDeliveryReport: Sendable, Hashable {
    /// Messages the broker acknowledged.
    package var succeeded: Int
    /// Messages that failed for good (after librdkafka's retries).
    package var failed: Int
    /// The error of the most recent failed message.
    package var lastError: KafkaClientError?

    package init(succeeded: Int, failed: Int, lastError: KafkaClientError? = nil) {
        self.succeeded = succeeded
        self.failed = failed
        self.lastError = lastError
    }
}

/// The state librdkafka's C callbacks reach through the handle's opaque pointer: the user's
/// handlers and the delivery counts. Retained by ``KafkaHandle`` until the handle is destroyed.
final class KafkaCallbackContext: Sendable {
    let callbacks: KafkaClientCallbacks
    let succeeded = Atomic<Int>(0)
    let failed = Atomic<Int>(0)
    let lastDeliveryError = Mutex<KafkaClientError?>(nil)
    /// The latest statistics librdkafka emitted (JSON), when they were asked for.
    let latestStatistics = Mutex<String?>(nil)

    init(_ callbacks: KafkaClientCallbacks) {
        self.callbacks = callbacks
    }

    var deliveryReport: KafkaDeliveryReport {
        KafkaDeliveryReport(
            succeeded: succeeded.load(ordering: .relaxed), failed: failed.load(ordering: .relaxed),
            lastError: lastDeliveryError.withLock { $0 })
    }

    /// Installs the C callbacks on `configuration` that route to this context.
    func install(on configuration: OpaquePointer, deliveryReports: Bool, statistics: Bool = false) {
        if callbacks.log != nil { rd_kafka_conf_set_log_cb(configuration, kafkaLogCallback) }
        if callbacks.error != nil { rd_kafka_conf_set_error_cb(configuration, kafkaErrorCallback) }
        if deliveryReports { rd_kafka_conf_set_dr_msg_cb(configuration, kafkaDeliveryCallback) }
        if statistics { rd_kafka_conf_set_stats_cb(configuration, kafkaStatisticsCallback) }
    }

    /// The context of `handle`, set as its opaque by ``KafkaHandle``.
    static func of(_ handle: OpaquePointer?) -> KafkaCallbackContext? {
        guard let handle, let opaque = rd_kafka_opaque(handle) else { return nil }
        return Unmanaged<KafkaCallbackContext>.fromOpaque(opaque).takeUnretainedValue()
    }
}

// The C callbacks capture nothing; they find their context through the handle's opaque.

private func kafkaLogCallback(_ handle: OpaquePointer?, _ level: Int32, _ facility: UnsafePointer<CChar>?, _ text: UnsafePointer<CChar>?) {
    guard let context = KafkaCallbackContext.of(handle), let log = context.callbacks.log else { return }
    log(KafkaLogMessage(level: level, facility: facility.map { String(cString: $0) } ?? "", message: text.map { String(cString: $0) } ?? ""))
}

private func kafkaErrorCallback(_ handle: OpaquePointer?, _ code: Int32, _ reason: UnsafePointer<CChar>?, _ opaque: UnsafeMutableRawPointer?) {
    guard let opaque else { return }
    let context = Unmanaged<KafkaCallbackContext>.fromOpaque(opaque).takeUnretainedValue()
    let error = KafkaClientError(rd_kafka_resp_err_t(rawValue: numericCast(code)), reason.map { String(cString: $0) })
    context.callbacks.error?(error)
}

private func kafkaDeliveryCallback(_ handle: OpaquePointer?, _ message: UnsafePointer<rd_kafka_message_t>?, _ opaque: UnsafeMutableRawPointer?) {
    guard let opaque, let message else { return }
    let context = Unmanaged<KafkaCallbackContext>.fromOpaque(opaque).takeUnretainedValue()
    if message.pointee.err == RD_KAFKA_RESP_ERR_NO_ERROR {
        context.succeeded.add(1, ordering: .relaxed)
    } else {
        context.failed.add(1, ordering: .relaxed)
        // A delivery report's payload is the message's own, not an error text.
        let error = KafkaClientError(message.pointee.err)
        context.lastDeliveryError.withLock { $0 = error }
    }
}

private func kafkaStatisticsCallback(_ handle: OpaquePointer?, _ json: UnsafeMutablePointer<CChar>?, _ length: Int, _ opaque: UnsafeMutableRawPointer?) -> Int32 {
    guard let opaque, let json else { return 0 }
    let context = Unmanaged<KafkaCallbackContext>.fromOpaque(opaque).takeUnretainedValue()
    let text = String(decoding: UnsafeRawBufferPointer(start: json, count: length), as: UTF8.self)
    context.latestStatistics.withLock { $0 = text }
    // 0: librdkafka frees the JSON.
    return 0
}
