import Foundation
import SluiceCore
import SluiceDataflow
import SluiceFormats
import SluiceKafkaClient
import SluiceKafkaProtocol

/// A chunk of rows being built from messages: the payload's columns by the parser, the
/// `INCLUDE` columns from each message's metadata.
struct MessageRows<Parser: RowParser> {
    private var parser: Parser
    private var builders: [ColumnBuilder]
    private var included: [ColumnBuilder]
    private let includes: [SourceInclude]
    private let description: SourceDescription
    /// Which relation column each payload column is.
    private let payloadColumns: [Int]

    init(description: SourceDescription, parser: Parser) {
        self.parser = parser
        self.description = description
        includes = description.includes
        let includedColumns = Set(includes.map(\.column))
        payloadColumns = description.columns.indices.filter { !includedColumns.contains($0) }
        builders = parser.makeBuilders()
        included = includes.map { ColumnBuilder(type: description.columns[$0.column].type, capacity: Chunk.preferredSize) }
    }

    var count: Int { builders.first?.count ?? included.first?.count ?? 0 }

    /// Adds the row of `message` (whose value is `value`); returns why it cannot, or nil.
    @inline(__always)
    mutating func append(_ message: TopicMessage, value: UnsafeRawBufferPointer) -> String? {
        do throws(RowParseError) {
            try parser.parse(value, into: &builders)
        } catch {
            return error.message
        }
        if !includes.isEmpty { appendIncludes(message, value: value) }
        return nil
    }

    /// Adds a row of `message` that `decode` appends to the payload columns' builders (leaving
    /// them as they were when it throws) rather than the parser: a Debezium event's row the
    /// reader has found already.
    @inline(__always)
    mutating func append(
        _ message: TopicMessage, value: UnsafeRawBufferPointer, decodedBy decode: (inout [ColumnBuilder]) throws(RowParseError) -> Void
    ) -> String? {
        do throws(RowParseError) {
            try decode(&builders)
        } catch {
            return error.message
        }
        if !includes.isEmpty { appendIncludes(message, value: value) }
        return nil
    }

    private mutating func appendIncludes(_ message: TopicMessage, value: UnsafeRawBufferPointer) {
        for (index, include) in includes.enumerated() {
            switch include.kind {
            case .timestamp:
                if let milliseconds = message.timestamp { included[index].append(int64: milliseconds * 1000) } else { included[index].appendNull() }
            case .partition:
                included[index].append(.string(String(message.partition)))
            case .offset:
                included[index].append(.string(String(message.offset)))
            case .key:
                if let key = message.key { included[index].append(bytes: key) } else { included[index].appendNull() }
            case .payload:
                // The parser took it as JSON or as text: a payload that is no JSON document is NULL.
                if let normalized = try? JSONText.normalize(String(decoding: value, as: UTF8.self)) {
                    included[index].append(.jsonb(normalized))
                } else {
                    included[index].appendNull()
                }
            }
        }
    }

    /// The rows so far, in the relation's column order; the builders start over.
    mutating func finish() -> Chunk {
        let rows = count
        var columns = [Column?](repeating: nil, count: description.columns.count)
        for (index, builder) in builders.enumerated() { columns[payloadColumns[index]] = builder.finish() }
        for (index, builder) in included.enumerated() { columns[includes[index].column] = builder.finish() }
        builders = parser.makeBuilders()
        included = includes.map { ColumnBuilder(type: description.columns[$0.column].type, capacity: Chunk.preferredSize) }
        return Chunk(columns: columns.map { $0! }, count: rows)
    }
}

/// One reader of a Kafka source: the partitions `p` with `p % readerCount == index`, with a
/// consumer of its own; reader 0 also commits every partition's position to the source's group.
/// It runs on the ``SourceDriver``'s thread; ``step(_:)`` is one poll.
final class KafkaReader<Parser: RowParser>: SourceReader {
    private let source: KafkaSource
    private let index: Int
    private var rows: MessageRows<Parser>
    private var keyDecoder: JSONRowDecoder
    private var keyBuilders: [ColumnBuilder]
    /// ENCODE AVRO: FORMAT UPSERT's Avro keys, as rows of all the columns, and FORMAT
    /// DEBEZIUM's events, each envelope read once: their op, `after` rows (of the payload
    /// columns) and `before` rows (delete keys, of all the columns).
    private var avroKeys: AvroMessageDecoder?
    private var avroChanges: AvroMessageDecoder?
    /// FORMAT DEBEZIUM_MONGO: the events of Debezium's MongoDB connector.
    private var mongoChanges: DebeziumMongoChanges?
    private var consumer: KafkaReaderConsumer?
    // A table's rows need their primary key: where each decoded row came from, to reject rows
    // whose key is null with their place in the topic.
    private let checksKeys: Bool
    private var origins: [(partition: Int32, offset: Int64)] = []
    private var assigned: [Int32] = []
    private var lastDiscovery: ContinuousClock.Instant?
    private var lastCommit = ContinuousClock.now
    private var committed: [Int32: Int64] = [:]
    /// The consumer's bytes already counted in the source's statistics.
    private var bytesCounted = 0

