import SluiceCore
import SluiceKafkaClient
import SluiceKafkaProtocol

/// One message of a topic, read in place (from a fetch answer or librdkafka's buffers): valid
/// only inside the poll that handed it out.
struct TopicMessage {
    var partition: Int32
    var offset: Int64
    /// Milliseconds since the Unix epoch; nil when the message has none.
    var timestamp: Int64?
    var key: UnsafeRawBufferPointer?
    var value: UnsafeRawBufferPointer?

    @inline(__always)
    init(_ record: KafkaFetchedRecord) {
        partition = record.partition
        offset = record.offset
        timestamp = record.timestamp < 0 ? nil : record.timestamp
        key = record.key
        value = record.value
    }

    init(_ message: SluiceKafkaClient.KafkaMessage) {
        partition = message.partition
        offset = message.offset
        timestamp = message.timestamp
        key = message.key
        value = message.value
    }
}

/// The consumer a Kafka source's reader fetches with: our own over plain connections
/// (``KafkaFetchConsumer``), librdkafka's for a cluster that needs TLS or SASL.
enum KafkaReaderConsumer {
    case wire(KafkaFetchConsumer)
    case librdkafka(KafkaConsumer)

    func partitions(of topic: String) throws -> [Int32] {
        switch self {
        case .wire(let consumer): try consumer.partitions(of: topic)
        case .librdkafka(let consumer): try consumer.partitions(of: topic, timeout: KafkaSource.requestTimeout)
        }
    }

    func assign(_ topic: String, _ assignments: [(partition: Int32, offset: Int64)]) throws {
        switch self {
        case .wire(let consumer): consumer.assign(topic: topic, assignments)
        case .librdkafka(let consumer):
            try consumer.assign(assignments.map { KafkaAssignment(topic: topic, partition: $0.partition, offset: .exact($0.offset)) })
        }
    }

    var bytesTaken: Int {
        switch self {
        case .wire(let consumer): consumer.bytesTaken
        case .librdkafka(let consumer): consumer.bytesTaken
        }
    }

    func lag() -> Int? {
        switch self {
        case .wire(let consumer): consumer.lag()
        case .librdkafka(let consumer): consumer.lag()
        }
    }

    func commit(_ topic: String, _ offsets: [(partition: Int32, offset: Int64)], group: String) throws {
        switch self {
        case .wire(let consumer): try consumer.commit(topic: topic, offsets: offsets, group: group)
        case .librdkafka(let consumer):
            try consumer.commit(offsets.map { KafkaPartitionOffset(topic: topic, partition: $0.partition, offset: $0.offset) }, group: group, timeout: .seconds(2))
        }
    }

    /// The first offset of every partition, as `scan.startup.mode` says.
    func resolveStart(_ options: KafkaSourceOptions) throws -> [Int32: Int64] {
        switch self {
        case .librdkafka(let consumer): return try KafkaSource.resolveStart(consumer, options)
        case .wire(let consumer):
            let partitions = try consumer.partitions(of: options.topic)
            var start: [Int32: Int64] = [:]
            switch options.startup {
            case .earliest, .latest:
                for partition in partitions {
                    let marks = try consumer.watermarks(topic: options.topic, partition: partition)
                    start[partition] = options.startup == .earliest ? marks.low : marks.high
                }
            case .timestamp(let milliseconds):
                for (partition, offset) in try consumer.offsets(forTimestamp: milliseconds, topic: options.topic, partitions: partitions) {
                    if let offset {
                        start[partition] = offset
                    } else {
                        start[partition] = try consumer.watermarks(topic: options.topic, partition: partition).high
                    }
                }
            case .groupOffsets(let fromEarliest):
                let committed = try consumer.committedOffsets(topic: options.topic, partitions: partitions, group: options.groupID)
                for partition in partitions {
                    if let offset = committed[partition] {
                        start[partition] = offset
                    } else {
                        let marks = try consumer.watermarks(topic: options.topic, partition: partition)
                        start[partition] = fromEarliest ? marks.low : marks.high
                    }
                }
            }
            return start
        }
    }
}

extension KafkaSource {
    /// A reader's consumer: our own, unless the properties ask for TLS or SASL (librdkafka).
    static func readerConsumer(_ options: KafkaSourceOptions) throws(SluiceError) -> KafkaReaderConsumer {
        guard !options.needsLibrdkafka else { return .librdkafka(try consumer(options)) }
        var settings = KafkaFetchConsumer.Settings(properties: options.clientProperties)
        // A broker that takes no connection or answer for this long is retried, with the reason
        // in the source's status (a DROP waits for the reader no longer than this).
        settings.timeout = requestTimeout
        do {
            return .wire(try KafkaFetchConsumer(bootstrapServers: options.bootstrapServers, settings: settings))
        } catch {
            throw SluiceError(.invalidParameterValue, "cannot read topic \"\(options.topic)\": \(error.description)")
        }
    }
}
