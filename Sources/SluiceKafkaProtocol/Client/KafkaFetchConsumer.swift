#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import SluiceCodecs
import SluiceCore

/// A record a fetch returned, read in place from the response (or from its batch, decompressed):
/// valid only inside the ``KafkaFetchConsumer/poll(maxMessages:timeout:_:)`` closure that got it.
package struct KafkaFetchedRecord {
    package var partition: Int32
    package var offset: Int64
    /// Milliseconds since the Unix epoch (create or log-append time, as the topic keeps it).
    package var timestamp: Int64
    package var key: UnsafeRawBufferPointer?
    package var value: UnsafeRawBufferPointer?
}

/// A Kafka consumer of our own over the Kafka protocol, for a source's readers: it reads the
/// partitions of one topic it is assigned, from the offsets it is given, never joining a group
/// (the engine keeps its offsets in checkpoints and only commits them so lag tools see them).
///
/// **Fetching.** One Fetch in flight per leader, sent again as soon as its answer is read, before
/// its records are handed out: the broker reads and sends the next megabyte while the caller
/// decodes this one. The next offsets come from the answer's batch headers (the records are not
/// needed for them). Records are read in place, each a varint walk over the batch; a compressed
/// batch is decompressed once, when its answer is read.
///
/// **read_committed** (the default, as librdkafka's): the broker answers up to the last stable
/// offset with the transactions aborted in that range; the batches of an aborted transaction are
/// skipped up to its abort marker (Kafka's `Fetcher`), control batches always.
///
/// **Failures.** A partition whose leader moved or is unknown has its metadata learned again; an
/// offset out of range goes to the nearest end of the log; a connection that fails is dropped and
/// its fetch sent again later; each is the thrown error of the poll that met it, for the caller's
/// status, and the next poll goes on.
///
/// Plain connections only: a cluster that needs TLS or SASL is read through librdkafka.
/// Not `Sendable`: one thread at a time.
package final class KafkaFetchConsumer {
    package struct Settings: Sendable {
        /// `isolation.level`: read_committed unless `read_uncommitted`.
        package var readCommitted = true
        /// `fetch.max.bytes`, `max.partition.fetch.bytes`. 4 MB a partition where Kafka's
        /// consumers ask for 1: with one fetch in flight, a reader of a backlog otherwise waits
        /// for the next answer a good part of the time (the broker reads it from the disk).
        package var maxBytes: Int32 = 16 << 20
        package var partitionMaxBytes: Int32 = 4 << 20
        /// `fetch.wait.max.ms`: the most a fetch waits at the broker for data (the poll's timeout
        /// caps it).
        package var maxWait: Duration = .milliseconds(500)
        /// How long a request may take before the connection counts as failed.
        package var timeout: Duration = .seconds(30)

        package init() {}

        /// The settings librdkafka's `properties` name, the rest as defaults.
        package init(properties: [(key: String, value: String)]) {
            for (key, value) in properties {
                switch key.lowercased() {
                case "isolation.level": readCommitted = value.lowercased() != "read_uncommitted"
                case "fetch.max.bytes": if let bytes = Int32(value), bytes > 0 { maxBytes = bytes }
                case "max.partition.fetch.bytes": if let bytes = Int32(value), bytes > 0 { partitionMaxBytes = bytes }
                case "fetch.wait.max.ms": if let milliseconds = Int(value), milliseconds >= 0 { maxWait = .milliseconds(milliseconds) }
                default: break
                }
            }
        }
    }

    private let bootstrap: [(host: String, port: Int)]
    private let settings: Settings
    private var control: KafkaWireClient?
    /// A connection per leader for its fetches, and one for its other requests (ListOffsets),
    /// which must not queue behind a fetch.
    private var links: [String: Link] = [:]
    private var requestLinks: [String: KafkaWireClient] = [:]
    private var coordinators: [String: KafkaWireClient] = [:]

    private var topic = ""
    /// The assigned partitions: the next offset to fetch, the leader, the last high watermark.
    private var partitions: [Int32: PartitionState] = [:]
    private var leadersKnown = false
    /// Answers read and not handed out yet, oldest first.
    private var pending: [Pending] = []
    private var takenBytes = 0
    private var fetchesSent = 0
    /// The answers held (``pending``) in the process's memory ledger.
    private let held = MemoryShare(.sourceBuffers)

    private struct PartitionState {
        var next: Int64
        var leader: String?
        var high: Int64 = -1
        /// The offset after the last record handed out.
        var delivered: Int64
    }

    private final class Link {
        let client: KafkaWireClient
        /// The partitions of the fetch in flight, with the offsets asked; empty when none is.
        var fetching: [(partition: Int32, offset: Int64)] = []
        var version: Int16 = 0
        /// When its fetch was sent (a count): answers are read oldest first.
        var sent = 0

        init(_ client: KafkaWireClient) {
            self.client = client
        }
    }

    /// A partition's records from one answer: runs of records (a batch each, or its decompressed
    /// records), handed out from ``run`` at byte ``position``.
    private struct Pending {
        var partition: Int32
        var runs: [Run]
        var run = 0
        var position = 0
        var bytes: Int
    }

    struct Run {
        /// The batch's records section, or its decompressed records.
        var records: ByteBuffer
        var baseOffset: Int64
        var baseTimestamp: Int64
        /// Log-append time: every record carries the batch's max timestamp.
        var logAppendTime: Int64?
        var remaining: Int
        /// Records before this offset were handed out before (a batch fetched from its middle).
        var from: Int64
    }

    /// A consumer of the cluster at `bootstrapServers` ("host:port[,host:port…]"); connects on
    /// first use.
    package init(bootstrapServers: String, settings: Settings = Settings()) throws(KafkaWireError) {
        bootstrap = bootstrapServers.split(separator: ",").compactMap { KafkaBatchProducer.hostAndPort(String($0)) }
        guard !bootstrap.isEmpty else { throw KafkaWireError("no broker address in \(bootstrapServers)") }
        self.settings = settings
    }

    deinit {
        held.set(0)
    }

    /// Value bytes of the records handed out so far.
    package var bytesTaken: Int { takenBytes }

    /// Records behind the end of the assigned partitions, from the high watermarks of the last
    /// answers (no request); nil until each partition's is known.
    package func lag() -> Int? {
        guard !partitions.isEmpty else { return nil }
        var behind = 0
        for state in partitions.values {
            guard state.high >= 0 else { return nil }
            behind += Int(max(0, state.high - state.delivered))
        }
        return behind
    }

    /// Drops every connection and what was fetched: the next call starts afresh from the
    /// assigned offsets not handed out yet.
    package func close() {
        links = [:]
        requestLinks = [:]
        coordinators = [:]
        control = nil
        forgetFetched()
    }

    private func forgetFetched() {
        pending = []
        held.set(0)
        for partition in partitions.keys { partitions[partition]!.next = partitions[partition]!.delivered }
        // A fetch in flight answers on its connection: a connection is dropped with it.
        links = links.filter { $0.value.fetching.isEmpty }
    }

    // MARK: Metadata and offsets

    /// The topic's partitions, in order.
    /// - Throws: with code `.unknownTopicOrPartition` when the cluster has no such topic.
    package func partitions(of topic: String) throws(KafkaWireError) -> [Int32] {
        try metadata(topic).map(\.partition)
    }

    /// Each partition of `topic` with its leader's address.
    private func metadata(_ topic: String) throws(KafkaWireError) -> [(partition: Int32, leader: String?)] {
        let response = try request { () throws(KafkaWireError) in
            try controlClient().send(MetadataRequest(topics: [.init(name: topic)], allowAutoTopicCreation: false))
        }
        let nodes = Dictionary(response.brokers.map { ($0.nodeID, "\($0.host):\($0.port)") }, uniquingKeysWith: { first, _ in first })
        guard let found = response.topics.first(where: { $0.name == topic }) else {
            throw KafkaWireError("the cluster did not describe topic \(topic)", code: .unknownTopicOrPartition)
        }
        guard found.errorCode == 0 else {
            let code = KafkaErrorCode(rawValue: found.errorCode)
            throw KafkaWireError("topic \(topic): \(code)", code: code)
        }
        return found.partitions.map { ($0.partitionIndex, nodes[$0.leaderID]) }.sorted { $0.partition < $1.partition }
    }

    /// The first offset and the end of a partition (its high watermark).
    package func watermarks(topic: String, partition: Int32) throws(KafkaWireError) -> (low: Int64, high: Int64) {
        let low = try listOffset(topic: topic, partition: partition, timestamp: -2)
        let high = try listOffset(topic: topic, partition: partition, timestamp: -1)
        return (low ?? 0, high ?? 0)
    }

    /// The first offset of each partition whose record's timestamp is at or after
    /// `milliseconds`; nil for a partition with none (read it from its end).
    package func offsets(forTimestamp milliseconds: Int64, topic: String, partitions: [Int32]) throws(KafkaWireError) -> [Int32: Int64?] {
        var result: [Int32: Int64?] = [:]
        for partition in partitions { result[partition] = try listOffset(topic: topic, partition: partition, timestamp: milliseconds) }
        return result
    }

    private func listOffset(topic: String, partition: Int32, timestamp: Int64) throws(KafkaWireError) -> Int64? {
        let leaders = try metadata(topic)
        guard let leader = leaders.first(where: { $0.partition == partition })?.leader else {
            throw KafkaWireError("partition \(partition) of topic \(topic) has no leader", code: .leaderNotAvailable)
        }
        let client = try requestClient(leader)
        let response: ListOffsetsResponse
        do {
            response = try client.send(ListOffsetsRequest(topics: [.init(name: topic, partitions: [.init(partitionIndex: partition, timestamp: timestamp)])]))
        } catch {
            requestLinks[leader] = nil
            throw error
        }
        guard let answer = response.topics.first?.partitions.first else { throw KafkaWireError("the broker did not answer ListOffsets for \(topic)") }
        guard answer.errorCode == 0 else {
            let code = KafkaErrorCode(rawValue: answer.errorCode)
            throw KafkaWireError("cannot list offsets of \(topic) partition \(partition): \(code)", code: code)
        }
        return answer.offset < 0 ? nil : answer.offset
    }

    /// The client of `group`'s coordinator, found once and kept.
    private func coordinator(of group: String) throws(KafkaWireError) -> KafkaWireClient {
        if let known = coordinators[group] { return known }
        let found = try controlClient().send(FindCoordinatorRequest(keyType: 0, keys: [group]))
        guard let coordinator = found.coordinators.first, coordinator.errorCode == 0 else {
            throw KafkaWireError("no coordinator for group \(group)", code: found.coordinators.first.map { KafkaErrorCode(rawValue: $0.errorCode) })
        }
        let client = try KafkaWireClient(host: coordinator.host, port: Int(coordinator.port), timeout: settings.timeout)
        coordinators[group] = client
        return client
    }

    /// The offsets `group` has committed for `partitions` of `topic`; a partition it has
    /// committed nothing for is left out.
    package func committedOffsets(topic: String, partitions: [Int32], group: String) throws(KafkaWireError) -> [Int32: Int64] {
        guard !partitions.isEmpty else { return [:] }
        let client = try coordinator(of: group)
        let response: OffsetFetchResponse
        do throws(KafkaWireError) {
            response = try client.send(OffsetFetchRequest(groupID: group, topics: [.init(name: topic, partitionIndexes: partitions)]))
        } catch {
            coordinators[group] = nil
            throw error
        }
        guard response.errorCode == 0 else {
            let code = KafkaErrorCode(rawValue: response.errorCode)
            if code == .notCoordinator || code == .coordinatorNotAvailable { coordinators[group] = nil }
            throw KafkaWireError("cannot fetch the offsets committed by group \(group): \(code)", code: code)
        }
        var offsets: [Int32: Int64] = [:]
        for partition in response.topics.lazy.filter({ $0.name == topic }).flatMap(\.partitions) {
            guard partition.errorCode == 0 else {
                let code = KafkaErrorCode(rawValue: partition.errorCode)
                throw KafkaWireError("cannot fetch the offset of \(topic) partition \(partition.partitionIndex) committed by group \(group): \(code)", code: code)
            }
            if partition.committedOffset >= 0 { offsets[partition.partitionIndex] = partition.committedOffset }
        }
        return offsets
    }

    /// Commits `offsets` (partition, next offset) of `topic` to `group`, from outside the group.
    package func commit(topic: String, offsets: [(partition: Int32, offset: Int64)], group: String) throws(KafkaWireError) {
        let client = try coordinator(of: group)
        do throws(KafkaWireError) {
            let response = try client.send(OffsetCommitRequest(
                groupID: group, topics: [.init(name: topic, partitions: offsets.map { .init(partitionIndex: $0.partition, committedOffset: $0.offset) })]))
            if let failed = response.topics.lazy.flatMap(\.partitions).first(where: { $0.errorCode != 0 }) {
                let code = KafkaErrorCode(rawValue: failed.errorCode)
                if code == .notCoordinator || code == .coordinatorNotAvailable { coordinators[group] = nil }
                throw KafkaWireError("cannot commit the offsets of group \(group): \(code)", code: code)
            }
        } catch {
            if error.code == nil { coordinators[group] = nil }
            throw error
        }
    }

    // MARK: Reading

    /// From now on reads exactly these partitions of `topic`, each from its offset; an empty
    /// list stops reading. What was fetched and not handed out is dropped.
    package func assign(topic: String, _ assignments: [(partition: Int32, offset: Int64)]) {
        forgetFetched()
        if topic != self.topic { leadersKnown = false }
        self.topic = topic
        let old = partitions
        partitions = [:]
        for (partition, offset) in assignments {
            partitions[partition] = PartitionState(next: offset, leader: old[partition]?.leader, high: old[partition]?.high ?? -1, delivered: offset)
        }
        if assignments.contains(where: { old[$0.partition]?.leader == nil }) { leadersKnown = false }
    }

    /// Hands at most `maxMessages` records to `body`, one at a time, read in place; waits up to
    /// about `timeout` for them when none is fetched yet.
    ///
    /// - Returns: How many records were handed out.
    /// - Throws: A connection's or the broker's failure; nothing fetched is lost by it (the
    ///   next poll fetches again from the first record not handed out).
    @discardableResult
    package func poll(maxMessages: Int, timeout: Duration, _ body: (KafkaFetchedRecord) -> Void) throws(KafkaWireError) -> Int {
        guard !partitions.isEmpty else { return 0 }
        if pending.isEmpty {
            try sendFetches(wait: timeout)
            try readAnswer()
            // Sent again at once: the broker reads the next records while these are taken.
            try sendFetches(wait: timeout)
        }
        var given = 0
        while given < maxMessages, !pending.isEmpty {
            given += try deliver(maxMessages - given, body)
            if pending.first.map({ $0.run >= $0.runs.count }) ?? false {
                pending.removeFirst()
                held.set(pending.reduce(0) { $0 + $1.bytes })
            }
        }
        return given
    }

    /// Sends a fetch to each leader with none in flight, for its partitions that have no answer
    /// waiting.
    private func sendFetches(wait: Duration) throws(KafkaWireError) {
        if !leadersKnown { try learnLeaders() }
        // A partition a fetch in flight asks for waits for its answer.
        let asked = Set(links.values.flatMap { $0.fetching.map(\.partition) })
        var byLeader: [String: [(partition: Int32, offset: Int64)]] = [:]
        for (partition, state) in partitions where !asked.contains(partition) {
            guard let leader = state.leader else { continue }
            byLeader[leader, default: []].append((partition, state.next))
        }
        let waitMs = Int32(clamping: min(wait, settings.maxWait).milliseconds)
        for (leader, asked) in byLeader {
            let link = try link(to: leader)
            guard link.fetching.isEmpty else { continue }
            let sorted = asked.sorted { $0.partition < $1.partition }
            let request = FetchRequest(
                maxWaitMs: waitMs, minBytes: 1, maxBytes: settings.maxBytes, isolationLevel: settings.readCommitted ? 1 : 0,
                topics: [.init(topic: topic, partitions: sorted.map {
                    .init(partition: $0.partition, currentLeaderEpoch: -1, fetchOffset: $0.offset, lastFetchedEpoch: -1, logStartOffset: -1,
                          partitionMaxBytes: settings.partitionMaxBytes)
                })])
            do {
                link.version = try link.client.version(of: .fetch)
                try link.client.sendWithoutResponse(request, version: link.version)
            } catch {
                drop(leader)
                throw error
            }
            link.fetching = sorted
            fetchesSent += 1
            link.sent = fetchesSent
        }
    }

    /// Reads the answer of the fetch sent first among those in flight, and queues its records.
    private func readAnswer() throws(KafkaWireError) {
        guard let (leader, link) = links.filter({ !$0.value.fetching.isEmpty }).min(by: { $0.value.sent < $1.value.sent }) else { return }
        let response: FetchResponse
        do {
            response = try link.client.receive(FetchRequest.self, version: link.version)
        } catch {
            drop(leader)
            throw error
        }
        let asked = link.fetching
        link.fetching = []
        if response.errorCode != 0 {
            throw KafkaWireError("the broker refused the fetch: \(KafkaErrorCode(rawValue: response.errorCode))", code: KafkaErrorCode(rawValue: response.errorCode))
        }
        var failure: KafkaWireError?
        for answer in response.responses.first(where: { $0.topic == topic })?.partitions ?? [] {
            let partition = answer.partitionIndex
            guard let state = partitions[partition], let offset = asked.first(where: { $0.partition == partition })?.offset, state.next == offset else {
                continue
            }
            let code = KafkaErrorCode(rawValue: answer.errorCode)
            switch code {
            case .noError:
                break
            case .offsetOutOfRange:
                // The log no longer (or not yet) holds the offset: read on from its nearest end.
                let marks = try watermarks(topic: topic, partition: partition)
                let moved = offset < marks.low ? marks.low : marks.high
                partitions[partition]?.next = moved
                partitions[partition]?.delivered = moved
                continue
            case .notLeaderOrFollower, .unknownTopicOrPartition, .leaderNotAvailable, KafkaErrorCode(rawValue: 74), KafkaErrorCode(rawValue: 75):
                // (74, 75: FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH.)
                leadersKnown = false
                failure = KafkaWireError("partition \(partition) of topic \(topic): \(code)", code: code)
                continue
            default:
                failure = KafkaWireError("cannot fetch partition \(partition) of topic \(topic): \(code)", code: code)
                continue
            }
            partitions[partition]?.high = answer.highWatermark
            guard let records = answer.records, records.readableBytes > 0 else { continue }
            let (runs, next) = try Self.runs(of: records, from: offset, aborted: settings.readCommitted ? answer.abortedTransactions ?? [] : [])
            partitions[partition]?.next = max(offset, next)
            guard !runs.isEmpty else { continue }
            pending.append(Pending(partition: partition, runs: runs, bytes: runs.reduce(0) { $0 + $1.records.readableBytes }))
        }
        held.set(pending.reduce(0) { $0 + $1.bytes })
        if let failure { throw failure }
    }

    /// The runs of records to hand out of a partition's records (its whole batches; a batch cut
    /// off at the end is fetched again next time), and the offset after its last whole batch.
    static func runs(of records: ByteBuffer, from offset: Int64, aborted: [FetchResponse.AbortedTransaction]) throws(KafkaWireError) -> ([Run], Int64) {
        var runs: [Run] = []
        var next = offset
        var index = records.readerIndex
        let end = records.writerIndex
        let abortedInOrder = aborted.sorted { $0.firstOffset < $1.firstOffset }
        var nextAborted = 0
        var aborting = Set<Int64>()
        while end - index >= RecordBatchHeader.size {
            guard let header = RecordBatchHeader(from: records, at: index) else { break }
            let size = Int(header.batchLength) + 12
            guard header.batchLength >= 0, end - index >= size else { break }
            guard header.magic == 2 else { throw KafkaWireError("topic record batch of message format \(header.magic) at offset \(header.baseOffset): only format 2 is read") }
            let lastOffset = header.baseOffset &+ Int64(header.lastOffsetDelta)
            defer {
                index += size
                next = max(next, lastOffset &+ 1)
            }
            while nextAborted < abortedInOrder.count, abortedInOrder[nextAborted].firstOffset <= lastOffset {
                aborting.insert(abortedInOrder[nextAborted].producerID)
                nextAborted += 1
            }
            if header.isControl {
                // An abort marker ends its producer's aborted transaction (a commit marker: it was
                // never among them).
                if header.isTransactional { aborting.remove(header.producerID) }
                continue
            }
            if header.isTransactional && aborting.contains(header.producerID) { continue }
            guard lastOffset >= offset, header.recordCount > 0 else { continue }
            guard var section = records.getSlice(at: index + RecordBatchHeader.size, length: size - RecordBatchHeader.size) else { break }
            guard let compression = header.compression else {
                throw KafkaWireError("record batch at offset \(header.baseOffset) has unknown compression \(header.compressionCodecID)")
            }
            if let codec = compression.codec {
                let result = section.withUnsafeReadableBytes { bytes in
                    Result { () throws(CompressionError) in try codec.decompress(bytes, maximumOutputSize: RecordBatchView.defaultMaximumDecompressedSize) }
                }
                switch result {
                case .success(let bytes): section = ByteBuffer(bytes: bytes)
                case .failure(let error): throw KafkaWireError("record batch at offset \(header.baseOffset) does not decompress: \(error)")
                }
            }
            runs.append(Run(
                records: section, baseOffset: header.baseOffset, baseTimestamp: header.baseTimestamp,
                logAppendTime: header.timestampType == .logAppendTime ? header.maxTimestamp : nil, remaining: Int(header.recordCount), from: offset))
        }
        return (runs, next)
    }

    /// Hands out up to `limit` records of the first pending answer.
    private func deliver(_ limit: Int, _ body: (KafkaFetchedRecord) -> Void) throws(KafkaWireError) -> Int {
        var entry = pending[0]
        let partition = entry.partition
        var given = 0
        var bytes = 0
        var lastOffset: Int64 = -1
        var failure: KafkaWireError?
        while given < limit, entry.run < entry.runs.count {
            let run = entry.runs[entry.run]
            var remaining = run.remaining
            var position = entry.position
            run.records.withUnsafeReadableBytes { raw in
                while remaining > 0, given < limit {
                    var problem = ""
                    guard let fields = Self.record(in: raw, at: position, problem: &problem) else {
                        failure = Self.malformed(run, problem)
                        return
                    }
                    position = fields.next
                    remaining -= 1
                    let (timestampDelta, offsetDelta, key, value) = (fields.timestampDelta, fields.offsetDelta, fields.key, fields.value)
                    let offset = run.baseOffset &+ offsetDelta
                    guard offset >= run.from else { continue }
                    body(KafkaFetchedRecord(
                        partition: partition, offset: offset, timestamp: run.logAppendTime ?? run.baseTimestamp &+ timestampDelta, key: key, value: value))
                    bytes &+= value?.count ?? 0
                    lastOffset = offset
                    given += 1
                }
            }
            if let failure {
                // The answer is dropped: it is fetched again from the first record not handed out.
                pending.removeFirst()
                if lastOffset >= 0 { partitions[partition]?.delivered = lastOffset + 1 }
                forgetFetched()
                throw failure
            }
            if remaining == 0 {
                entry.run += 1
                entry.position = 0
            } else {
                entry.runs[entry.run].remaining = remaining
                entry.position = position
            }
        }
        pending[0] = entry
        takenBytes &+= bytes
        if lastOffset >= 0 { partitions[partition]?.delivered = lastOffset + 1 }
        return given
    }

    /// A record's fields, read in place from its batch's records.
    struct RecordFields {
        var timestampDelta: Int64
        var offsetDelta: Int64
        var key: UnsafeRawBufferPointer?
        var value: UnsafeRawBufferPointer?
        /// Where the next record starts.
        var next: Int
    }

    /// The record at `position` of `raw` (length varint, attributes, timestamp and offset
    /// deltas, key, value; the headers are passed over by its length); nil when any of it runs
    /// past its length or past `raw`, with `problem` saying which.
    @inline(__always)
    static func record(in raw: UnsafeRawBufferPointer, at position: Int, problem: inout String) -> RecordFields? {
        var at = position
        guard let length = varint(raw, &at), length >= 0, Int(length) <= raw.count - at else {
            problem = "a record's length"
            return nil
        }
        let recordEnd = at + Int(length)
        at += 1  // attributes
        guard at <= recordEnd, let timestampDelta = varint(raw, &at), let offsetDelta = varint(raw, &at),
            let keyLength = varint(raw, &at), at <= recordEnd
        else {
            problem = "a record's header"
            return nil
        }
        var key: UnsafeRawBufferPointer?
        if keyLength >= 0 {
            guard Int(keyLength) <= recordEnd - at else {
                problem = "a record's key"
                return nil
            }
            key = UnsafeRawBufferPointer(rebasing: raw[at ..< at + Int(keyLength)])
            at += Int(keyLength)
        }
        guard let valueLength = varint(raw, &at), at <= recordEnd, valueLength < 0 || Int(valueLength) <= recordEnd - at else {
            problem = "a record's value"
            return nil
        }
        let value = valueLength < 0 ? nil : UnsafeRawBufferPointer(rebasing: raw[at ..< at + Int(valueLength)])
        return RecordFields(timestampDelta: timestampDelta, offsetDelta: offsetDelta, key: key, value: value, next: recordEnd)
    }

    private static func malformed(_ run: Run, _ what: String) -> KafkaWireError {
        KafkaWireError("malformed record batch at offset \(run.baseOffset): \(what) runs past its batch")
    }

    /// A zigzag varint (at most ten bytes) at `at`, which moves past it; nil when cut off.
    @inline(__always)
    static func varint(_ bytes: UnsafeRawBufferPointer, _ at: inout Int) -> Int64? {
        var raw: UInt64 = 0
        var shift: UInt64 = 0
        while at < bytes.count, shift < 70 {
            let byte = bytes[at]
            at += 1
            raw |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 { return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1))) }
            shift += 7
        }
        return nil
    }

    // MARK: Connections

    private func learnLeaders() throws(KafkaWireError) {
        guard !topic.isEmpty else { return }
        let found = try metadata(topic)
        for (partition, leader) in found where partitions[partition] != nil {
            partitions[partition]!.leader = leader
        }
        leadersKnown = partitions.values.allSatisfy { $0.leader != nil }
        if !leadersKnown { throw KafkaWireError("topic \(topic) has partitions without a leader", code: .leaderNotAvailable) }
    }

    /// Drops a leader's connections: its fetch is sent again, from the same offsets.
    private func drop(_ leader: String) {
        links[leader] = nil
        requestLinks[leader] = nil
        control = nil
        leadersKnown = false
    }

    /// Runs a metadata request, dropping the control connection when it fails.
    private func request<Response>(_ body: () throws(KafkaWireError) -> Response) throws(KafkaWireError) -> Response {
        do {
            return try body()
        } catch {
            control = nil
            throw error
        }
    }

    private func controlClient() throws(KafkaWireError) -> KafkaWireClient {
        if control == nil { control = try KafkaWireClient.first(of: bootstrap, timeout: settings.timeout) }
        return control!
    }

    private func link(to address: String) throws(KafkaWireError) -> Link {
        try links.value(address) { () throws(KafkaWireError) in Link(try KafkaWireClient(address: address, timeout: settings.timeout)) }
    }

    private func requestClient(_ address: String) throws(KafkaWireError) -> KafkaWireClient {
        try requestLinks.value(address) { () throws(KafkaWireError) in try KafkaWireClient(address: address, timeout: settings.timeout) }
    }
}

extension Duration {
    fileprivate var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