    init(_ source: KafkaSource, index: Int, parser: Parser) {
        self.source = source
        self.index = index
        rows = MessageRows(description: source.description, parser: parser)
        keyDecoder = JSONRowDecoder(columns: source.description.columns)
        keyBuilders = keyDecoder.makeBuilders()
        checksKeys = source.description.isTable && !source.description.primaryKey.isEmpty
        if source.options.isDebeziumMongo { mongoChanges = DebeziumMongoChanges(description: source.description) }
        if case .avro(let registry) = source.options.encoding {
            let description = source.description
            if source.options.isDebezium {
                avroChanges = AvroMessageDecoder(
                    registry: registry, columns: description.payloadColumns, reader: source.avroReader, keyColumns: description.columns, shape: .debezium)
            }
            // FORMAT UPSERT's keys, and the message keys of Debezium's deletes without `before`.
            if source.options.isUpsert {
                avroKeys = AvroMessageDecoder(
                    registry: registry, columns: description.columns, reader: nil,
                    primitiveColumn: description.primaryKey.count == 1 ? description.primaryKey[0] : nil, shape: .row)
            }
        }
    }

    func pause() {
        if !assigned.isEmpty {
            switch consumer {
            case .wire(let reader): reader.assign(topic: source.options.topic, [])
            case .librdkafka(let reader): try? reader.assign([])
            case nil: break
            }
            assigned = []
        }
        lastDiscovery = nil
    }

    func reset() {
        close()
        assigned = []
        lastDiscovery = nil
    }

    func close() {
        switch consumer {
        case .wire(let reader): reader.close()
        case .librdkafka(let reader): reader.close()
        case nil: break
        }
        consumer = nil
    }

    func step(_ context: SourceStepContext) throws(SluiceError) -> SourceStep {
        // The reader runs behind `any SourceReader`, so this method is the generic one, which
        // looked up its types' metadata for every message. Called on the concrete type, the
        // step of a JSON source (nearly all of them) is specialized and looks up nothing.
        if let json = self as? KafkaReader<JSONRowParser> { return try json.read(context) }
        return try read(context)
    }

