import Foundation
import Synchronization
import SluiceCore
import SluiceDataflow
import SluiceExpr
import SluiceFormats
import SluiceKafkaClient

/// The Kafka connector of a source or table: reads every partition of one topic (assigned, no
/// group membership) with Sluice's own consumer (``KafkaFetchConsumer``; librdkafka when the
/// properties ask for TLS or SASL, and for the backfill's ranges), decodes each message's value
/// into a row, and delivers chunks of up to ``Chunk/preferredSize`` rows.
///
/// **Readers.** The partitions are spread over ``readerCount`` reader threads (one per core, at
/// most eight), partition `p` to reader `p % readerCount`, each with its own consumer and decoder,
/// so the messages of a key (one partition) keep their order. A reader with no partition only
/// watches for new ones.
///
/// **Positions.** The next offset of each partition is the connector's own state. It changes
/// only together with the rows it covers (inside ``SourceOutput/deliver``), so the rows of an
/// epoch and the positions at its barrier agree; the crash-safety work stores them with
/// checkpoints. They are also committed, about once a second, to the consumer group
/// `properties.group.id` when given, else `<group.id.prefix>-<name>` (default `sluice-<name>`),
/// so lag tools see the source's progress.
///
/// **Start.** `scan.startup.mode` is resolved to offsets once, when the connector starts:
/// `earliest` is each partition's low watermark, `latest` its high watermark, a timestamp the
/// first offset at or after it, `group-offsets` what the group committed (a partition without
/// a committed offset as `properties.auto.offset.reset` says, latest unless `earliest`). Partitions added later are read from their beginning. A source
/// no view reads is not consumed; its first view starts from the start offsets, and every later
/// view first reads what the earlier ones saw (``snapshot()``) with a second consumer.
///
/// **Format.** Each message's value is parsed by the ``RowParser`` its `ENCODE` names (JSON, one
/// CSV record, or Confluent-framed Avro whose schemas a registry holds); `INCLUDE timestamp |
/// partition | offset | key | payload` fill columns from the message itself. The readers run on
/// the ``SourceDriver``, which owns their threads.
///
/// **Bad rows.** A message whose value is not a row of the declared columns is skipped and
/// recorded in ``statistics`` (`sluice_source_errors`); reading goes on.
package final class KafkaSource: SourceConnector, @unchecked Sendable {
    package let statistics = SourceStatistics()
    let description: SourceDescription
    let options: KafkaSourceOptions
    let state = Mutex(State())
    private let driver = SourceDriverSlot()
    /// How many reader threads read the topic's partitions.
    let readerCount = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))

    struct State {
        /// The first offset of each partition, once resolved.
        var start: [Int32: Int64]?
        /// The next offset of each partition: everything before it has been delivered.
        var next: [Int32: Int64] = [:]
        /// The topic did not exist when the source was created: it is read from its beginning.
        var topicWasMissing = false
    }

    /// How long to wait for the cluster when creating the source and scanning it.
    static let requestTimeout: Duration = .seconds(10)

    /// Checks the options and, with `validate`, that the cluster answers and has the topic:
    /// a mistake in CREATE is an error at CREATE. Without `validate` (a restart), a cluster that
    /// is down is retried by the connector's thread, with the reason in its status.
    package init(_ description: SourceDescription, validate: Bool) throws(SluiceError) {
        var description = description
        let options = try KafkaSourceOptions(description)
        self.options = options
        if case .avro(let registry) = options.encoding {
            (avroReader, columnsFromRegistry) = try Self.registrySchema(registry, options, description, validate: validate)
            if let columnsFromRegistry {
                description.columns = columnsFromRegistry
                // `CREATE TABLE t (PRIMARY KEY (id)) … ENCODE AVRO`: the key among the schema's
                // fields (a name that is none of them is the CREATE's error, in Database).
                description.primaryKey = description.primaryKeyNames.compactMap { name in columnsFromRegistry.firstIndex { $0.name == name } }
            }
        }
        self.description = description
        if let positions = description.startPositions {
            // Resolved before (at CREATE, or what a table had read when the server stopped).
            // Resumed (a state checkpoint's offsets): a partition it has no offset for goes on
            // from its start.
            let next = positions.merging(description.resumePositions ?? [:]) { $1 }
            state.withLock { $0.start = positions; $0.next = next }
        } else if validate {
            let consumer = try Self.consumer(options)
            defer { consumer.close() }
            do {
                let start = try Self.resolveStart(consumer, options)
                state.withLock { $0.start = start; $0.next = start }
            } catch let error where error.code == .externalTableNotFound {
                // Seed 001 creates its source before its producer creates the topic: the source
                // waits for the topic and then reads it from its beginning.
                state.withLock { $0.topicWasMissing = true }
                notices = ["topic \"\(options.topic)\" does not exist yet at \(options.bootstrapServers); the source will read it from its beginning once it does"]
                statistics.status = "waiting for topic \"\(options.topic)\""
            }
        }
    }

    /// What CREATE tells the user beside success.
    package private(set) var notices: [String] = []

    /// `ENCODE AVRO`: the value subject's latest schema when the source started, whose defaults
    /// fill the fields an older writer lacks; nil when there is none (or the registry did not
    /// answer at a restart).
    private(set) var avroReader: AvroSchema?
    /// `ENCODE AVRO` without the columns listed: the columns of the subject's latest schema.
    private var columnsFromRegistry: [(name: String, type: DataType)]?

    package var inferredColumns: [(name: String, type: DataType)]? { columnsFromRegistry }

    /// The value subject's latest schema, and the columns it gives when `description` lists none
    /// (for FORMAT DEBEZIUM, those of its `after` record). At CREATE (`validate`) a registry that
    /// does not answer is an error; at a restart the source goes on without the defaults.
    private static func registrySchema(
        _ registry: SchemaRegistryClient, _ options: KafkaSourceOptions, _ description: SourceDescription, validate: Bool
    ) throws(SluiceError) -> (AvroSchema?, [(name: String, type: DataType)]?) {
        let latest: SchemaRegistryClient.Registered?
        do throws(SluiceError) {
            latest = try registry.latest(subject: options.valueSubject)
        } catch {
            if validate || description.columns.isEmpty { throw error }
            return (nil, nil)
        }
        guard description.columns.isEmpty else { return (latest?.schema, nil) }
        guard let latest else {
            throw SluiceError(
                .undefinedObject, "the schema registry at \(URLCredentials.masking(in: registry.url)) has no subject \"\(options.valueSubject)\" to take the columns from",
                hint: "Register the topic's value schema first (a producer's Avro serializer does), or list the columns.")
        }
        let record = options.isDebezium ? try AvroChangeEnvelope(writer: latest.schema).rowSchema : latest.schema
        return (latest.schema, try record.columns())
    }

    /// The next offset of each partition; empty (every partition from its beginning) for a topic
    /// that did not exist at CREATE; nil until the start is resolved.
    package var positions: [Int32: Int64]? {
        state.withLock { state in
            if state.start != nil { return state.next }
            return state.topicWasMissing ? [:] : nil
        }
    }

    // MARK: SourceConnector

    package func start(output: SourceOutput) {
        let readers = (0 ..< readerCount).map { index in reader(index: index, parser: valueParser()) }
        driver.start(name: "kafka-\(description.name)", statistics: statistics, readers: readers, output: output)
    }

    /// The parser of messages' values that `FORMAT` and `ENCODE` name: the one choice, for the
    /// readers and for reads of offset ranges alike.
    private func valueParser() -> any RowParser {
        switch options.encoding {
        case .json where options.isDebeziumMongo: DebeziumMongoRowParser(columns: description.payloadColumns)
        case .json: JSONRowParser(columns: description.payloadColumns)
        case .csv(let csv): CSVRowParser(columns: description.payloadColumns, options: csv)
        case .avro(let registry): AvroRowParser(registry: registry, columns: description.payloadColumns, reader: avroReader, debezium: options.isDebezium)
        }
    }

    /// Reader `index`, with the parser ``valueParser()`` chose opened to its type.
    private func reader<Parser: RowParser>(index: Int, parser: Parser) -> any SourceReader {
        KafkaReader(self, index: index, parser: parser)
    }

    package func stop() {
        driver.stop()
    }

    /// The records from the start positions up to where delivery stands (noted now), decoded
    /// when the backfill reads them, with a consumer of their own.
    package func snapshot(columns: Set<Int>?) throws(SluiceError) -> SourceSnapshot {
        let (start, next) = state.withLock { ($0.start ?? [:], $0.next) }
        let ranges = next.compactMap { partition, end -> (Int32, Int64, Int64)? in
            let from = start[partition] ?? 0
            return end > from ? (partition, from, end) : nil
        }
        let estimate = ranges.reduce(0) { $0 + Int($1.2 - $1.1) }
        return SourceSnapshot(rowEstimate: estimate) { [self] (each: (Chunk) throws(SluiceError) -> Void) throws(SluiceError) in
            try read(ranges, recordErrors: false, each: each)
        }
    }

    package func scan(pruningBy filter: ScalarExpr?, each: (Chunk) throws(SluiceError) -> Void) throws(SluiceError) {
        let consumer = try Self.consumer(options)
        defer { consumer.close() }
        var ranges: [(Int32, Int64, Int64)] = []
        do {
            for partition in try consumer.partitions(of: options.topic, timeout: Self.requestTimeout) {
                let marks = try consumer.watermarks(topic: options.topic, partition: partition, timeout: Self.requestTimeout)
                if marks.high > marks.low { ranges.append((partition, marks.low, marks.high)) }
            }
        } catch {
            throw Self.sqlError(error, options)
        }
        try read(ranges, recordErrors: false, each: each)
    }

    // MARK: Reading ranges

    /// Decodes the messages of each `(partition, from, to)` range (`to` exclusive) with a
    /// consumer of its own; rejected rows are skipped.
    /// The records of `ranges` (partition, first offset, end offset), decoded, handed to `each`
    /// a chunk at a time as they are read, so a scan of a large topic never holds it whole.
    private func read(
        _ ranges: [(Int32, Int64, Int64)], recordErrors: Bool, each: (Chunk) throws(SluiceError) -> Void
    ) throws(SluiceError) {
        try read(ranges, parser: valueParser(), recordErrors: recordErrors, each: each)
    }

    private func read<Parser: RowParser>(
        _ ranges: [(Int32, Int64, Int64)], parser: Parser, recordErrors: Bool, each: (Chunk) throws(SluiceError) -> Void
    ) throws(SluiceError) {
        guard !ranges.isEmpty else { return }
        // Told where each partition ends: a topic an exactly-once sink writes ends in a
        // transaction marker, which is never delivered, so the last record's offset is not `end - 1`.
        let consumer = try Self.consumer(options, reportingPartitionEnds: true)
        defer { consumer.close() }
        var rows = MessageRows(description: description, parser: parser)
        var chunks: [Chunk] = []
        var remaining = Dictionary(uniqueKeysWithValues: ranges.map { ($0.0, $0.2) })
        // Given up after a minute without progress, not a minute in all: a large topic takes longer.
        var deadline = ContinuousClock.now + .seconds(60)
        do {
            try consumer.assign(ranges.map { KafkaAssignment(topic: options.topic, partition: $0.0, offset: .exact($0.1)) })
            while !remaining.isEmpty {
                guard ContinuousClock.now < deadline else {
                    throw SluiceError(
                        .unableToEstablishConnection, "timed out reading topic \"\(options.topic)\" from \(options.bootstrapServers)")
                }
                var failure: KafkaClientError?
                var progressed = false
                consumer.poll(maxMessages: Chunk.preferredSize, timeout: .milliseconds(200)) { batch in
                    for message in batch {
                        if message.isPartitionEnd {
                            // Nothing before the partition's end is left to deliver: markers
                            // and aborted records fill the rest of the range.
                            if let end = remaining[message.partition], message.offset >= end {
                                remaining[message.partition] = nil
                                progressed = true
                            }
                            continue
                        }
                        if message.isError {
                            failure = message.error
                            continue
                        }
                        guard let end = remaining[message.partition], message.offset < end else { continue }
                        progressed = true
                        if message.offset + 1 >= end { remaining[message.partition] = nil }
                        guard let value = message.value else { continue }
                        if let problem = rows.append(TopicMessage(message), value: value), recordErrors {
                            statistics.reject(
                                partition: message.partition, offset: message.offset, message: problem, payload: value, at: Connectors.nowMicroseconds())
                        }
                        if rows.count >= Chunk.preferredSize { chunks.append(rows.finish()) }
                    }
                }
                if let failure, failure.isBrokerUnreachable { throw failure }
                if progressed { deadline = ContinuousClock.now + .seconds(60) }
                for chunk in chunks { try each(chunk) }
                chunks.removeAll(keepingCapacity: true)
            }
        } catch let error as KafkaClientError {
            throw Self.sqlError(error, options)
        } catch let error as SluiceError {
            throw error
        } catch {
            throw SluiceError(.ioError, "reading topic \"\(options.topic)\": \(error)")
        }
        if rows.count > 0 { try each(rows.finish()) }
    }

    // MARK: Helpers

    static func consumer(_ options: KafkaSourceOptions, reportingPartitionEnds: Bool = false) throws(SluiceError) -> KafkaConsumer {
        do {
            var properties: [String: String] = [:]
            for (key, value) in options.clientProperties { properties[key] = value }
            if reportingPartitionEnds { properties["enable.partition.eof"] = "true" }
            return try KafkaConsumer(bootstrapServers: options.bootstrapServers, properties: properties)
        } catch {
            throw SluiceError(.invalidParameterValue, "the Kafka client refused the source's properties: \(error.message)")
        }
    }

    /// The first offset of every partition, as `scan.startup.mode` says.
    static func resolveStart(_ consumer: KafkaConsumer, _ options: KafkaSourceOptions) throws(SluiceError) -> [Int32: Int64] {
        do {
            let partitions = try consumer.partitions(of: options.topic, timeout: requestTimeout)
            var start: [Int32: Int64] = [:]
            switch options.startup {
            case .earliest, .latest:
                for partition in partitions {
                    let marks = try consumer.watermarks(topic: options.topic, partition: partition, timeout: requestTimeout)
                    start[partition] = options.startup == .earliest ? marks.low : marks.high
                }
            case .timestamp(let milliseconds):
                for assignment in try consumer.offsets(forTimestamp: milliseconds, topic: options.topic, partitions: partitions, timeout: requestTimeout) {
                    switch assignment.offset {
                    case .exact(let offset): start[assignment.partition] = offset
                    case .latest, .earliest:
                        let marks = try consumer.watermarks(topic: options.topic, partition: assignment.partition, timeout: requestTimeout)
                        start[assignment.partition] = assignment.offset == .latest ? marks.high : marks.low
                    }
                }
            case .groupOffsets(let fromEarliest):
                let committed = try consumer.committedOffsets(group: options.groupID, topic: options.topic, partitions: partitions, timeout: requestTimeout)
                for (partition, offset) in zip(partitions, committed) {
                    if let offset {
                        start[partition] = offset
                    } else {
                        let marks = try consumer.watermarks(topic: options.topic, partition: partition, timeout: requestTimeout)
                        start[partition] = fromEarliest ? marks.low : marks.high
                    }
                }
            }
            return start
        } catch {
            throw sqlError(error, options)
        }
    }

    /// A Kafka client failure as the SQL error the user sees.
    static func sqlError(_ error: KafkaClientError, _ options: KafkaSourceOptions) -> SluiceError {
        if error.isUnknownTopic {
            return SluiceError(
                .externalTableNotFound, "topic \"\(options.topic)\" does not exist at \(options.bootstrapServers)",
                hint: "Create the topic first, or let a producer create it.")
        }
        if error.isBrokerUnreachable {
            return SluiceError(
                .unableToEstablishConnection, "cannot reach the Kafka cluster at \(options.bootstrapServers): \(error.message)")
        }
        return SluiceError(.ioError, "Kafka error for topic \"\(options.topic)\": \(error.message)")
    }
}
