import Foundation

/// The topic configs Kafka knows, with the values each takes (Kafka's `LogConfig`), so that
/// CreateTopics refuses an unknown name or a bad value with INVALID_CONFIG, as Kafka does,
/// instead of keeping what the broker would never honour.
enum TopicConfigs {
    private enum Kind {
        case long(minimum: Int64)
        case int(minimum: Int64)
        case ratio
        case boolean
        case choice([String])
        case list([String])
        case text
    }

    private static let known: [String: Kind] = [
        "cleanup.policy": .list(["delete", "compact"]),
        "compression.type": .choice(["uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"]),
        "delete.retention.ms": .long(minimum: 0),
        "file.delete.delay.ms": .long(minimum: 0),
        "flush.messages": .long(minimum: 1),
        "flush.ms": .long(minimum: 0),
        "follower.replication.throttled.replicas": .text,
        "leader.replication.throttled.replicas": .text,
        "index.interval.bytes": .int(minimum: 0),
        "local.retention.bytes": .long(minimum: -2),
        "local.retention.ms": .long(minimum: -2),
        "max.compaction.lag.ms": .long(minimum: 1),
        "max.message.bytes": .int(minimum: 0),
        "message.downconversion.enable": .boolean,
        "message.format.version": .text,
        "message.timestamp.after.max.ms": .long(minimum: 0),
        "message.timestamp.before.max.ms": .long(minimum: 0),
        "message.timestamp.difference.max.ms": .long(minimum: 0),
        "message.timestamp.type": .choice(["CreateTime", "LogAppendTime"]),
        "min.cleanable.dirty.ratio": .ratio,
        "min.compaction.lag.ms": .long(minimum: 0),
        "min.insync.replicas": .int(minimum: 1),
        "preallocate": .boolean,
        "remote.log.copy.disable": .boolean,
        "remote.log.delete.on.disable": .boolean,
        "remote.storage.enable": .boolean,
        "retention.bytes": .long(minimum: .min),
        "retention.ms": .long(minimum: -1),
        "segment.bytes": .int(minimum: 14),
        "segment.index.bytes": .int(minimum: 4),
        "segment.jitter.ms": .long(minimum: 0),
        "segment.ms": .long(minimum: 1),
        "unclean.leader.election.enable": .boolean,
    ]

    /// Whether config `name` holds a list (IncrementalAlterConfigs may APPEND to it and
    /// SUBTRACT from it).
    static func isList(_ name: String) -> Bool {
        switch known[name] {
        case .list: true
        case .text: name.hasSuffix(".throttled.replicas")
        default: false
        }
    }

    /// The value a list config has when a topic does not set it.
    static func defaultValue(_ name: String) -> String? {
        name == "cleanup.policy" ? "delete" : nil
    }

    /// Why `value` is not a good value for config `name`, in Kafka's words; nil when it is.
    static func problem(name: String, value: String?) -> String? {
        guard let kind = known[name] else { return "Unknown topic config name: \(name)" }
        guard let value else { return "Null value not supported for topic configs: \(name)" }
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        switch kind {
        case .long(let minimum), .int(let minimum):
            let isInt: Bool
            if case .int = kind { isInt = true } else { isInt = false }
            guard let number = Int64(trimmed), !isInt || Int32(exactly: number) != nil else {
                return "Invalid value \(value) for configuration \(name): Not a number of type \(isInt ? "INT" : "LONG")"
            }
            if number < minimum { return "Invalid value \(value) for configuration \(name): Value must be at least \(minimum)" }
        case .ratio:
            guard let number = Double(trimmed), number >= 0, number <= 1 else {
                return "Invalid value \(value) for configuration \(name): Value must be a number from 0 to 1"
            }
        case .boolean:
            guard ["true", "false"].contains(trimmed.lowercased()) else {
                return "Invalid value \(value) for configuration \(name): Expected value to be either true or false"
            }
        case .choice(let values):
            guard values.contains(trimmed) else {
                return "Invalid value \(value) for configuration \(name): String must be one of: \(values.joined(separator: ", "))"
            }
        case .list(let values):
            let items = trimmed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard !items.isEmpty, items.allSatisfy({ values.contains($0) }) else {
                return "Invalid value \(value) for configuration \(name): List must hold only: \(values.joined(separator: ", "))"
            }
        case .text:
            break
        }
        return nil
    }
}
