import Foundation
import NIOCore
import SluiceCore
@testable import SluiceKafkaProtocol
import Testing

@testable import SluiceBroker

/// A Kafka source's own consumer against the broker on a real socket: what it hands out after
/// commits, aborts, compression, a start in the middle of a batch and an offset out of range,
/// checked record for record against what was produced.
@Suite(.serialized) struct KafkaFetchConsumerTests {
    private func broker(topic: String, partitions: Int32) async throws -> (TemporaryBroker, Int) {
        try await startedBroker(topic: topic, partitions: partitions)
    }

    private func produce(_ producer: KafkaBatchProducer, _ values: [String], keys: Bool = true) {
        for value in values {
            var valueBytes = Array(value.utf8)
            var keyBytes = Array("k-\(value)".utf8)
            valueBytes.withUnsafeBytes { valueRaw in
                if keys {
                    keyBytes.withUnsafeBytes { key in producer.append(key: key, value: valueRaw, timestamp: 1_700_000_000_000) }
                } else {
                    producer.append(key: nil, value: valueRaw, timestamp: 1_700_000_000_000)
                }
            }
            _ = keyBytes
        }
    }

    /// Everything the consumer hands out until it has `count` records (or gives up after a while),
    /// as (partition, offset, key, value).
    private func read(
        _ consumer: KafkaFetchConsumer, count: Int, maxMessages: Int = 100
    ) throws -> [(partition: Int32, offset: Int64, key: String?, value: String?)] {
        var seen: [(partition: Int32, offset: Int64, key: String?, value: String?)] = []
        var idle = 0
        while seen.count < count && idle < 20 {
            let got = try consumer.poll(maxMessages: maxMessages, timeout: .milliseconds(50)) { record in
                #expect(record.timestamp == 1_700_000_000_000)
                seen.append((record.partition, record.offset, record.key.map { String(decoding: $0, as: UTF8.self) },
                             record.value.map { String(decoding: $0, as: UTF8.self) }))
            }
            #expect(got <= maxMessages)
            idle = got == 0 ? idle + 1 : 0
        }
        return seen
    }

    @Test func committedRecordsArriveOnceInOrderAndAbortedOnesNever() async throws {
        let (broker, port) = try await broker(topic: "in", partitions: 3)
        defer { broker.remove() }
        var settings = KafkaBatchProducer.Settings()
        settings.batchBytes = 2048  // Many batches.
        let producer = try KafkaBatchProducer(bootstrap: "127.0.0.1:\(port)", topic: "in", transactionalID: "t-1", settings: settings)
        produce(producer, (0 ..< 1500).map { "committed \($0)" })
        try producer.flush()
        try producer.commit()
        produce(producer, (0 ..< 700).map { "aborted \($0)" })
        try producer.flush()
        try producer.abort()
        settings.compression = .lz4
        let other = try KafkaBatchProducer(bootstrap: "127.0.0.1:\(port)", topic: "in", transactionalID: "t-2", settings: settings)
        produce(other, (0 ..< 500).map { "lz4 \($0)" })
        try other.flush()
        try other.commit()

        let consumer = try KafkaFetchConsumer(bootstrapServers: "127.0.0.1:\(port)")
        #expect(try consumer.partitions(of: "in") == [0, 1, 2])
        consumer.assign(topic: "in", [(0, 0), (1, 0), (2, 0)])
        let seen = try read(consumer, count: 2000)
        let values = seen.compactMap(\.value)
        #expect(values.count == 2000)
        #expect(Set(values) == Set((0 ..< 1500).map { "committed \($0)" } + (0 ..< 500).map { "lz4 \($0)" }))
        #expect(!values.contains { $0.hasPrefix("aborted") })
        #expect(seen.allSatisfy { $0.key == "k-\($0.value!)" })
        // Each partition's offsets rise, and nothing more arrives.
        for partition: Int32 in 0 ..< 3 {
            let offsets = seen.filter { $0.partition == partition }.map(\.offset)
            #expect(offsets == offsets.sorted() && Set(offsets).count == offsets.count)
        }
        #expect(try read(consumer, count: 1).isEmpty)
        #expect((consumer.lag() ?? 99) <= 3)  // At most a marker behind in each partition.
        #expect(consumer.bytesTaken == values.reduce(0) { $0 + $1.utf8.count })

        // read_uncommitted sees the aborted records too.
        var uncommitted = KafkaFetchConsumer.Settings()
        uncommitted.readCommitted = false
        let dirty = try KafkaFetchConsumer(bootstrapServers: "127.0.0.1:\(port)", settings: uncommitted)
        dirty.assign(topic: "in", [(0, 0), (1, 0), (2, 0)])
        #expect(try read(dirty, count: 2700).count == 2700)
    }

