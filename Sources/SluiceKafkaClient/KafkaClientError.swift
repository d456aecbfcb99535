import CRdKafka
import SluiceCore

/// A failure reported by librdkafka: its error code, the code's name and its message.
///
/// Codes are librdkafka's `rd_kafka_resp_err_t`: negative ones are the client's own (`_TRANSPORT`,
/// `_TIMED_OUT`, …), positive ones come from the broker (`UNKNOWN_TOPIC_OR_PART`, …). A rejected
/// configuration property is `_INVALID_ARG` with librdkafka's explanation as the message.
package struct KafkaClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A librdkafka error code (`rd_kafka_resp_err_t`).
    package struct Code: RawRepresentable, Hashable, Sendable {
        package var rawValue: Int32
        package init(rawValue: Int32) { self.rawValue = rawValue }
        init(_ code: rd_kafka_resp_err_t) { self.rawValue = Int32(truncatingIfNeeded: code.rawValue) }

        /// Broker transport failure: connection refused, reset or unreadable (`_TRANSPORT`).
        package static let transport = Code(RD_KAFKA_RESP_ERR__TRANSPORT)
        /// A host name did not resolve (`_RESOLVE`).
        package static let resolve = Code(RD_KAFKA_RESP_ERR__RESOLVE)
        /// Every broker connection is down (`_ALL_BROKERS_DOWN`).
        package static let allBrokersDown = Code(RD_KAFKA_RESP_ERR__ALL_BROKERS_DOWN)
        /// The operation did not finish within its timeout (`_TIMED_OUT`).
        package static let timedOut = Code(RD_KAFKA_RESP_ERR__TIMED_OUT)
        /// An invalid argument or configuration property (`_INVALID_ARG`).
        package static let invalidArgument = Code(RD_KAFKA_RESP_ERR__INVALID_ARG)
        /// The producer's queue is full (`_QUEUE_FULL`); ``KafkaProducer`` retries it itself.
        package static let queueFull = Code(RD_KAFKA_RESP_ERR__QUEUE_FULL)
        /// The client knows no such topic (`_UNKNOWN_TOPIC`).
        package static let unknownTopic = Code(RD_KAFKA_RESP_ERR__UNKNOWN_TOPIC)
        /// The client knows no such partition (`_UNKNOWN_PARTITION`).
        package static let unknownPartition = Code(RD_KAFKA_RESP_ERR__UNKNOWN_PARTITION)
        /// The broker knows no such topic or partition (`UNKNOWN_TOPIC_OR_PART`, Kafka code 3).
        package static let unknownTopicOrPartition = Code(RD_KAFKA_RESP_ERR_UNKNOWN_TOPIC_OR_PART)
        /// A message larger than the broker or client allows (`MSG_SIZE_TOO_LARGE`, Kafka code 10).
        package static let messageTooLarge = Code(RD_KAFKA_RESP_ERR_MSG_SIZE_TOO_LARGE)
        /// The requested offset is outside the log (`OFFSET_OUT_OF_RANGE`, Kafka code 1).
        package static let offsetOutOfRange = Code(RD_KAFKA_RESP_ERR_OFFSET_OUT_OF_RANGE)
    }

    package var code: Code
    /// What a failed transactional call leaves the producer able to do (librdkafka's error
    /// flags); `.other` for every other call.
    package var transactionState = TransactionState.other
    /// librdkafka's name for the code (`rd_kafka_err2name`), such as "_TRANSPORT" or "UNKNOWN_TOPIC_OR_PART".
    package var name: String
    package var message: String

    package init(code: Code, name: String, message: String) {
        self.code = code
        self.name = name
        self.message = message
    }

    /// An error with librdkafka's name for `code` and, when `message` is nil, its description.
    init(_ code: rd_kafka_resp_err_t, _ message: String? = nil) {
        self.code = Code(code)
        self.name = String(cString: rd_kafka_err2name(code))
        self.message = message ?? String(cString: rd_kafka_err2str(code))
    }

    /// Takes an `rd_kafka_error_t` apart and destroys it.
    init(consuming error: OpaquePointer) {
        defer { rd_kafka_error_destroy(error) }
        self.init(rd_kafka_error_code(error), String(cString: rd_kafka_error_string(error)))
    }

    /// After a failed transactional call: the producer is dead (fenced, or an unrecoverable
    /// error), the transaction must be aborted, the call may simply be retried, or none of these.
    package enum TransactionState: Hashable, Sendable {
        case fatal, requiresAbort, retriable, other
    }

    /// Whether the topic (or partition) does not exist, as the broker or the client says.
    package var isUnknownTopic: Bool {
        code == .unknownTopicOrPartition || code == .unknownTopic || code == .unknownPartition
    }

    /// Whether no broker could be reached: refused or failed connections, failed name
    /// resolution, or nothing heard before the timeout.
    package var isBrokerUnreachable: Bool {
        code == .transport || code == .resolve || code == .allBrokersDown || code == .timedOut
    }

    package var description: String { "Kafka client error \(name): \(message)" }

    /// The error as Sluice reports it to users: a configuration error is an invalid parameter
    /// value, a missing topic an undefined object, anything else an I/O error.
    package var sluiceError: SluiceError {
        let state: SQLState = code == .invalidArgument ? .invalidParameterValue : isUnknownTopic ? .undefinedObject : .ioError
        return SluiceError(state, "kafka: \(message)", detail: "librdkafka reported \(name).")
    }
}
