import Foundation
import Synchronization
import SluiceCore
import SluiceDataflow
import SluiceExpr
import SluiceFormats
import SluiceKafkaClient

/// The Kafka connector of a source or table: reads every partition of one topic with
/// librdkafka (assigned, no group membership), decodes each message's JSON value into a row,
/// and delivers chunks of up to ``Chunk/preferredSize`` rows.
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
/// `<group.id.prefix>-<name>` (default `sluice-<name>`), so lag tools see the source's progress.
///
/// **Start.** `scan.startup.mode` is resolved to offsets once, when the connector starts:
/// `earliest` is each partition's low watermark, `latest` its high watermark, a timestamp the
/// first offset at or after it. Partitions added later are read from their beginning. A source
/// no view reads is not consumed; its first view starts from the start offsets, and every later
/// view first reads what the earlier ones saw (``snapshot()``) with a second consumer.
///
/// **Bad rows.** A message whose value is not a JSON object of the declared columns is skipped
/// and recorded in ``statistics`` (`sluice_source_errors`); reading goes on.
package final class KafkaSource: SourceConnector, @unchecked Sendable {
    package let statistics = SourceStatistics()
    private let description: SourceDescription
    private let options: KafkaSourceOptions
    private let state = Mutex(State())
    private let stopped = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    /// How many reader threads read the topic's partitions.
    let readerCount = max(1, min(ProcessInfo.processInfo.activeProcessorCount, 8))

    private struct State {
        /// The first offset of each partition, once resolved.
        var start: [Int32: Int64]?
        /// The next offset of each partition: everything before it has been delivered.
        var next: [Int32: Int64] = [:]
        /// Reader threads started.
        var started = 0
        /// The topic did not exist when the source was created: it is read from its beginning.
        var topicWasMissing = false
    }

    /// How long to wait for the cluster when creating the source and scanning it.
    static let requestTimeout: Duration = .seconds(10)

    /// Checks the options and, with `validate`, that the cluster answers and has the topic:
    /// a mistake in CREATE is an error at CREATE. Without `validate` (a restart), a cluster that
    /// is down is retried by the connector's thread, with the reason in its status.
    package init(_ description: SourceDescription, validate: Bool) throws(SluiceError) {
        self.description = description
        self.options = try KafkaSourceOptions(description)
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
        for reader in 0 ..< readerCount {
            let thread = Thread { [self] in
                run(output, reader: reader)
                finished.signal()
            }
            thread.name = "sluice-kafka-\(description.name)-\(reader)"
            state.withLock { $0.started += 1 }
            thread.start()
        }
    }

    package func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for _ in 0 ..< state.withLock({ $0.started }) { finished.wait() }
    }

    package func snapshot() throws(SluiceError) -> [Chunk] {
        let (start, next) = state.withLock { ($0.start ?? [:], $0.next) }
        let ranges = next.compactMap { partition, end -> (Int32, Int64, Int64)? in
            let from = start[partition] ?? 0
            return end > from ? (partition, from, end) : nil
        }
        return try read(ranges, recordErrors: false)
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

    // MARK: The connector's thread

    /// Reader `reader`'s loop: it reads the partitions `p` with `p % readerCount == reader`;
    /// reader 0 also commits every partition's position to the source's group.
    private func run(_ output: SourceOutput, reader readerIndex: Int) {
        var consumer: KafkaConsumer?
        var decoder = JSONRowDecoder(columns: description.columns)
        var builders = decoder.makeBuilders()
        var keyDecoder = JSONRowDecoder(columns: description.columns)
        var keyBuilders = keyDecoder.makeBuilders()
        // A table's rows need their primary key: where each decoded row came from, to reject
        // rows whose key is null with their place in the topic.
        let checksKeys = description.isTable && !description.primaryKey.isEmpty
        var origins: [(partition: Int32, offset: Int64)] = []
        var assigned: [Int32] = []
        var lastDiscovery: ContinuousClock.Instant?
        var lastCommit = ContinuousClock.now
        var committed: [Int32: Int64] = [:]
        // The consumer's bytes already counted in the source's statistics.
        var bytesCounted = 0
        defer { consumer?.close() }
        while !stopped.load(ordering: .acquiring) {
            do {
                if consumer == nil {
                    consumer = try Self.consumer(options)
                    bytesCounted = 0
                }
                guard let reader = consumer else { continue }
                if state.withLock({ $0.start == nil }) {
                    let fromBeginning = state.withLock { $0.topicWasMissing }
                    let start: [Int32: Int64]
                    do {
                        start = fromBeginning
                            ? Dictionary(uniqueKeysWithValues: try reader.partitions(of: options.topic, timeout: Self.requestTimeout).map { ($0, Int64(0)) })
                            : try Self.resolveStart(reader, options)
                    } catch let error as KafkaClientError where error.isUnknownTopic {
                        statistics.status = "waiting for topic \"\(options.topic)\""
                        Thread.sleep(forTimeInterval: 0.2)
                        continue
                    } catch let error as SluiceError where error.code == .externalTableNotFound {
                        statistics.status = "waiting for topic \"\(options.topic)\""
                        Thread.sleep(forTimeInterval: 0.2)
                        continue
                    }
                    state.withLock { state in
                        // Another reader may have resolved them first: the first one counts.
                        if state.start == nil { (state.start, state.next) = (start, start) }
                    }
                }
                guard output.isRead() else {
                    if !assigned.isEmpty {
                        try reader.assign([])
                        assigned = []
                    }
                    if readerIndex == 0 { statistics.status = "waiting for a view" }
                    lastDiscovery = nil
                    Thread.sleep(forTimeInterval: 0.05)
                    continue
                }
                // This reader's partitions: at first, then every few seconds, so added ones are
                // followed.
                if lastDiscovery.map({ ContinuousClock.now - $0 > .seconds(5) }) ?? true {
                    lastDiscovery = .now
                    let all = try reader.partitions(of: options.topic, timeout: Self.requestTimeout)
                    let partitions = all.filter { Int($0) % readerCount == readerIndex }
                    if partitions != assigned {
                        let next = state.withLock { state in
                            for partition in partitions where state.next[partition] == nil {
                                state.next[partition] = 0
                                state.start?[partition] = 0
                            }
                            return state.next
                        }
                        try reader.assign(partitions.map { KafkaAssignment(topic: options.topic, partition: $0, offset: .exact(next[$0] ?? 0)) })
                        assigned = partitions
                    }
                }
                if !assigned.isEmpty { statistics.status = "running" }
                var advanced: [Int32: Int64] = [:]
                var failure: KafkaClientError?
                // Rows and, for FORMAT UPSERT, deleted keys go out in message order: a run of one
                // kind is delivered before a message of the other kind is taken.
                func flush() {
                    let moved = advanced
                    advanced = [:]
                    let advance = { self.state.withLock { state in for (partition, offset) in moved { state.next[partition] = offset } } }
                    let rows = builders.first?.count ?? 0
                    let keys = keyBuilders.first?.count ?? 0
                    do {
                        if rows > 0 {
                            var chunk = Chunk(columns: builders.map { $0.finish() }, count: rows)
                            builders = decoder.makeBuilders()
                            chunk = rejectNullKeys(chunk, origins: origins)
                            origins.removeAll(keepingCapacity: true)
                            try output.deliver(chunk, advance)
                            statistics.rowsRead.add(chunk.count, ordering: .relaxed)
                        } else if keys > 0, let deleteKeys = output.deleteKeys {
                            let chunk = Chunk(columns: keyBuilders.map { $0.finish() }, count: keys)
                            keyBuilders = keyDecoder.makeBuilders()
                            try deleteKeys(chunk, advance)
                            statistics.rowsRead.add(keys, ordering: .relaxed)
                        } else {
                            advance()
                        }
                    } catch {
                        // The database refused the rows (the table was dropped meanwhile, say):
                        // they are counted as rejected and reading goes on.
                        statistics.status = "delivery failed: \(error.message)"
                        statistics.rowsRejected.add(max(rows, keys), ordering: .relaxed)
                        advance()
                    }
                }
                reader.poll(maxMessages: Chunk.preferredSize, timeout: .milliseconds(100)) { batch in
                    for message in batch {
                        if message.isError {
                            failure = message.error
                            continue
                        }
                        guard let value = message.value else {
                            // A null value: for FORMAT UPSERT it deletes the key's row; otherwise
                            // it carries nothing.
                            if options.isUpsert {
                                if builders.first?.count ?? 0 > 0 { flush() }
                                if let problem = decodeKey(message.key, into: &keyBuilders, with: &keyDecoder) {
                                    statistics.reject(
                                        partition: message.partition, offset: message.offset, message: problem,
                                        payload: message.key ?? UnsafeRawBufferPointer(start: nil, count: 0), at: Connectors.nowMicroseconds())
                                }
                            }
                            advanced[message.partition] = message.offset + 1
                            continue
                        }
                        if keyBuilders.first?.count ?? 0 > 0 { flush() }
                        advanced[message.partition] = message.offset + 1
                        do throws(JSONDecodeError) {
                            try decoder.decodeRow(value, into: &builders)
                            if checksKeys { origins.append((message.partition, message.offset)) }
                        } catch {
                            statistics.reject(
                                partition: message.partition, offset: message.offset, message: error.message, payload: value,
                                at: Connectors.nowMicroseconds())
                        }
                    }
                }
                if let failure { statistics.status = "retrying: \(failure.message)" }
                statistics.bytesRead.add(reader.bytesTaken - bytesCounted, ordering: .relaxed)
                bytesCounted = reader.bytesTaken
                if let lag = reader.lag() { statistics.setLag(lag, reader: readerIndex) }
                if !advanced.isEmpty || (builders.first?.count ?? 0) > 0 || (keyBuilders.first?.count ?? 0) > 0 { flush() }
                // Reader 0 commits for all of them, whether or not its own partitions moved.
                if readerIndex == 0 && ContinuousClock.now - lastCommit > .seconds(1) {
                    lastCommit = .now
                    let next = state.withLock { $0.next }
                    if next != committed {
                        try? reader.commit(
                            next.sorted { $0.key < $1.key }.map { KafkaPartitionOffset(topic: options.topic, partition: $0.key, offset: $0.value) },
                            group: options.groupID, timeout: .seconds(2))
                        committed = next
                    }
                }
            } catch {
                // The cluster is unreachable, the topic went away, the client failed: start over
                // with a new consumer from the positions reached.
                let reason = (error as? SluiceError)?.message ?? (error as? KafkaClientError)?.message ?? "\(error)"
                statistics.status = "retrying: \(reason)"
                consumer?.close()
                consumer = nil
                assigned = []
                lastDiscovery = nil
                Thread.sleep(forTimeInterval: 1)
            }
        }
    }

    /// `chunk` without its rows whose primary key has a null column; each is recorded as rejected
    /// at its place in the topic (`origins`, one per row).
    private func rejectNullKeys(_ chunk: Chunk, origins: [(partition: Int32, offset: Int64)]) -> Chunk {
        guard description.isTable, !description.primaryKey.isEmpty, origins.count == chunk.count else { return chunk }
        var keep = Bitmap(count: chunk.count, value: true)
        var rejected = false
        for column in description.primaryKey where chunk.columns[column].hasNulls {
            for row in 0 ..< chunk.count where chunk.columns[column].isNull(row) {
                if keep[row] {
                    keep[row] = false
                    rejected = true
                    statistics.reject(
                        partition: origins[row].partition, offset: origins[row].offset,
                        message: "primary-key column \"\(description.columns[column].name)\" is null",
                        payload: UnsafeRawBufferPointer(start: nil, count: 0), at: Connectors.nowMicroseconds())
                }
            }
        }
        return rejected ? chunk.filter(keep) : chunk
    }

    /// Decodes a FORMAT UPSERT message key into a row of `builders` (only the primary-key
    /// columns matter): a JSON object of the key columns, or, for a one-column key, the key's
    /// value itself (`42`, `"abc"`, or bare text such as `abc`). Returns why it could not.
    private func decodeKey(_ key: UnsafeRawBufferPointer?, into builders: inout [ColumnBuilder], with decoder: inout JSONRowDecoder) -> String? {
        guard let key, key.count > 0 else { return "a null value without a key deletes nothing" }
        if key.first(where: { $0 != UInt8(ascii: " ") }) == UInt8(ascii: "{") {
            do throws(JSONDecodeError) {
                try decoder.decodeRow(key, into: &builders)
                return nil
            } catch {
                return "key: \(error.message)"
            }
        }
        guard description.primaryKey.count == 1 else { return "the key must be a JSON object of the primary-key columns" }
        let name = Array(description.columns[description.primaryKey[0]].name.utf8)
        var wrapped: [UInt8] = Array("{\"".utf8) + name + Array("\":".utf8)
        let asValue = wrapped + Array(key) + [UInt8(ascii: "}")]
        let decodedAsValue: Bool = asValue.withUnsafeBytes { bytes in (try? decoder.decodeRow(bytes, into: &builders)) != nil }
        if decodedAsValue { return nil }
        // Bare text: as a JSON string, when it needs no escaping.
        guard !key.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }) else {
            return "the key is neither JSON nor plain text"
        }
        wrapped += [UInt8(ascii: "\"")] + Array(key) + Array("\"}".utf8)
        return wrapped.withUnsafeBytes { bytes -> String? in
            do throws(JSONDecodeError) {
                try decoder.decodeRow(bytes, into: &builders)
                return nil
            } catch {
                return "key: \(error.message)"
            }
        }
    }

    // MARK: Reading ranges

    /// Decodes the messages of each `(partition, from, to)` range (`to` exclusive) with a
    /// consumer of its own; rejected rows are skipped.
    private func read(_ ranges: [(Int32, Int64, Int64)], recordErrors: Bool) throws(SluiceError) -> [Chunk] {
        var chunks: [Chunk] = []
        try read(ranges, recordErrors: recordErrors) { chunks.append($0) }
        return chunks
    }

    /// The records of `ranges` (partition, first offset, end offset), decoded, handed to `each`
    /// a chunk at a time as they are read, so a scan of a large topic never holds it whole.
    private func read(
        _ ranges: [(Int32, Int64, Int64)], recordErrors: Bool, each: (Chunk) throws(SluiceError) -> Void
    ) throws(SluiceError) {
        guard !ranges.isEmpty else { return }
        let consumer = try Self.consumer(options)
        defer { consumer.close() }
        var decoder = JSONRowDecoder(columns: description.columns)
        var builders = decoder.makeBuilders()
        var chunks: [Chunk] = []
        var remaining = Dictionary(uniqueKeysWithValues: ranges.map { ($0.0, $0.2) })
        var next = Dictionary(uniqueKeysWithValues: ranges.map { ($0.0, $0.1) })
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
                        if message.isError {
                            failure = message.error
                            continue
                        }
                        guard let end = remaining[message.partition], message.offset < end else { continue }
                        progressed = true
                        next[message.partition] = message.offset + 1
                        if message.offset + 1 >= end { remaining[message.partition] = nil }
                        guard let value = message.value else { continue }
                        do throws(JSONDecodeError) {
                            try decoder.decodeRow(value, into: &builders)
                        } catch {
                            if recordErrors {
                                statistics.reject(
                                    partition: message.partition, offset: message.offset, message: error.message, payload: value,
                                    at: Connectors.nowMicroseconds())
                            }
                        }
                        if builders.first?.count ?? 0 >= Chunk.preferredSize {
                            chunks.append(Chunk(columns: builders.map { $0.finish() }, count: builders.first?.count ?? 0))
                            builders = decoder.makeBuilders()
                        }
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
        let rows = builders.first?.count ?? 0
        if rows > 0 { try each(Chunk(columns: builders.map { $0.finish() }, count: rows)) }
    }

    // MARK: Helpers

    private static func consumer(_ options: KafkaSourceOptions) throws(SluiceError) -> KafkaConsumer {
        do {
            var properties: [String: String] = [:]
            for (key, value) in options.clientProperties { properties[key] = value }
            return try KafkaConsumer(bootstrapServers: options.bootstrapServers, properties: properties)
        } catch {
            throw SluiceError(.invalidParameterValue, "the Kafka client refused the source's properties: \(error.message)")
        }
    }

    /// The first offset of every partition, as `scan.startup.mode` says.
    private static func resolveStart(_ consumer: KafkaConsumer, _ options: KafkaSourceOptions) throws(SluiceError) -> [Int32: Int64] {
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