    @Test func aStartInsideABatchAndAnOffsetOutOfRangeAreRead() async throws {
        let (broker, port) = try await broker(topic: "one", partitions: 1)
        defer { broker.remove() }
        var settings = KafkaBatchProducer.Settings()
        settings.compression = .lz4  // A compressed batch is fetched whole, from its first record.
        let producer = try KafkaBatchProducer(bootstrap: "127.0.0.1:\(port)", topic: "one", transactionalID: "t-3", settings: settings)
        produce(producer, (0 ..< 100).map { "v\($0)" }, keys: false)
        try producer.flush()
        try producer.commit()

        let consumer = try KafkaFetchConsumer(bootstrapServers: "127.0.0.1:\(port)")
        let marks = try consumer.watermarks(topic: "one", partition: 0)
        #expect(marks.low == 0 && marks.high == 101)  // 100 records and the commit marker.
        consumer.assign(topic: "one", [(0, 40)])
        let seen = try read(consumer, count: 60, maxMessages: 7)
        #expect(seen.map(\.offset) == Array(40 ..< 100))
        #expect(seen.map(\.value) == (40 ..< 100).map { "v\($0)" })
        #expect(seen.allSatisfy { $0.key == nil })

        // Past the end: read on from the end, where the next records arrive.
        consumer.assign(topic: "one", [(0, 5000)])
        #expect(try read(consumer, count: 1).isEmpty)
        produce(producer, ["after"], keys: false)
        try producer.flush()
        try producer.commit()
        let after = try read(consumer, count: 1)
        #expect(after.map(\.value) == ["after"])
        #expect(after.first?.offset == 101)
    }

    @Test func anUnknownTopicAndAnUnreachableBrokerAreErrors() async throws {
        let (broker, port) = try await broker(topic: "known", partitions: 1)
        defer { broker.remove() }
        let consumer = try KafkaFetchConsumer(bootstrapServers: "127.0.0.1:\(port)")
        #expect(throws: KafkaWireError.self) { try consumer.partitions(of: "missing") }
        do {
            _ = try consumer.partitions(of: "missing")
        } catch {
            #expect(error.code == .unknownTopicOrPartition)
        }
        let unreachable = try KafkaFetchConsumer(bootstrapServers: "127.0.0.1:1")
        #expect(throws: KafkaWireError.self) { try unreachable.partitions(of: "known") }
        #expect(throws: KafkaWireError.self) { try KafkaFetchConsumer(bootstrapServers: " ") }
    }

    @Test func varintsReadAsKafkaWritesThem() {
        for value: Int64 in [0, 1, -1, 63, -64, 64, 300, -300, Int64(Int32.max), Int64.min, Int64.max] {
            var bytes = [UInt8](repeating: 0, count: 10)
            let length = bytes.withUnsafeMutableBytes { KafkaBatchProducer.writeVarint(value, to: $0, at: 0) }
            var at = 0
            let read = bytes.withUnsafeBytes { KafkaFetchConsumer.varint(UnsafeRawBufferPointer(rebasing: $0[0 ..< length]), &at) }
            #expect(read == value && at == length)
            // Cut off: no value.
            at = 0
            if length > 1 { #expect(bytes.withUnsafeBytes { KafkaFetchConsumer.varint(UnsafeRawBufferPointer(rebasing: $0[0 ..< length - 1]), &at) } == nil) }
        }
    }

    /// Fetched bytes a broker could send broken (bytes flipped, cut short, or noise) are an
    /// error or records inside them, never a crash or a read past them.
    @Test func brokenRecordBatchesAreErrorsNotCrashes() throws {
        var valid = ByteBuffer()
        let records = (0 ..< 20).map { index in
            KafkaRecord(offset: Int64(index), timestamp: 1_700_000_000_000 + Int64(index), key: index % 3 == 0 ? nil : ByteBuffer(string: "k\(index)"),
                        value: ByteBuffer(string: String(repeating: "v", count: index * 7)))
        }
        RecordBatchEncoder().encode(records, into: &valid)
        RecordBatchEncoder().encode(records.map { KafkaRecord(offset: $0.offset + 20, timestamp: $0.timestamp, key: $0.key, value: $0.value) }, into: &valid)
        // Unbroken: every record, in order.
        let (runs, next) = try KafkaFetchConsumer.runs(of: valid, from: 0, aborted: [])
        #expect(next == 40 && runs.count == 2)
        var seen = 0
        for run in runs {
            run.records.withUnsafeReadableBytes { raw in
                var position = 0
                var problem = ""
                for _ in 0 ..< run.remaining {
                    let fields = KafkaFetchConsumer.record(in: raw, at: position, problem: &problem)
                    #expect(fields?.value?.count == (seen % 20) * 7)
                    position = fields?.next ?? raw.count
                    seen += 1
                }
                #expect(position == raw.count)
            }
        }
        #expect(seen == 40)

        var random = SplitMix64(seed: 42)
        for round in 0 ..< 3000 {
            var bytes = Array(valid.readableBytesView)
            switch round % 3 {
            case 0:
                for _ in 0 ... Int(random.next() % 6) { bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next()) }
            case 1:
                bytes.removeLast(Int(random.next() % UInt64(bytes.count)))
            default:
                bytes = (0 ..< Int(random.next() % 300)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            }
            guard let (runs, _) = try? KafkaFetchConsumer.runs(of: ByteBuffer(bytes: bytes), from: 0, aborted: []) else { continue }
            for run in runs {
                run.records.withUnsafeReadableBytes { raw in
                    var position = 0
                    var problem = ""
                    for _ in 0 ..< min(run.remaining, 10_000) {
                        guard let fields = KafkaFetchConsumer.record(in: raw, at: position, problem: &problem) else {
                            #expect(!problem.isEmpty)
                            break
                        }
                        #expect(fields.next > position && fields.next <= raw.count)
                        for part in [fields.key, fields.value] {
                            if let part, part.count > 0 { #expect(part.baseAddress! >= raw.baseAddress! && part.baseAddress! + part.count <= raw.baseAddress! + raw.count) }
                        }
                        position = fields.next
                    }
                }
            }
        }
    }
}