    /// One poll: the messages it got into rows, delivered.
    private func read(_ context: SourceStepContext) throws(SluiceError) -> SourceStep {
        let options = source.options
        let statistics = context.statistics
        if consumer == nil {
            consumer = try KafkaSource.readerConsumer(options)
            bytesCounted = 0
        }
        guard let consumer else { return .idle(.milliseconds(50)) }
        do {
            if source.state.withLock({ $0.start == nil }) {
                let fromBeginning = source.state.withLock { $0.topicWasMissing }
                let start: [Int32: Int64]
                do {
                    start = fromBeginning
                        ? Dictionary(uniqueKeysWithValues: try consumer.partitions(of: options.topic).map { ($0, Int64(0)) })
                        : try consumer.resolveStart(options)
                } catch let error as KafkaClientError where error.isUnknownTopic {
                    statistics.status = "waiting for topic \"\(options.topic)\""
                    return .idle(.milliseconds(200))
                } catch let error as KafkaWireError where error.code == .unknownTopicOrPartition {
                    statistics.status = "waiting for topic \"\(options.topic)\""
                    return .idle(.milliseconds(200))
                } catch let error as SluiceError where error.code == .externalTableNotFound {
                    statistics.status = "waiting for topic \"\(options.topic)\""
                    return .idle(.milliseconds(200))
                }
                source.state.withLock { state in
                    // Another reader may have resolved them first: the first one counts.
                    if state.start == nil { (state.start, state.next) = (start, start) }
                }
            }
            // This reader's partitions: at first, then every few seconds, so added ones are followed.
            if lastDiscovery.map({ ContinuousClock.now - $0 > .seconds(5) }) ?? true {
                lastDiscovery = .now
                let all = try consumer.partitions(of: options.topic)
                let partitions = all.filter { Int($0) % source.readerCount == index }
                if partitions != assigned {
                    let next = source.state.withLock { state in
                        for partition in partitions where state.next[partition] == nil {
                            state.next[partition] = 0
                            state.start?[partition] = 0
                        }
                        return state.next
                    }
                    try consumer.assign(options.topic, partitions.map { ($0, next[$0] ?? 0) })
                    assigned = partitions
                }
            }
            if !assigned.isEmpty { statistics.status = "running" }
            var advanced: [Int32: Int64] = [:]
            // The partition of the messages taken last and the offset after them: put in
            // `advanced` when another partition's message comes (not a dictionary write each).
            var lastPartition: Int32 = -1
            var lastNext: Int64 = 0
            var failure: String?
            // Rows and, for FORMAT UPSERT, deleted keys go out in message order: a run of one kind
            // is delivered before a message of the other kind is taken.
            func flush() {
                if lastPartition >= 0 {
                    advanced[lastPartition] = lastNext
                    lastPartition = -1
                }
                let moved = advanced
                advanced = [:]
                let advance = { self.source.state.withLock { state in for (partition, offset) in moved { state.next[partition] = offset } } }
                if rows.count > 0 {
                    let chunk = rejectNullKeys(rows.finish(), context: context)
                    origins.removeAll(keepingCapacity: true)
                    context.deliver(chunk, advance: advance)
                } else if keyBuilders.first?.count ?? 0 > 0 {
                    let count = keyBuilders.first?.count ?? 0
                    let chunk = Chunk(columns: keyBuilders.map { $0.finish() }, count: count)
                    keyBuilders = keyDecoder.makeBuilders()
                    context.deleteKeys(chunk, advance: advance)
                } else {
                    advance()
                }
            }
            @inline(__always) func advance(_ message: TopicMessage) {
                if message.partition != lastPartition {
                    if lastPartition >= 0 { advanced[lastPartition] = lastNext }
                    lastPartition = message.partition
                }
                lastNext = message.offset + 1
            }
            let isUpsert = options.isUpsert
            let isDebezium = options.isDebezium
            func take(_ message: TopicMessage) {
                if isDebezium {
                    // Rows and deleted keys in message order, as for FORMAT UPSERT.
                    let action = debeziumAction(message)
                    switch action {
                    case .upsert, .upsertAvroRow, .upsertDocument: if keyBuilders.first?.count ?? 0 > 0 { flush() }
                    case .delete, .deleteAvroRow, .deleteDocument: if rows.count > 0 { flush() }
                    case .skip, .reject: break
                    }
                    advance(message)
                    if let problem = apply(action, message) {
                        context.reject(partition: message.partition, offset: message.offset, message: problem, payload: message.value ?? message.key ?? UnsafeRawBufferPointer(start: nil, count: 0))
                    }
                    return
                }
                guard let value = message.value else {
                    // A null value: for FORMAT UPSERT it deletes the key's row; otherwise it
                    // carries nothing.
                    if isUpsert {
                        if rows.count > 0 { flush() }
                        if let problem = decodeKey(message.key) {
                            context.reject(
                                partition: message.partition, offset: message.offset, message: problem,
                                payload: message.key ?? UnsafeRawBufferPointer(start: nil, count: 0))
                        }
                    }
                    advance(message)
                    return
                }
                if keyBuilders.first?.count ?? 0 > 0 { flush() }
                advance(message)
                if let problem = rows.append(message, value: value) {
                    context.reject(partition: message.partition, offset: message.offset, message: problem, payload: value)
                } else if checksKeys {
                    origins.append((message.partition, message.offset))
                }
            }
            var polled = 0
            switch consumer {
            case .wire(let reader):
                do {
                    polled = try reader.poll(maxMessages: Chunk.preferredSize, timeout: .milliseconds(100)) { record in take(TopicMessage(record)) }
                } catch {
                    failure = error.description
                }
            case .librdkafka(let reader):
                polled = reader.poll(maxMessages: Chunk.preferredSize, timeout: .milliseconds(100)) { batch in
                    for message in batch {
                        if message.isError {
                            failure = message.error?.message
                            continue
                        }
                        take(TopicMessage(message))
                    }
                }
            }
            statistics.bytesRead.add(consumer.bytesTaken - bytesCounted, ordering: .relaxed)
            bytesCounted = consumer.bytesTaken
            if let lag = consumer.lag() { statistics.setLag(lag, reader: index) }
            if !advanced.isEmpty || lastPartition >= 0 || rows.count > 0 || (keyBuilders.first?.count ?? 0) > 0 { flush() }
            if let failure {
                // What was taken before it went out above; our own consumer starts afresh.
                if case .wire = consumer { throw SluiceError(.ioError, failure) }
                statistics.status = "retrying: \(failure)"
            }
            // Reader 0 commits for all of them, whether or not its own partitions moved.
            if index == 0 && ContinuousClock.now - lastCommit > .seconds(1) {
                lastCommit = .now
                let next = source.state.withLock { $0.next }
                if next != committed {
                    try? consumer.commit(options.topic, next.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, group: options.groupID)
                    committed = next
                }
            }
            // The poll waited for messages itself: step again at once.
            return polled > 0 || assigned.isEmpty == false ? .progressed : .idle(.milliseconds(50))
        } catch let error as KafkaClientError {
            throw SluiceError(.ioError, error.message)
        } catch let error as KafkaWireError {
            throw SluiceError(.ioError, "Kafka: \(error.description)")
        } catch let error as SluiceError {
            throw error
        } catch {
            throw SluiceError(.ioError, "\(error)")
        }
    }

