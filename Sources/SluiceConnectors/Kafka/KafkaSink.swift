import Foundation
import SluiceCore
import SluiceDataflow
import SluiceKafkaClient
import SluiceKafkaProtocol

/// `CREATE SINK s FROM v WITH (connector = 'kafka', properties.bootstrap.server = '…',
/// topic = '…') FORMAT PLAIN|UPSERT|DEBEZIUM ENCODE JSON|AVRO`: a view's changes as messages on a
/// topic, exactly once (RisingWave documents its Kafka sink as at least once). With ENCODE AVRO
/// the schemas are derived from the columns and registered with the schema registry at CREATE
/// (``KafkaAvroSchemas``).
///
/// Each checkpoint's messages go out in one Kafka transaction, produced as the changes arrive
/// and committed once the checkpoint is durable, so a `read_committed` consumer sees each change
/// once whatever crashes:
/// - ``prepare(epoch:)`` flushes the transaction's messages (all acknowledged) and adds to it
///   the progress marker: consumer group `sluice-sink-<sink id>` commits the epoch as its
///   offset of partition 0 of the topic, atomically with the messages. The token the checkpoint
///   keeps names the transactional id, producer id and epoch.
/// - ``commit(_:)`` commits it. The next checkpoint's messages meanwhile go into the other of
///   two producers (transactional ids `sluice-sink-<sink id>-0` and `-1`); a producer whose
///   transaction still waits for its commit holds its next writes back.
/// - After a crash, ``resume(_:)`` reads the progress marker and commits each prepared
///   transaction the checkpoint holds and Kafka does not, as the producer that prepared it
///   (``KafkaTransactionLedger``); only then are the producers made again, which aborts every
///   other transaction they left open (their checkpoints never became durable, so their changes
///   come again).
/// - A failed flush aborts the transaction; the messages it held are kept and produced again
///   into a new one at the next checkpoint, which this one sits out.
///
/// With `is_exactly_once = 'false'` one idempotent producer writes, flushed at each checkpoint.
///
/// The producers frame the messages into record batches themselves and send them over the Kafka
/// protocol (``KafkaBatchProducer``); with TLS or SASL in the properties, which that producer
/// does not speak, librdkafka's producer does the same work.
package final class KafkaSink: StreamSink, @unchecked Sendable {
    /// Every checkpoint commits its own transaction.
    package var defaultCommitInterval: Int { 1 }

    /// A slot's producer.
    private enum Producer {
        case batches(KafkaBatchProducer)
        case librdkafka(KafkaProducer)
    }

    private final class Slot {
        let transactionalID: String
        var producer: Producer?
        /// The producer id and epoch (librdkafka's producer: learnt at the first prepare, its
        /// statistics show them a moment after the producer starts).
        var identity: (producerID: Int64, epoch: Int16)?
        var inTransaction = false
        /// A failed ``KafkaBatchProducer/reset()``, to be tried again before the next send.
        var needsReset = false
        /// The epoch prepared in the open transaction, until it commits.
        var prepared: UInt64?
        /// Deliveries that had failed when the transaction began.
        var failuresBefore = 0

        init(transactionalID: String) {
            self.transactionalID = transactionalID
        }
    }

    private let options: KafkaSinkOptions
    private let description: SinkDescription
    private var encoder: KafkaMessageEncoder
    /// ENCODE AVRO's schemas while the registry has not given their ids (a restart when it did
    /// not answer): registered before the first write.
    private var unregistered: KafkaAvroSchemas?
    /// The messages since the last prepare; those before `produced` are in the open transaction.
    /// (With ``KafkaBatchProducer``, which holds what it was given until the prepare, the
    /// messages not given to it yet.)
    private var staged = KafkaMessageBuffer()
    private var produced = 0
    /// Messages given to a ``KafkaBatchProducer`` since the last prepare.
    private var held = 0
    private let memory = MemoryShare(.sinkBuffers)
    /// The buffers of sent batches, shared by the slots' producers.
    private let pool = KafkaBufferPool()
    private let progressGroup: String
    private let timeout = Duration.seconds(60)

    private let condition = NSCondition()
    // Guarded by `condition` (the fragment writes and prepares, the committer commits).
    private var slots: [Slot]
    private var active = 0
    /// The last epoch Kafka holds, as far as this sink knows.
    private var committedThrough: UInt64?
    private var closed = false

    init(_ description: SinkDescription, validate: Bool) throws(SluiceError) {
        self.description = description
        options = try KafkaSinkOptions(description)
        var avro: (schemas: KafkaAvroSchemas, ids: KafkaAvroSchemaIDs)?
        if let registry = options.registry {
            // ENCODE AVRO: the schemas are registered at CREATE, where a refusal is the
            // statement's error; at a restart a registry that does not answer is asked again at
            // the first write.
            let schemas = KafkaAvroSchemas(
                topic: options.topic, columns: description.columns, keyColumns: description.primaryKey, keyAsText: options.keyAsText,
                format: options.format)
            do throws(SluiceError) {
                avro = (schemas, try schemas.register(with: registry, topic: options.topic))
            } catch {
                if validate { throw error }
                unregistered = schemas
            }
        }
        encoder = KafkaMessageEncoder(
            format: options.format, columns: description.columns, keyColumns: description.primaryKey, keyAsText: options.keyAsText,
            database: "dev", table: description.name, source: options.debeziumSource, avro: avro)
        progressGroup = "sluice-sink-\(description.sinkID)"
        slots = options.exactlyOnce
            ? (0 ..< 2).map { Slot(transactionalID: "sluice-sink-\(description.sinkID)-\($0)") }
            : [Slot(transactionalID: "")]
        // A new sink has nothing to resume: its producers are made now. One made again at a
        // restart makes them in resume(_:), once the prepared transactions are committed (or at
        // its first write or checkpoint, when the checkpoint held nothing prepared).
        if validate {
            condition.lock()
            defer { condition.unlock() }
            // At CREATE an unreachable cluster is an error within seconds.
            for slot in slots { try makeProducer(slot, within: .seconds(10)) }
        }
    }

    // MARK: - The fragment's side

    package func write(_ chunk: StreamChunk) throws(SluiceError) {
        if let schemas = unregistered, let registry = options.registry {
            let ids = try schemas.register(with: registry, topic: options.topic)
            encoder = KafkaMessageEncoder(
                format: options.format, columns: description.columns, keyColumns: description.primaryKey, keyAsText: options.keyAsText,
                database: "dev", table: description.name, source: options.debeziumSource, avro: (schemas, ids))
            unregistered = nil
        }
        defer { countMemory() }
        // Rows framed straight into the producer's batches, when the format allows.
        if staged.isEmpty, !options.needsLibrdkafka {
            let slot = try activeSlot()
            if case .batches(let producer) = slot.producer,
                encoder.appendInPlace(chunk, to: producer, nowMilliseconds: Self.nowMilliseconds())
            {
                held += chunk.count
                try send(producer, slot)
                return
            }
        }
        encoder.encode(chunk, nowMilliseconds: Self.nowMilliseconds(), into: &staged)
        guard produced < staged.count else { return }
        try produceStaged()
    }

    private func countMemory() {
        var bytes = staged.byteCount + encoder.heldByteCount + pool.bytes
        for slot in slots { if case .batches(let producer) = slot.producer { bytes += producer.heldBytes } }
        memory.set(bytes)
    }

    package func prepare(epoch: UInt64) throws(SluiceError) -> [UInt8]? {
        encoder.flushHeld(nowMilliseconds: Self.nowMilliseconds(), into: &staged)
        guard !staged.isEmpty || held > 0 else { return nil }
        let slot = try produceStaged()
        guard let producer = slot.producer else { throw SluiceError(.ioError, "kafka sink \(description.name): its producer is gone") }
        do {
            switch producer {
            case .batches(let producer):
                try producer.flush()
                if options.exactlyOnce { try producer.sendOffsets(group: progressGroup, partition: 0, offset: Int64(epoch)) }
                slot.identity = (producer.producerID, producer.producerEpoch)
                producer.release()
            case .librdkafka(let producer):
                try producer.flush(timeout: timeout)
                let report = producer.deliveryReport
                if report.failed > slot.failuresBefore {
                    throw report.lastError ?? KafkaClientError(code: .timedOut, name: "_DELIVERY", message: "messages were not delivered")
                }
                if options.exactlyOnce {
                    try producer.sendOffsetsToTransaction(group: progressGroup, topic: options.topic, partition: 0, offset: Int64(epoch), timeout: timeout)
                    if slot.identity == nil { slot.identity = try producer.transactionalIdentity(timeout: timeout) }
                }
            }
        } catch {
            abortTransaction(slot)
            throw SluiceError(
                .ioError, "kafka sink \(description.name): \(Self.message(error))",
                detail: "The checkpoint's messages are kept and go out again at the next checkpoint.")
        }
        let token = Token(slot: active, transactionalID: slot.transactionalID, producerID: slot.identity?.producerID ?? -1,
                          producerEpoch: slot.identity?.epoch ?? -1, messages: staged.count + held)
        condition.lock()
        if options.exactlyOnce {
            slot.prepared = epoch
            active = (active + 1) % slots.count
        }
        condition.unlock()
        staged.removeAll()
        produced = 0
        held = 0
        countMemory()
        return token.encoded
    }

    private static func nowMilliseconds() -> Int64 {
        Int64(Date().timeIntervalSince1970 * 1000)
    }

    private static func message(_ error: any Error) -> String {
        switch error {
        case let error as KafkaClientError: error.message
        case let error as KafkaWireError: error.description
        default: "\(error)"
        }
    }

    /// Produces the staged messages not yet in the open transaction (beginning one); returns
    /// the slot written to.
    @discardableResult
    private func produceStaged() throws(SluiceError) -> Slot {
        let slot = try activeSlot()
        guard let producer = slot.producer else { throw SluiceError(.ioError, "kafka sink \(description.name): its producer is gone") }
        switch producer {
        case .batches(let producer):
            // The producer holds the messages from here on; what fails below, they go out later.
            let now = Self.nowMilliseconds()
            staged.forEachMessage(from: produced) { key, value in producer.append(key: key, value: value, timestamp: now) }
            held += staged.count - produced
            staged.removeAll()
            produced = 0
            try send(producer, slot)
            return slot
        case .librdkafka(let producer):
            try produce(with: producer, slot)
            return slot
        }
    }

    /// Sends what `producer` has sealed (registering it again first after a failure).
    private func send(_ producer: KafkaBatchProducer, _ slot: Slot) throws(SluiceError) {
        slot.inTransaction = options.exactlyOnce
        do throws(KafkaWireError) {
            if slot.needsReset {
                try producer.reset()
                slot.needsReset = false
            }
            try producer.sendSealed()
        } catch {
            abortTransaction(slot)
            throw SluiceError(
                .ioError, "kafka sink \(description.name): \(error.description)",
                detail: "The messages are kept and go out again in a new transaction.")
        }
    }

    private func produce(with producer: KafkaProducer, _ slot: Slot) throws(SluiceError) {
        do throws(KafkaClientError) {
            if options.exactlyOnce && !slot.inTransaction {
                try producer.beginTransaction()
                slot.inTransaction = true
                slot.failuresBefore = producer.deliveryReport.failed
            } else if !options.exactlyOnce && produced == 0 {
                slot.failuresBefore = producer.deliveryReport.failed
            }
            while produced < staged.count {
                try staged.withMessage(produced) { (key, value) throws(KafkaClientError) in
                    try producer.produce(topic: options.topic, key: key, value: value)
                }
                produced += 1
            }
        } catch {
            abortTransaction(slot)
            throw error.sluiceError
        }
    }

    /// The slot the fragment writes to, its producer made: waits while its last transaction
    /// waits for its commit.
    private func activeSlot() throws(SluiceError) -> Slot {
        condition.lock()
        defer { condition.unlock() }
        while slots[active].prepared != nil && !closed { condition.wait() }
        if closed { throw SluiceError(.ioError, "kafka sink \(description.name) is closed") }
        let slot = slots[active]
        if slot.producer == nil { try makeProducer(slot) }
        return slot
    }

    /// Aborts the slot's transaction (its messages stay staged, to be produced again).
    private func abortTransaction(_ slot: Slot) {
        produced = 0
        if case .batches(let producer) = slot.producer {
            // Registering again aborts the open transaction and starts the sequences over; the
            // producer keeps its messages for the next transaction.
            slot.inTransaction = false
            do {
                try producer.reset()
                slot.needsReset = false
            } catch {
                slot.needsReset = true
            }
            return
        }
        guard options.exactlyOnce, slot.inTransaction, case .librdkafka(let producer) = slot.producer else { return }
        slot.inTransaction = false
        do {
            try producer.abortTransaction(timeout: timeout)
        } catch {
            // A producer that cannot abort is made anew; its successor's registration aborts it.
            condition.lock()
            slot.producer = nil
            condition.unlock()
        }
    }

    /// Makes the slot's producer (registering its transactional id, which aborts whatever an
    /// earlier one left open) and learns its producer id and epoch. Call with the lock held.
    private func makeProducer(_ slot: Slot, within timeout: Duration = .seconds(30)) throws(SluiceError) {
        if !options.needsLibrdkafka {
            do {
                try KafkaProducer.check(properties: options.producerProperties)
                var settings = options.batchSettings(timeout: timeout)
                settings.pool = pool
                let producer = try KafkaBatchProducer(
                    bootstrap: options.bootstrapServers, topic: options.topic, transactionalID: options.exactlyOnce ? slot.transactionalID : nil,
                    settings: settings)
                slot.identity = (producer.producerID, producer.producerEpoch)
                slot.producer = .batches(producer)
                slot.inTransaction = false
                slot.prepared = nil
                return
            } catch {
                throw SluiceError(
                    .ioError, "kafka sink \(description.name): cannot start its producer: \(Self.message(error))",
                    hint: "Check properties.bootstrap.server and that the cluster allows transactions (or set is_exactly_once = 'false').")
            }
        }
        do {
            if options.exactlyOnce {
                let producer = try KafkaProducer(
                    bootstrapServers: options.bootstrapServers, properties: options.producerProperties, transactionalID: slot.transactionalID)
                try producer.initTransactions(timeout: timeout)
                slot.identity = nil
                slot.producer = .librdkafka(producer)
            } else {
                var properties = options.producerProperties
                properties.removeValue(forKey: "transaction.timeout.ms")
                slot.producer = .librdkafka(try KafkaProducer(bootstrapServers: options.bootstrapServers, properties: properties))
            }
            slot.inTransaction = false
            slot.prepared = nil
        } catch {
            throw SluiceError(
                .ioError, "kafka sink \(description.name): cannot start its producer: \(error.message)",
                hint: "Check properties.bootstrap.server and that the cluster allows transactions (or set is_exactly_once = 'false').")
        }
    }

    // MARK: - The committer's side

    package func commit(_ prepared: [PreparedEpoch]) throws(SluiceError) -> SinkCommitSummary {
        var rows = 0
        for entry in prepared {
            let token = try Token(entry.token)
            condition.lock()
            let done = committedThrough.map { entry.epoch <= $0 } ?? false
            let slot = token.slot < slots.count ? slots[token.slot] : nil
            let live = slot?.prepared == entry.epoch ? slot?.producer : nil
            condition.unlock()
            if done { continue }
            if let live, let slot {
                do {
                    switch live {
                    case .batches(let producer): try producer.commit()
                    case .librdkafka(let producer): try producer.commitTransaction(timeout: timeout)
                    }
                } catch {
                    if Self.transactionIsLost(error) {
                        // The transaction is lost (the producer was fenced): nothing can bring
                        // its messages back. The slot gets a new producer.
                        condition.lock()
                        slot.producer = nil
                        slot.prepared = nil
                        slot.inTransaction = false
                        condition.broadcast()
                        condition.unlock()
                    }
                    throw SluiceError(.ioError, "kafka sink \(description.name): cannot commit the transaction of epoch \(entry.epoch): \(Self.message(error))")
                }
                condition.lock()
                slot.prepared = nil
                slot.inTransaction = false
                condition.broadcast()
                condition.unlock()
            } else if options.exactlyOnce {
                try KafkaTransactionLedger.commit(
                    bootstrap: options.bootstrapServers, transactionalID: token.transactionalID, producerID: token.producerID,
                    epoch: token.producerEpoch)
            }
            condition.lock()
            committedThrough = max(committedThrough ?? 0, entry.epoch)
            condition.unlock()
            rows += token.messages
        }
        return SinkCommitSummary(rows: rows)
    }

    /// Whether a failed commit lost its transaction (the producer was fenced, or the
    /// coordinator aborted it): nothing can bring its messages back.
    private static func transactionIsLost(_ error: any Error) -> Bool {
        switch error {
        case let error as KafkaClientError:
            return error.transactionState == .fatal || error.transactionState == .requiresAbort
        case let error as KafkaWireError:
            guard let code = error.code else { return false }
            return [.invalidProducerEpoch, .producerFenced, .invalidTxnState, .invalidProducerIDMapping].contains(code)
        default:
            return false
        }
    }

    package func lastCommittedEpoch() throws(SluiceError) -> UInt64? {
        guard options.exactlyOnce else { return nil }
        return try KafkaTransactionLedger.lastCommittedEpoch(bootstrap: options.bootstrapServers, group: progressGroup, topic: options.topic)
    }

    /// Commits what the checkpoint prepared and Kafka does not hold yet, as the producers that
    /// prepared it, before any new producer could abort it.
    package func resume(_ pending: [PreparedEpoch]) throws(SluiceError) {
        guard options.exactlyOnce else { return }
        let last = pending.isEmpty ? nil : try lastCommittedEpoch()
        var through = last
        for entry in pending.sorted(by: { $0.epoch < $1.epoch }) where entry.epoch > (last ?? 0) || last == nil {
            let token = try Token(entry.token)
            try KafkaTransactionLedger.commit(
                bootstrap: options.bootstrapServers, transactionalID: token.transactionalID, producerID: token.producerID,
                epoch: token.producerEpoch)
            through = entry.epoch
        }
        condition.lock()
        defer { condition.unlock() }
        committedThrough = through
        // Now the producers may abort what else the previous run left open.
        for slot in slots where slot.producer == nil { try makeProducer(slot) }
    }

    /// With nothing to commit, makes the producers that are not made yet: their registration
    /// aborts what the previous run left open, so consumers reading committed messages are not
    /// held back by it until its timeout. (A durable checkpoint comes after the restore, so
    /// ``resume(_:)``, if the checkpoint held anything prepared, has run.)
    package func idle() {
        condition.lock()
        defer { condition.unlock() }
        guard !closed else { return }
        for slot in slots where slot.producer == nil { try? makeProducer(slot) }
    }

    package func close() {
        condition.lock()
        closed = true
        let producers = slots.compactMap(\.producer)
        for slot in slots { slot.producer = nil }
        condition.broadcast()
        condition.unlock()
        // A prepared transaction is left open: the checkpoint holds it, and the next start
        // commits it.
        for case .librdkafka(let producer) in producers { try? producer.close(timeout: .seconds(5)) }
        memory.set(0)
    }

    /// What a prepared epoch's commit needs: which producer prepared it, as whom.
    private struct Token {
        var slot: Int
        var transactionalID: String
        var producerID: Int64
        var producerEpoch: Int16
        var messages: Int

        init(slot: Int, transactionalID: String, producerID: Int64, producerEpoch: Int16, messages: Int) {
            self.slot = slot
            self.transactionalID = transactionalID
            self.producerID = producerID
            self.producerEpoch = producerEpoch
            self.messages = messages
        }

        /// Little-endian: slot (int32), producer id (int64), epoch (int16), messages (int64),
        /// then the transactional id's UTF-8.
        var encoded: [UInt8] {
            var bytes: [UInt8] = []
            withUnsafeBytes(of: Int32(slot).littleEndian) { bytes += $0 }
            withUnsafeBytes(of: producerID.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: producerEpoch.littleEndian) { bytes += $0 }
            withUnsafeBytes(of: Int64(messages).littleEndian) { bytes += $0 }
            bytes += Array(transactionalID.utf8)
            return bytes
        }

        init(_ bytes: [UInt8]) throws(SluiceError) {
            guard bytes.count >= 22 else { throw SluiceError(.dataCorrupted, "a kafka sink's prepared transaction is damaged") }
            func integer<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
                var value: T = 0
                withUnsafeMutableBytes(of: &value) { $0.copyBytes(from: bytes[offset ..< offset + MemoryLayout<T>.size]) }
                return T(littleEndian: value)
            }
            slot = Int(integer(Int32.self, at: 0))
            producerID = integer(Int64.self, at: 4)
            producerEpoch = integer(Int16.self, at: 12)
            messages = Int(integer(Int64.self, at: 14))
            transactionalID = String(decoding: bytes[22...], as: UTF8.self)
        }
    }
}
