#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import SluiceCodecs
import Synchronization

/// A producer that writes records straight into record batches (magic 2) and sends them over the
/// Kafka protocol, for a Kafka sink: an idempotent producer, or with a transactional id a
/// transactional one (KIP-98), on plain connections.
///
/// - **Batches.** Each partition has one open batch, built inside the room of the Produce
///   request that will carry it: a record is framed where it lands, and the request goes out
///   from the same buffer (no copy per message into a client's queue, no thread of its own). A
///   batch is sealed once it holds `batchBytes`, or at ``flush()``; up to `maxInFlight` requests
///   wait for their answers on each connection, read as more go out.
/// - **Kept until released.** Sealed batches stay until ``release()`` (a sink calls it once a
///   checkpoint's records are all acknowledged): after a failure, ``reset()`` registers the
///   producer again and the kept batches go out again, stamped with the new epoch and
///   sequences, before anything new.
/// - **Partitions.** A keyed record goes where Java's default partitioner puts it
///   (``KafkaPartitioner``: murmur2 of the key); records without a key fill one partition's batch
///   and then move to the next (Java's sticky partitioner).
/// - **Sequences.** Every batch carries the producer id, epoch and its first record's sequence
///   number, so the broker appends it once.
/// - **Transactions.** The first batch to a partition in a transaction adds the partition to it
///   (AddPartitionsToTxn); ``sendOffsets(group:partition:offset:)`` commits a consumer group's
///   offset with it (AddOffsetsToTxn, TxnOffsetCommit); ``commit()`` ends it (EndTxn). A
///   transaction begins with the first batch sent after the last ended.
/// - **Failures** throw ``KafkaWireError`` (with the broker's error code when it answered one).
///
/// Not thread-safe: one thread at a time.
package final class KafkaBatchProducer {
    package struct Settings: Sendable {
        /// -1: every in-sync replica has the records before the broker answers; 1: the leader.
        package var acks: Int16 = -1
        /// A batch is sealed once it holds this many bytes (librdkafka's `batch.size`).
        package var batchBytes = 1_000_000
        package var compression: RecordBatchCompression = .uncompressed
        /// How long the coordinator lets a transaction stay open.
        package var transactionTimeoutMs: Int32 = 60_000
        /// How long any answer may take.
        package var timeout: Duration = .seconds(30)
        /// Produce requests waiting for answers, per connection (at most 5 keeps the broker's
        /// sequence checks whole).
        package var maxInFlight = 5
        /// Where released batches' buffers wait for the next ones; producers may share one.
        package var pool = KafkaBufferPool()
        /// The newest Produce version to speak (nil: the newest the broker and Sluice share).
        package var produceVersion: Int16?

        package init() {}
    }

    package let topic: String
    package let transactionalID: String?
    /// The id and epoch the broker gave this producer.
    package private(set) var producerID: Int64 = -1
    package private(set) var producerEpoch: Int16 = -1
    /// Records appended since the last ``release()``.
    package private(set) var heldRecords = 0
    private let settings: Settings
    private let bootstrap: [(host: String, port: Int)]

    /// Produce connections by "host:port", and each partition's leader's. Other requests go on
    /// connections of their own, so that their answers do not queue behind Produce answers.
    private var links: [String: Link] = [:]
    private var leaders: [String] = []
    /// A bootstrap broker, for Metadata and FindCoordinator.
    private var control: KafkaWireClient?
    private var coordinator: KafkaWireClient?
    private var groupCoordinators: [String: KafkaWireClient] = [:]

    /// Bytes before each batch, room for the Produce request's size, header and fields before
    /// the records (written right-aligned when the batch goes out).
    private let room: Int
    /// Sealed batches, oldest first, until ``release()``; those from `unsent` on are not sent
    /// since the producer was last registered.
    private var sealed: [Sealed] = []
    private var unsent = 0

    /// Per partition: its open batch (`room`, the batch header's room, then records), their
    /// count and timestamps, the next sequence number, and whether the transaction holds it.
    private var batches: [ByteBuffer] = []
    private var counts: [Int32] = []
    private var baseTimestamps: [Int64] = []
    private var maxTimestamps: [Int64] = []
    private var sequences: [Int32] = []
    private var added: [Bool] = []
    /// Whether the open transaction holds a consumer group's offsets.
    private var offsetsAdded = false
    private var partitioner = KafkaPartitioner(partitionCount: 1)
    private var sticky: Int32 = 0
    /// ``appendValues(lengths:timestamp:write:)``'s record bodies and value offsets.
    private var recordBodies: [Int] = []
    private var valueStarts: [Int] = []
    /// The bytes of every open batch, so that many partitions do not each hold a full batch.
    private var openBytes = 0

    private struct Sealed {
        var partition: Int32
        var records: Int32
        /// `room`, the batch, and room for the request's fields after the records.
        var frame: ByteBuffer
        /// Where the batch ends in `frame`.
        var end: Int
    }

    /// A Produce request around one batch, at `version`: its bytes before the records' length
    /// (the partition index is their last four), whether that length is a compact varint, and
    /// the bytes after the records.
    private struct Template {
        var version: Int16
        var prefix: [UInt8]
        var compact: Bool
        var suffix: [UInt8]
    }

    /// A Produce connection and its request around one batch (its requests in flight are the
    /// client's).
    private final class Link {
        let client: KafkaWireClient
        var template: Template?

        init(_ client: KafkaWireClient) {
            self.client = client
        }
    }

    /// Connects to `bootstrap` ("host:port[,host:port…]"), learns `topic`'s partitions and
    /// leaders (asking the broker to create it if it allows), and registers the producer.
    package init(bootstrap: String, topic: String, transactionalID: String?, settings: Settings = Settings()) throws(KafkaWireError) {
        self.topic = topic
        self.transactionalID = transactionalID
        self.settings = settings
        self.bootstrap = bootstrap.split(separator: ",").compactMap { Self.hostAndPort(String($0)) }
        room = 128 + topic.utf8.count + (transactionalID?.utf8.count ?? 0)
        guard !self.bootstrap.isEmpty else { throw KafkaWireError("no broker address in \"\(bootstrap)\"") }
        try learnPartitions()
        try register()
    }

    /// Registers the producer again after a failure: a new epoch (or producer id), which aborts
    /// the transaction it had open and starts its sequences over. The batches it holds go out
    /// again, before any new one.
    package func reset() throws(KafkaWireError) {
        forgetConnections()
        try learnPartitions()
        try register()
    }

    private func register() throws(KafkaWireError) {
        let request = InitProducerIdRequest(transactionalID: transactionalID, transactionTimeoutMs: settings.transactionTimeoutMs)
        let response: InitProducerIdResponse = try retrying("register the producer") { () throws(KafkaWireError) in
            let client = try transactionalID == nil ? controlClient() : transactionCoordinator()
            let response = try client.send(request)
            return (response, response.errorCode)
        }
        producerID = response.producerID
        producerEpoch = response.producerEpoch
        for partition in sequences.indices {
            sequences[partition] = 0
            added[partition] = false
        }
        offsetsAdded = false
        unsent = 0
    }

    /// Drops every connection (one failed: what it had in flight is lost with it).
    private func forgetConnections() {
        links = [:]
        control = nil
        coordinator = nil
        groupCoordinators = [:]
    }

    // MARK: - Records

    /// Frames one record into its partition's batch, sealing the batch once it is full (nothing
    /// is sent here: ``sendSealed()`` sends). The record is held from here on, whatever fails.
    package func append(key: UnsafeRawBufferPointer?, value: UnsafeRawBufferPointer?, timestamp: Int64) {
        var partition = key == nil ? sticky : partitioner.partition(for: key)
        let keyLength = key.map { $0.count } ?? -1
        let valueLength = value.map { $0.count } ?? -1
        while true {
            let index = Int(partition)
            let delta = counts[index] == 0 ? 0 : timestamp &- baseTimestamps[index]
            let body = 1 + Self.varintSize(delta) + Self.varintSize(Int64(counts[index])) + Self.varintSize(Int64(keyLength)) + max(keyLength, 0)
                + Self.varintSize(Int64(valueLength)) + max(valueLength, 0) + 1
            let size = Self.varintSize(Int64(body)) + body
            if counts[index] > 0 && batches[index].readableBytes - room + size > settings.batchBytes {
                seal(partition)
                if key == nil {
                    sticky = (sticky + 1) % partitioner.partitionCount
                    partition = sticky
                }
                continue
            }
            stamp(index, timestamp)
            let offsetDelta = Int64(counts[index])
            batches[index].writeWithUnsafeMutableBytes(minimumWritableBytes: size) { out in
                var at = Self.writeVarint(Int64(body), to: out, at: 0)
                out[at] = 0
                at += 1
                at = Self.writeVarint(delta, to: out, at: at)
                at = Self.writeVarint(offsetDelta, to: out, at: at)
                at = Self.writeVarint(Int64(keyLength), to: out, at: at)
                if let key, keyLength > 0 {
                    out.baseAddress!.advanced(by: at).copyMemory(from: key.baseAddress!, byteCount: keyLength)
                    at += keyLength
                }
                at = Self.writeVarint(Int64(valueLength), to: out, at: at)
                if let value, valueLength > 0 {
                    out.baseAddress!.advanced(by: at).copyMemory(from: value.baseAddress!, byteCount: valueLength)
                    at += valueLength
                }
                out[at] = 0  // No headers.
                return at + 1
            }
            counts[index] += 1
            heldRecords += 1
            openBytes += size
            if openBytes > 8 * settings.batchBytes { sealAll() }
            return
        }
    }

    /// Appends `lengths.count` records without keys whose values `write` puts in place: it is
    /// called with a range of the records, the base address, and where each value of the range
    /// starts past it (room for its length). Records fill the sticky partition's batch, then the
    /// next, as ``append(key:value:timestamp:)`` does; nothing is sent here.
    package func appendValues(
        lengths: UnsafeBufferPointer<Int>, timestamp: Int64, write: (Range<Int>, UnsafeMutableRawPointer, UnsafeBufferPointer<Int>) -> Void
    ) {
        let count = lengths.count
        // The scratch arrays as locals for the loops (a class's stored property is checked for
        // exclusive access at every use), given back at the end.
        var bodies: [Int] = []
        var starts: [Int] = []
        swap(&bodies, &recordBodies)
        swap(&starts, &valueStarts)
        defer {
            swap(&bodies, &recordBodies)
            swap(&starts, &valueStarts)
        }
        var next = 0
        while next < count {
            let partition = sticky
            let index = Int(partition)
            stamp(index, timestamp)
            let delta = timestamp &- baseTimestamps[index]
            let firstDelta = Int64(counts[index])
            let space = settings.batchBytes - (batches[index].readableBytes - room)
            // As many records as the batch has room for (at least one in an empty batch).
            var total = 0
            var taken = 0
            bodies.removeAll(keepingCapacity: true)
            let opened = counts[index] > 0
            while next + taken < count {
                let length = lengths[next + taken]
                let body = 1 + Self.varintSize(delta) + Self.varintSize(firstDelta + Int64(taken)) + 1 + Self.varintSize(Int64(length)) + length + 1
                let size = Self.varintSize(Int64(body)) + body
                if (opened || taken > 0) && total + size > space { break }
                bodies.append(body)
                total += size
                taken += 1
            }
            if taken > 0 {
                starts.removeAll(keepingCapacity: true)
                batches[index].writeWithUnsafeMutableBytes(minimumWritableBytes: total) { out in
                    var at = 0
                    for record in 0 ..< taken {
                        at = Self.writeVarint(Int64(bodies[record]), to: out, at: at)
                        out[at] = 0
                        at = Self.writeVarint(delta, to: out, at: at + 1)
                        at = Self.writeVarint(firstDelta + Int64(record), to: out, at: at)
                        at = Self.writeVarint(-1, to: out, at: at)  // No key.
                        let length = lengths[next + record]
                        at = Self.writeVarint(Int64(length), to: out, at: at)
                        starts.append(at)
                        at += length
                        out[at] = 0  // No headers.
                        at += 1
                    }
                    starts.withUnsafeBufferPointer { starts in write(next ..< next + taken, out.baseAddress!, starts) }
                    return total
                }
                counts[index] += Int32(taken)
                heldRecords += taken
                openBytes += total
                next += taken
            }
            if next < count {
                seal(partition)
                sticky = (sticky + 1) % partitioner.partitionCount
            }
        }
        if openBytes > 8 * settings.batchBytes { sealAll() }
    }

    /// Opens the partition's batch (a pooled buffer, room for the request and the header) if it
    /// has no record, and takes `timestamp` into its timestamps.
    private func stamp(_ index: Int, _ timestamp: Int64) {
        guard counts[index] > 0 else {
            baseTimestamps[index] = timestamp
            maxTimestamps[index] = timestamp
            if batches[index].readableBytes == 0 {
                batches[index] = settings.pool.take(capacity: room + settings.batchBytes + 256)
                batches[index].writeRepeatingByte(0, count: room + RecordBatchHeader.size)
            }
            return
        }
        maxTimestamps[index] = max(maxTimestamps[index], timestamp)
    }

    /// Sends every batch (the open ones sealed) and waits until the broker has acknowledged all.
    package func flush() throws(KafkaWireError) {
        sealAll()
        try sendSealed()
        try awaitAnswers()
    }

    /// Forgets the batches held: their records are acknowledged (after ``flush()``).
    package func release() {
        for index in sealed.indices {
            var buffer = ByteBuffer()
            swap(&buffer, &sealed[index].frame)
            settings.pool.give(consume buffer)
        }
        sealed.removeAll(keepingCapacity: true)
        unsent = 0
        heldRecords = counts.reduce(0) { $0 + Int($1) }
    }

    /// The bytes the producer holds: its batches, open and sealed (not its pool's).
    package var heldBytes: Int {
        sealed.reduce(0) { $0 + $1.frame.capacity } + batches.reduce(0) { $0 + $1.capacity }
    }

    private func sealAll() {
        for partition in counts.indices where counts[partition] > 0 { seal(Int32(partition)) }
    }

    private func awaitAnswers() throws(KafkaWireError) {
        for link in links.values {
            while link.client.requestsInFlight > 0 { try receive(on: link) }
        }
    }

    /// Closes the partition's batch: its header but for the producer's fields and the CRC, which
    /// ``transmit(_:)`` stamps.
    private func seal(_ partition: Int32) {
        let index = Int(partition)
        let count = counts[index]
        guard count > 0 else { return }
        var attributes = Int16(settings.compression.rawValue)
        if transactionalID != nil { attributes |= RecordBatchHeader.AttributeBit.transactional }
        openBytes -= batches[index].readableBytes - room
        counts[index] = 0
        var frame = ByteBuffer()
        swap(&frame, &batches[index])
        if let codec = settings.compression.codec {
            var compressed = settings.pool.take(capacity: room + settings.batchBytes / 2)
            compressed.writeRepeatingByte(0, count: room + RecordBatchHeader.size)
            compressed.writeBytes(frame.withUnsafeReadableBytes { codec.compress(UnsafeRawBufferPointer(rebasing: $0[(room + RecordBatchHeader.size)...])) })
            settings.pool.give(consume frame)
            frame = compressed
        }
        let end = frame.writerIndex
        let header = RecordBatchHeader(
            baseOffset: 0, batchLength: Int32(end - room - RecordBatchHeader.lengthPrefixSize), partitionLeaderEpoch: -1,
            magic: RecordBatchHeader.currentMagic, crc: 0, attributes: attributes, lastOffsetDelta: count - 1,
            baseTimestamp: baseTimestamps[index], maxTimestamp: maxTimestamps[index], producerID: -1, producerEpoch: -1,
            baseSequence: -1, recordCount: count)
        header.set(in: &frame, at: room)
        sealed.append(Sealed(partition: partition, records: count, frame: frame, end: end))
    }

    /// Sends the sealed batches not sent since the producer was last registered.
    package func sendSealed() throws(KafkaWireError) {
        while unsent < sealed.count {
            try transmit(unsent)
            unsent += 1
        }
    }

    /// Stamps sealed batch `position` with the producer's id, epoch and the partition's next
    /// sequence, checksums it, writes the Produce request around it and sends it.
    private func transmit(_ position: Int) throws(KafkaWireError) {
        let partition = sealed[position].partition
        let index = Int(partition)
        try addToTransaction(partition)
        let link = try link(to: leaders[index])
        let template = try template(of: link)
        while link.client.requestsInFlight >= settings.maxInFlight { try receive(on: link) }

        let end = sealed[position].end
        let records = sealed[position].records
        let sequence = sequences[index]
        let next = Int64(sequence) + Int64(records)
        // Sequence numbers wrap to 0 past Int32.max, as Kafka's do.
        sequences[index] = Int32(next > Int64(Int32.max) ? next - Int64(Int32.max) - 1 : next)
        let batchLength = end - room
        var length: [UInt8] = []
        if template.compact {
            var value = UInt32(batchLength + 1)
            while value >= 0x80 {
                length.append(UInt8(truncatingIfNeeded: value) | 0x80)
                value >>= 7
            }
            length.append(UInt8(value))
        } else {
            withUnsafeBytes(of: Int32(batchLength).bigEndian) { length += $0 }
        }
        let start = room - template.prefix.count - length.count
        precondition(start >= 0, "a Produce request's fields outgrew the room before its batch")
        Self.wrap(
            &sealed[position].frame, room: room, end: end, producer: (producerID, producerEpoch, sequence),
            request: (template, start, partition, length))
        try link.client.sendFrame(&sealed[position].frame)
    }

    /// Stamps the batch in `frame` (producer id, epoch, first sequence, CRC) and writes the
    /// Produce request around it: `template`'s prefix ending at the batch (from `start`) with the
    /// partition and the records' length filled in, its suffix after, the frame's size first.
    private static func wrap(
        _ frame: inout ByteBuffer, room: Int, end: Int, producer: (id: Int64, epoch: Int16, sequence: Int32),
        request: (template: Template, start: Int, partition: Int32, length: [UInt8])
    ) {
        frame.setInteger(producer.id, at: room + RecordBatchHeader.Position.producerID)
        frame.setInteger(producer.epoch, at: room + RecordBatchHeader.Position.producerEpoch)
        frame.setInteger(producer.sequence, at: room + RecordBatchHeader.Position.baseSequence)
        let crcStart = room + RecordBatchHeader.Position.attributes
        frame.setInteger(frame.crc32c(at: crcStart, length: end - crcStart)!, at: room + RecordBatchHeader.Position.crc)
        frame.moveWriterIndex(to: end)
        frame.writeBytes(request.template.suffix)
        let start = request.start
        frame.setBytes(request.template.prefix, at: start)
        frame.setInteger(request.partition, at: start + request.template.prefix.count - 4)
        frame.setBytes(request.length, at: start + request.template.prefix.count)
        frame.setInteger(Int32(frame.writerIndex - start - 4), at: start)
        frame.moveReaderIndex(to: start)
    }

    /// The link's Produce request around one batch: written once with a one-byte batch, then
    /// cut around it.
    private func template(of link: Link) throws(KafkaWireError) -> Template {
        if let template = link.template { return template }
        var version = try link.client.version(of: .produce)
        if let newest = settings.produceVersion { version = min(version, newest) }
        var buffer = ByteBuffer()
        ProduceRequest(
            transactionalID: transactionalID, acks: settings.acks, timeoutMs: Int32(settings.timeout.components.seconds * 1000),
            topicData: [.init(name: topic, partitionData: [.init(index: 0, records: ByteBuffer(bytes: [0xA5]))])]
        ).writeFrame(to: &buffer, version: version, correlationID: 0, clientID: link.client.clientID)
        let bytes = Array(buffer.readableBytesView)
        let compact = KafkaAPI.produce.isFlexible(version)
        // After the records: the partition's, the topic's and the request's tagged fields.
        let marker = bytes.count - (compact ? 3 : 0) - 1
        let lengthSize = compact ? 1 : 4
        guard marker > lengthSize, bytes[marker] == 0xA5, bytes[marker - 1] == (compact ? 2 : 1) else {
            throw KafkaWireError("cannot lay out a Produce request (version \(version))")
        }
        let template = Template(version: version, prefix: Array(bytes[..<(marker - lengthSize)]), compact: compact, suffix: Array(bytes[(marker + 1)...]))
        link.template = template
        return template
    }

    private func addToTransaction(_ partition: Int32) throws(KafkaWireError) {
        let index = Int(partition)
        guard let transactionalID, !added[index] else { return }
        let request = AddPartitionsToTxnRequest(
            transactionalID: transactionalID, producerID: producerID, producerEpoch: producerEpoch,
            topics: [.init(name: topic, partitions: [partition])])
        let _: AddPartitionsToTxnResponse = try retrying("add \(topic)[\(partition)] to the transaction") { () throws(KafkaWireError) in
            let response = try transactionCoordinator().send(request)
            let code = response.resultsByTopic.lazy.flatMap(\.resultsByPartition).first { $0.partitionErrorCode != 0 }?.partitionErrorCode ?? 0
            return (response, code)
        }
        added[index] = true
    }

    /// Reads the answer to the oldest request in flight on `link`.
    private func receive(on link: Link) throws(KafkaWireError) {
        let response = try link.client.receive(ProduceRequest.self, version: link.template?.version)
        for answer in response.responses.lazy.flatMap(\.partitionResponses) where answer.errorCode != 0 {
            throw KafkaWireError(
                "producing to \(topic)[\(answer.index)] failed: \(KafkaErrorCode(rawValue: answer.errorCode))\(answer.errorMessage.map { ": \($0)" } ?? "")",
                code: KafkaErrorCode(rawValue: answer.errorCode))
        }
    }

    // MARK: - Transactions

    /// Makes `offset` of partition `partition` of the topic the committed offset of consumer group
    /// `group` when (and only when) the open transaction commits.
    package func sendOffsets(group: String, partition: Int32, offset: Int64) throws(KafkaWireError) {
        guard let transactionalID else { throw KafkaWireError("only a transactional producer sends offsets") }
        let add = AddOffsetsToTxnRequest(transactionalID: transactionalID, producerID: producerID, producerEpoch: producerEpoch, groupID: group)
        let _: AddOffsetsToTxnResponse = try retrying("add group \(group) to the transaction") { () throws(KafkaWireError) in
            let response = try transactionCoordinator().send(add)
            return (response, response.errorCode)
        }
        offsetsAdded = true
        let commit = TxnOffsetCommitRequest(
            transactionalID: transactionalID, groupID: group, producerID: producerID, producerEpoch: producerEpoch,
            topics: [.init(name: topic, partitions: [.init(partitionIndex: partition, committedOffset: offset)])])
        let _: TxnOffsetCommitResponse = try retrying("commit group \(group)'s offset in the transaction") { () throws(KafkaWireError) in
            let client: KafkaWireClient
            if let known = groupCoordinators[group] {
                client = known
            } else {
                client = try findCoordinator(of: group, keyType: 0)
                groupCoordinators[group] = client
            }
            let response = try client.send(commit)
            let code = response.topics.lazy.flatMap(\.partitions).first { $0.errorCode != 0 }?.errorCode ?? 0
            if code == KafkaErrorCode.notCoordinator.rawValue { groupCoordinators[group] = nil }
            return (response, code)
        }
    }

    /// Commits the open transaction (flush first: its records must all be acknowledged). After a
    /// failed connection it may be asked again: it connects anew.
    package func commit() throws(KafkaWireError) {
        do {
            try endTransaction(committed: true)
        } catch {
            if error.code == nil { forgetConnections() }
            throw error
        }
    }

    /// Aborts the open transaction; the batches held are dropped.
    package func abort() throws(KafkaWireError) {
        for partition in batches.indices where counts[partition] > 0 {
            openBytes -= batches[partition].readableBytes - room
            batches[partition].clear()
            counts[partition] = 0
        }
        try awaitAnswers()
        release()
        try endTransaction(committed: false)
    }

    private func endTransaction(committed: Bool) throws(KafkaWireError) {
        guard let transactionalID else { return }
        guard added.contains(true) || offsetsAdded else { return }
        let request = EndTxnRequest(transactionalID: transactionalID, producerID: producerID, producerEpoch: producerEpoch, committed: committed)
        let _: EndTxnResponse = try retrying(committed ? "commit the transaction" : "abort the transaction") { () throws(KafkaWireError) in
            let response = try transactionCoordinator().send(request)
            return (response, response.errorCode)
        }
        for partition in added.indices { added[partition] = false }
        offsetsAdded = false
    }


    // MARK: - Cluster

    /// Asks `request` until it answers without a retriable error or the timeout passes:
    /// COORDINATOR_LOAD_IN_PROGRESS and CONCURRENT_TRANSACTIONS wait a little, NOT_COORDINATOR
    /// looks the coordinator up again.
    private func retrying<Response>(_ what: String, _ request: () throws(KafkaWireError) -> (Response, Int16)) throws(KafkaWireError) -> Response {
        let deadline = ContinuousClock.now + settings.timeout
        var pause = Duration.milliseconds(5)
        while true {
            let (response, code) = try request()
            guard code != 0 else { return response }
            let error = KafkaErrorCode(rawValue: code)
            switch error {
            case .coordinatorLoadInProgress, .concurrentTransactions, .notCoordinator, .coordinatorNotAvailable:
                if error == .notCoordinator || error == .coordinatorNotAvailable { coordinator = nil }
                guard ContinuousClock.now < deadline else { throw KafkaWireError("cannot \(what): the broker still answered \(error) after \(settings.timeout)") }
                usleepDuration(pause)
                pause = min(pause * 2, .milliseconds(200))
            default:
                throw KafkaWireError("cannot \(what): the broker answered \(error)", code: error)
            }
        }
    }

    private func transactionCoordinator() throws(KafkaWireError) -> KafkaWireClient {
        if let coordinator { return coordinator }
        guard let transactionalID else { throw KafkaWireError("not a transactional producer") }
        let found = try findCoordinator(of: transactionalID, keyType: 1)
        coordinator = found
        return found
    }

    /// A connection to the coordinator of a group (key type 0) or transactional id (1).
    private func findCoordinator(of key: String, keyType: Int8) throws(KafkaWireError) -> KafkaWireClient {
        let found: FindCoordinatorResponse.Coordinator = try retrying("find the coordinator of \(key)") { () throws(KafkaWireError) in
            let response = try controlClient().send(FindCoordinatorRequest(keyType: keyType, keys: [key]))
            guard let coordinator = response.coordinators.first else { throw KafkaWireError("the broker named no coordinator of \(key)") }
            return (coordinator, coordinator.errorCode)
        }
        return try KafkaWireClient(host: found.host, port: Int(found.port), timeout: settings.timeout)
    }

    /// Learns the topic's partitions and their leaders (Metadata, allowing the broker to create
    /// the topic), waiting while a new topic has none.
    private func learnPartitions() throws(KafkaWireError) {
        let deadline = ContinuousClock.now + settings.timeout
        while true {
            let client = try controlClient()
            let response = try client.send(MetadataRequest(topics: [.init(name: topic)], allowAutoTopicCreation: true))
            let nodes = Dictionary(response.brokers.map { ($0.nodeID, "\($0.host):\($0.port)") }, uniquingKeysWith: { first, _ in first })
            if let found = response.topics.first(where: { $0.name == topic }), found.errorCode == 0, !found.partitions.isEmpty,
                found.partitions.allSatisfy({ $0.errorCode == 0 && nodes[$0.leaderID] != nil })
            {
                let ordered = found.partitions.sorted { $0.partitionIndex < $1.partitionIndex }
                guard ordered.enumerated().allSatisfy({ $0.offset == Int($0.element.partitionIndex) }) else {
                    throw KafkaWireError("topic \(topic)'s partitions are not numbered from 0")
                }
                let count = ordered.count
                if batches.count != count {
                    guard heldRecords == 0 else { throw KafkaWireError("topic \(topic)'s partition count changed from \(batches.count) to \(count)") }
                    batches = (0 ..< count).map { _ in ByteBuffer() }
                    counts = Array(repeating: 0, count: count)
                    baseTimestamps = Array(repeating: 0, count: count)
                    maxTimestamps = Array(repeating: 0, count: count)
                    sequences = Array(repeating: 0, count: count)
                    added = Array(repeating: false, count: count)
                    partitioner = KafkaPartitioner(partitionCount: Int32(count))
                    sticky = Int32.random(in: 0 ..< Int32(count))
                    openBytes = 0
                }
                leaders = ordered.map { nodes[$0.leaderID]! }
                return
            }
            guard ContinuousClock.now < deadline else {
                let code = response.topics.first { $0.name == topic }?.errorCode ?? 0
                throw KafkaWireError("topic \(topic) is not available (\(KafkaErrorCode(rawValue: code))); does it exist?")
            }
            usleepDuration(.milliseconds(100))
        }
    }

    /// A connection to the first bootstrap broker that answers.
    private func controlClient() throws(KafkaWireError) -> KafkaWireClient {
        if control == nil { control = try KafkaWireClient.first(of: bootstrap, timeout: settings.timeout) }
        return control!
    }

    private func link(to address: String) throws(KafkaWireError) -> Link {
        try links.value(address) { () throws(KafkaWireError) in Link(try KafkaWireClient(address: address, timeout: settings.timeout)) }
    }

    package static func hostAndPort(_ address: String) -> (host: String, port: Int)? {
        let trimmed = address.filter { $0 != " " }
        guard let colon = trimmed.lastIndex(of: ":"), let port = Int(trimmed[trimmed.index(after: colon)...]) else { return nil }
        var host = String(trimmed[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host, port)
    }

    // MARK: - Varints

    @inline(__always)
    static func varintSize(_ value: Int64) -> Int {
        var zigzag = UInt64(bitPattern: (value << 1) ^ (value >> 63))
        var size = 1
        while zigzag >= 0x80 {
            zigzag >>= 7
            size += 1
        }
        return size
    }

    @inline(__always)
    static func writeVarint(_ value: Int64, to out: UnsafeMutableRawBufferPointer, at start: Int) -> Int {
        var zigzag = UInt64(bitPattern: (value << 1) ^ (value >> 63))
        var at = start
        while zigzag >= 0x80 {
            out[at] = UInt8(truncatingIfNeeded: zigzag) | 0x80
            zigzag >>= 7
            at += 1
        }
        out[at] = UInt8(truncatingIfNeeded: zigzag)
        return at + 1
    }
}

private func usleepDuration(_ duration: Duration) {
    let (seconds, attoseconds) = duration.components
    var request = timespec(tv_sec: Int(seconds), tv_nsec: Int(attoseconds / 1_000_000_000))
    nanosleep(&request, nil)
}

/// Buffers of sent batches waiting to hold the next ones, so that a producer's steady state
/// allocates nothing (fresh memory costs a page fault a page). Thread-safe; keeps up to
/// ``capacity`` buffers: a sink holds each epoch's batches until its checkpoint is durable, two
/// epochs' at a time, about 60 MB an epoch at 1.5 million JSON rows a second and barriers every
/// 250 ms, so a smaller pool freed and allocated again most of them every epoch.
package final class KafkaBufferPool: Sendable {
    private let buffers = Mutex<[ByteBuffer]>([])
    static let capacity = 160

    package init() {}

    /// A cleared buffer from the pool, or a new one of `capacity`.
    func take(capacity: Int) -> ByteBuffer {
        if let buffer = buffers.withLock({ $0.popLast() }) { return buffer }
        return ByteBufferAllocator().buffer(capacity: capacity)
    }

    /// Takes `buffer` back. (Moved in: a ByteBuffer cleared while shared gets new storage.)
    func give(_ buffer: consuming ByteBuffer) {
        buffer.clear()
        let cleared = consume buffer
        buffers.withLock { buffers in
            if buffers.count < Self.capacity { buffers.append(cleared) }
        }
    }

    /// The bytes waiting in the pool.
    package var bytes: Int {
        buffers.withLock { $0.reduce(0) { $0 + $1.capacity } }
    }
}
