import SluiceCommandLine
import SluiceBroker

/// The broker's settings, shared by `sluice serve` and `sluice broker`; each option is named
/// after the Kafka broker property it stands for.
struct BrokerOptions: ParsableArguments {
    @Option(help: "Partitions of topics created without a count (num.partitions).")
    var partitions = 1

    @Flag(inversion: .prefixedEnableDisable, help: "Create topics when clients first ask for them (auto.create.topics.enable).")
    var autoCreateTopics = true

    @Option(help: ArgumentHelp(
        "When appended batches are fsynced: never (left to the operating system, Kafka's default), always (before an acks=all produce is answered), or every N milliseconds, as in 500ms (log.flush.interval.ms).",
        valueName: "never|always|Nms"))
    var logFlush = "never"

    @Option(help: "Delete closed segments older than this many milliseconds; -1 keeps them (log.retention.ms).")
    var logRetentionMs: Int64 = 7 * 24 * 3600 * 1000

    @Option(help: "Delete the oldest closed segments while a partition holds more bytes than this; -1 for no limit (log.retention.bytes).")
    var logRetentionBytes: Int64 = -1

    @Option(help: "Bytes after which a partition starts a new segment file (log.segment.bytes).")
    var logSegmentBytes = 1 << 30

    @Option(help: "How often retention is applied, in milliseconds (log.retention.check.interval.ms).")
    var logRetentionCheckIntervalMs = 300_000

    @Option(help: "How often the log cleaner looks for compacted topics' partitions to clean, in milliseconds (log.cleaner.backoff.ms).")
    var logCleanerBackoffMs = 15_000

    @Option(help: "Largest request the broker reads, in bytes (socket.request.max.bytes).")
    var socketRequestMaxBytes = 100 * 1024 * 1024

    /// The flush policy `--log-flush` names.
    static func flushPolicy(_ text: String) throws -> LogConfiguration.FlushPolicy {
        switch text {
        case "never": return .never
        case "always": return .everyAppend
        default:
            guard text.hasSuffix("ms"), let milliseconds = Int(text.dropLast(2)), milliseconds > 0 else {
                throw ValidationError("--log-flush takes never, always or a positive number of milliseconds such as 500ms, not \(text)")
            }
            return .interval(milliseconds: milliseconds)
        }
    }

    func validate() throws {
        _ = try Self.flushPolicy(logFlush)
        guard partitions >= 1 else { throw ValidationError("--partitions must be at least 1") }
        guard logSegmentBytes >= 1024 else { throw ValidationError("--log-segment-bytes must be at least 1024") }
        guard logRetentionCheckIntervalMs > 0 else { throw ValidationError("--log-retention-check-interval-ms must be positive") }
        guard logCleanerBackoffMs > 0 else { throw ValidationError("--log-cleaner-backoff-ms must be positive") }
        guard socketRequestMaxBytes >= 1024 else { throw ValidationError("--socket-request-max-bytes must be at least 1024") }
    }

    /// Sets these options on `configuration`.
    func apply(to configuration: inout BrokerConfiguration) throws {
        configuration.defaultPartitions = partitions
        configuration.autoCreateTopics = autoCreateTopics
        configuration.log.flush = try Self.flushPolicy(logFlush)
        configuration.log.retentionMilliseconds = logRetentionMs < 0 ? nil : logRetentionMs
        configuration.log.retentionBytes = logRetentionBytes < 0 ? nil : logRetentionBytes
        configuration.log.segmentBytes = logSegmentBytes
        configuration.retentionCheckIntervalMilliseconds = logRetentionCheckIntervalMs
        configuration.cleanerIntervalMilliseconds = logCleanerBackoffMs
        configuration.maxRequestBytes = socketRequestMaxBytes
    }
}