    /// What a Debezium change event (`FORMAT DEBEZIUM ENCODE JSON`) does: c, r and u upsert their
    /// `after` row by its primary key; d deletes the key its `before` row (or else the message
    /// key) holds, never retracting a row the table may not have; a tombstone (null value) after
    /// a delete carries nothing. Anything else is a rejected message, counted and kept.
    private enum DebeziumAction {
        case upsert(Range<Int>)
        case delete(Range<Int>?)
        /// ENCODE AVRO: the event as `avroChanges` found it, its rows decoded in place.
        case upsertAvroRow(AvroMessageDecoder.Change)
        case deleteAvroRow(AvroMessageDecoder.Change)
        /// FORMAT DEBEZIUM_MONGO: upserts the document `mongoChanges` decoded.
        case upsertDocument
        /// FORMAT DEBEZIUM_MONGO: deletes the document the event names.
        case deleteDocument(DebeziumMongoEvent)
        case skip
        case reject(String)
    }

    private func debeziumAction(_ message: TopicMessage) -> DebeziumAction {
        if let change = mongoChanges?.change(message.value) {
            switch change {
            case .upsert: return .upsertDocument
            case .delete(let event): return .deleteDocument(event)
            case .skip: return .skip
            case .reject(let problem): return .reject(problem)
            }
        }
        guard let value = message.value else { return .skip }
        if avroChanges != nil { return avroDebeziumAction(value) }
        let event: DebeziumEvent
        do throws(JSONDecodeError) {
            event = try DebeziumEvent.parse(value)
        } catch {
            return .reject("not a Debezium event: \(error.message)")
        }
        let operation = Character(UnicodeScalar(event.operation))
        if event.upserts {
            guard let after = event.after else { return .reject("a Debezium \"\(operation)\" event without \"after\"") }
            return .upsert(after)
        }
        if event.deletes { return .delete(event.before) }
        return .reject("Debezium op \"\(operation)\" is not applied (only c, r, u and d are)")
    }

    /// ``debeziumAction(_:)`` of an Avro event: its envelope is read once, here; ``apply(_:_:)``
    /// decodes the row it found with the same program.
    private func avroDebeziumAction(_ value: UnsafeRawBufferPointer) -> DebeziumAction {
        let found: AvroMessageDecoder.Change?
        do throws(RowParseError) {
            found = try avroChanges?.change(value)
        } catch {
            return .reject("not a Debezium event: \(error.message)")
        }
        guard let event = found else { return .skip }
        let operation = Character(UnicodeScalar(event.operation))
        if event.upserts {
            guard event.after != nil else { return .reject("a Debezium \"\(operation)\" event without \"after\"") }
            return .upsertAvroRow(event)
        }
        if event.deletes { return .deleteAvroRow(event) }
        return .reject("Debezium op \"\(operation)\" is not applied (only c, r, u and d are)")
    }

