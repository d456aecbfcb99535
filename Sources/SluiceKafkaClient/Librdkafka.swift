import CRdKafka

// SluiceKafkaClient is a thin wrapper over librdkafka: `KafkaConsumer`, an "assign" consumer
// that never joins a group (the engine tracks offsets itself and only commits them for lag
// tools), and `KafkaProducer`, for the event generators and Kafka sinks.
//
// Each client owns its librdkafka handles and destroys them in `close()` or `deinit`. Neither
// client is `Sendable`: use one from one thread (or task) at a time. The callbacks in
// `KafkaClientCallbacks` may run on librdkafka's own threads.

/// The librdkafka library this module wraps.
package enum Librdkafka {
    /// The version linked in, as `rd_kafka_version_str()` gives it ("2.0.2").
    package static var version: String { String(cString: rd_kafka_version_str()) }

    /// Waits up to `timeout` until every librdkafka handle of the process is destroyed and
    /// freed, which happens only once every message it delivered was destroyed too; returns
    /// whether that happened. For shutdown and for tests that check nothing leaked.
    package static func allHandlesDestroyed(within timeout: Duration) -> Bool {
        rd_kafka_wait_destroyed(timeout.kafkaMilliseconds) == 0
    }
}

extension Duration {
    /// The duration as librdkafka's `timeout_ms`: whole milliseconds, rounded up (so a short
    /// positive timeout does not become "don't wait"), at most `Int32.max`, never negative.
    var kafkaMilliseconds: Int32 {
        let (seconds, attoseconds) = components
        guard seconds >= 0 else { return 0 }
        let milliseconds = seconds.multipliedReportingOverflow(by: 1000)
        let fraction = (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        guard !milliseconds.overflow, milliseconds.partialValue <= Int64(Int32.max) - fraction else { return Int32.max }
        return Int32(milliseconds.partialValue + fraction)
    }
}