    /// Applies a Debezium event's rows or key; returns why it could not.
    private func apply(_ action: DebeziumAction, _ message: TopicMessage) -> String? {
        switch action {
        case .skip:
            return nil
        case .reject(let problem):
            return problem
        case .upsert(let after):
            guard let value = message.value else { return nil }
            if let problem = rows.append(message, value: UnsafeRawBufferPointer(rebasing: value[after])) { return problem }
            if checksKeys { origins.append((message.partition, message.offset)) }
            return nil
        case .upsertAvroRow(let event):
            guard let value = message.value else { return nil }
            let problem = rows.append(message, value: value) { (builders) throws(RowParseError) in
                try self.avroChanges?.decodeAfter(event, of: value, into: &builders)
            }
            if problem == nil, checksKeys { origins.append((message.partition, message.offset)) }
            return problem
        case .upsertDocument:
            guard let document = mongoChanges?.document else { return nil }
            let problem = document.withUnsafeBytes { rows.append(message, value: $0) }
            if problem == nil, checksKeys { origins.append((message.partition, message.offset)) }
            return problem
        case .deleteDocument(let event):
            guard let value = message.value else { return nil }
            return mongoChanges?.appendDeletedKey(event, value: value, key: message.key, into: &keyBuilders)
        case .deleteAvroRow(let event):
            guard event.before != nil, let value = message.value else { return decodeKey(message.key) }
            do throws(RowParseError) {
                try avroChanges?.decodeBefore(event, of: value, into: &keyBuilders)
                return nil
            } catch {
                return error.message
            }
        case .delete(let before):
            guard let before, let value = message.value else { return decodeKey(message.key) }
            do throws(JSONDecodeError) {
                try keyDecoder.decodeRow(UnsafeRawBufferPointer(rebasing: value[before]), into: &keyBuilders)
                return nil
            } catch {
                return "before: \(error.message)"
            }
        }
    }

    /// `chunk` without its rows whose primary key has a null column; each is recorded as rejected
    /// at its place in the topic (`origins`, one per row).
    private func rejectNullKeys(_ chunk: Chunk, context: SourceStepContext) -> Chunk {
        let description = source.description
        guard checksKeys, origins.count == chunk.count else { return chunk }
        var keep = Bitmap(count: chunk.count, value: true)
        var rejected = false
        for column in description.primaryKey where chunk.columns[column].hasNulls {
            for row in 0 ..< chunk.count where chunk.columns[column].isNull(row) {
                if keep[row] {
                    keep[row] = false
                    rejected = true
                    context.reject(
                        partition: origins[row].partition, offset: origins[row].offset,
                        message: "primary-key column \"\(description.columns[column].name)\" is null",
                        payload: UnsafeRawBufferPointer(start: nil, count: 0))
                }
            }
        }
        return rejected ? chunk.filter(keep) : chunk
    }

    /// Decodes a FORMAT UPSERT message key into a row of the key builders (only the primary-key
    /// columns matter): a JSON object of the key columns, or, for a one-column key, the key's
    /// value itself (`42`, `"abc"`, or bare text such as `abc`). Returns why it could not.
    private func decodeKey(_ key: UnsafeRawBufferPointer?) -> String? {
        let description = source.description
        guard let key, key.count > 0 else { return "a null value without a key deletes nothing" }
        // ENCODE AVRO: a key in the registry's frame is Avro (a record of the key columns, or
        // the one key column's value); any other key is read as below.
        if avroKeys != nil, key.count >= ConfluentFrame.headerLength, key[0] == 0 {
            do throws(RowParseError) {
                try avroKeys?.decode(key, into: &keyBuilders)
                return nil
            } catch {
                return "key: \(error.message)"
            }
        }
        if key.first(where: { $0 != UInt8(ascii: " ") }) == UInt8(ascii: "{") {
            do throws(JSONDecodeError) {
                try keyDecoder.decodeRow(key, into: &keyBuilders)
                return nil
            } catch {
                return "key: \(error.message)"
            }
        }
        guard description.primaryKey.count == 1 else { return "the key must be a JSON object of the primary-key columns" }
        let name = Array(description.columns[description.primaryKey[0]].name.utf8)
        var wrapped: [UInt8] = Array("{\"".utf8) + name + Array("\":".utf8)
        let asValue = wrapped + Array(key) + [UInt8(ascii: "}")]
        let decodedAsValue: Bool = asValue.withUnsafeBytes { bytes in (try? keyDecoder.decodeRow(bytes, into: &keyBuilders)) != nil }
        if decodedAsValue { return nil }
        // Bare text: as a JSON string, when it needs no escaping.
        guard !key.contains(where: { $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") || $0 < 0x20 }) else {
            return "the key is neither JSON nor plain text"
        }
        wrapped += [UInt8(ascii: "\"")] + Array(key) + Array("\"}".utf8)
        return wrapped.withUnsafeBytes { bytes -> String? in
            do throws(JSONDecodeError) {
                try keyDecoder.decodeRow(bytes, into: &keyBuilders)
                return nil
            } catch {
                return "key: \(error.message)"
            }
        }
    }
}
