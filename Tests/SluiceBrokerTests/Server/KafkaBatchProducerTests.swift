import Foundation
import NIOCore
import SluiceKafkaProtocol
import Testing

@testable import SluiceBroker

/// The Kafka sink's producer against the broker on a real socket: what a `read_committed`
/// consumer reads back, record for record, after commits, failures and aborts.
/// A started broker with `topic` of `partitions` partitions, and its port.
func startedBroker(topic: String, partitions: Int32) async throws -> (TemporaryBroker, Int) {
    let broker = try TemporaryBroker()
    try await broker.broker.start()
    let port = try #require(broker.broker.port)
    let client = try KafkaWireClient(host: "127.0.0.1", port: port)
    let created = try client.send(CreateTopicsRequest(topics: [.init(name: topic, numPartitions: partitions, replicationFactor: -1)]))
    #expect(created.topics.first?.errorCode == 0)
    return (broker, port)
}

@Suite(.serialized) struct KafkaBatchProducerTests {
    private func broker(topic: String, partitions: Int32) async throws -> (TemporaryBroker, Int) {
        try await startedBroker(topic: topic, partitions: partitions)
    }

    /// Every record of `partition` a `read_committed` consumer sees, as (key, value) text.
    private func committed(port: Int, topic: String, partition: Int32) throws -> [(key: String?, value: String?)] {
        let client = try KafkaWireClient(host: "127.0.0.1", port: port)
        var request = FetchRequest(
            maxWaitMs: 0, minBytes: 0,
            topics: [.init(topic: topic, partitions: [.init(partition: partition, fetchOffset: 0, partitionMaxBytes: 64 << 20)])])
        request.isolationLevel = 1
        request.maxBytes = 64 << 20
        let response = try client.send(request)
        let answer = try #require(response.responses.first?.partitions.first)
        #expect(answer.errorCode == 0)
        guard let records = answer.records, records.readableBytes > 0 else { return [] }
        // As a read_committed consumer does: an aborted transaction's batches are skipped from
        // its first offset until its producer's abort marker.
        var pending = (answer.abortedTransactions ?? []).sorted { $0.firstOffset < $1.firstOffset }
        var aborting: Set<Int64> = []
        var seen: [(key: String?, value: String?)] = []
        for view in try RecordBatchValidator(origin: .log).validate(records) {
            let header = view.header
            guard header.baseOffset < answer.lastStableOffset else { break }
            while let next = pending.first, next.firstOffset <= header.baseOffset {
                aborting.insert(next.producerID)
                pending.removeFirst()
            }
            if header.isControl {
                aborting.remove(header.producerID)
                continue
            }
            if header.isTransactional && aborting.contains(header.producerID) { continue }
            for record in try view.records(in: records) {
                seen.append((record.key.map { String(buffer: $0) }, record.value.map { String(buffer: $0) }))
            }
        }
        return seen
    }

    private func append(_ producer: KafkaBatchProducer, key: String?, value: String) {
        var keyBytes = key.map { Array($0.utf8) }
        var valueBytes = Array(value.utf8)
        let timestamp: Int64 = 1_700_000_000_000
        valueBytes.withUnsafeBytes { value in
            if keyBytes != nil {
                keyBytes!.withUnsafeBytes { key in producer.append(key: key, value: value, timestamp: timestamp) }
            } else {
                producer.append(key: nil, value: value, timestamp: timestamp)
            }
        }
        _ = keyBytes
    }

    @Test func committedRecordsArriveOnceWhereJavasPartitionerPutsThem() async throws {
        let (broker, port) = try await broker(topic: "out", partitions: 3)
        defer { broker.remove() }
        var settings = KafkaBatchProducer.Settings()
        settings.batchBytes = 4096  // Many batches, several in flight.
        let producer = try KafkaBatchProducer(bootstrap: "127.0.0.1:\(port)", topic: "out", transactionalID: "t-1", settings: settings)
        for index in 0 ..< 2000 { append(producer, key: "k\(index)", value: "value \(index)") }
        try producer.flush()
        try producer.sendOffsets(group: "progress", partition: 0, offset: 7)
        #expect(producer.heldRecords == 2000)
        producer.release()
        try producer.commit()

        var all: [String: String] = [:]
        for partition: Int32 in 0 ..< 3 {
            for record in try committed(port: port, topic: "out", partition: partition) {
                let key = try #require(record.key)
                var partitioner = KafkaPartitioner(partitionCount: 3)
                #expect(Array(key.utf8).withUnsafeBytes { partitioner.partition(for: $0) } == partition, "key \(key)")
                #expect(all[key] == nil, "key \(key) twice")
                all[key] = record.value
            }
        }
        #expect(all.count == 2000)
        #expect(all["k1999"] == "value 1999")

        // The group's offset committed with the transaction.
        let client = try KafkaWireClient(host: "127.0.0.1", port: port)
        let offsets = try client.send(OffsetFetchRequest(groupID: "progress", topics: [.init(name: "out", partitionIndexes: [0])]))
        #expect(offsets.topics.first?.partitions.first?.committedOffset == 7)
    }

    /// A failure midway (here: the producer registered again while its transaction was open, as
    /// after a lost connection) aborts what went out; the batches it holds go out again in the
    /// next transaction, and a read_committed consumer sees each record once.
    @Test func afterAResetTheHeldBatchesGoOutOnceInTheNextTransaction() async throws {
        let (broker, port) = try await broker(topic: "again", partitions: 1)
        defer { broker.remove() }
        var settings = KafkaBatchProducer.Settings()
        settings.batchBytes = 2048
        let producer = try KafkaBatchProducer(bootstrap: "127.0.0.1:\(port)", topic: "again", transactionalID: "t-2", settings: settings)
        for index in 0 ..< 500 { append(producer, key: nil, value: "first \(index)") }
        try producer.sendSealed()
        let firstEpoch = producer.producerEpoch
        try producer.reset()
        #expect(producer.producerEpoch > firstEpoch)
        for index in 0 ..< 100 { append(producer, key: nil, value: "more \(index)") }
        try producer.flush()
        producer.release()
        try producer.commit()

        let values = try committed(port: port, topic: "again", partition: 0).compactMap(\.value)
        #expect(values == (0 ..< 500).map { "first \($0)" } + (0 ..< 100).map { "more \($0)" })
    }

    @Test func anAbortedTransactionIsNeverSeenAndLz4BatchesReadBack() async throws {
        let (broker, port) = try await broker(topic: "lz", partitions: 1)
        defer { broker.remove() }
        var settings = KafkaBatchProducer.Settings()
        settings.compression = .lz4
        let producer = try KafkaBatchProducer(bootstrap: "127.0.0.1:\(port)", topic: "lz", transactionalID: "t-3", settings: settings)
        for index in 0 ..< 300 { append(producer, key: nil, value: "gone \(index)") }
        try producer.flush()
        try producer.abort()
        #expect(producer.heldRecords == 0)
        let other = try KafkaBatchProducer(bootstrap: "127.0.0.1:\(port)", topic: "lz", transactionalID: "t-4", settings: settings)
        for index in 0 ..< 300 { append(other, key: nil, value: String(repeating: "kept \(index) ", count: 5)) }
        try other.flush()
        other.release()
        try other.commit()

        let values = try committed(port: port, topic: "lz", partition: 0).compactMap(\.value)
        #expect(values == (0 ..< 300).map { String(repeating: "kept \($0) ", count: 5) })
    }

    /// Values written in place (the sink's JSON lines) fill the sticky partition's batches and
    /// move on to the next partition: every value arrives once, in order within its partition.
    @Test func valuesWrittenInPlaceArriveOnceAcrossBatchesAndPartitions() async throws {
        let (broker, port) = try await broker(topic: "placed", partitions: 2)
        defer { broker.remove() }
        var settings = KafkaBatchProducer.Settings()
        settings.batchBytes = 3000
        let producer = try KafkaBatchProducer(bootstrap: "127.0.0.1:\(port)", topic: "placed", transactionalID: nil, settings: settings)
        let values = (0 ..< 1000).map { Array("{\"n\":\($0),\"pad\":\"\(String(repeating: "x", count: $0 % 50))\"}".utf8) }
        for start in stride(from: 0, to: values.count, by: 100) {
            let lengths = values[start ..< start + 100].map(\.count)
            lengths.withUnsafeBufferPointer { lengths in
                producer.appendValues(lengths: lengths, timestamp: 1_700_000_000_000) { rows, base, starts in
                    for (slot, row) in rows.enumerated() {
                        values[start + row].withUnsafeBytes { (base + starts[slot]).copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
                    }
                }
            }
            try producer.sendSealed()
        }
        try producer.flush()
        producer.release()

        var seen: [[String]] = []
        for partition: Int32 in 0 ..< 2 {
            seen.append(try committed(port: port, topic: "placed", partition: partition).map { try #require($0.value) })
        }
        #expect(seen.allSatisfy { !$0.isEmpty }, "both partitions take batches")
        let all = seen.flatMap { $0 }
        #expect(all.count == 1000 && Set(all) == Set(values.map { String(decoding: $0, as: UTF8.self) }))
        for partition in seen {
            let numbers = partition.map { Int($0.split(separator: ",")[0].dropFirst(5))! }
            #expect(numbers == numbers.sorted())
        }
    }

    /// Older clusters' Produce versions (before the compact, flexible layout of v9) carry the
    /// same batches.
    @Test(arguments: [Int16(3), 8, 9])
    func everyProduceVersionCarriesTheBatches(version: Int16) async throws {
        let (broker, port) = try await broker(topic: "v\(version)", partitions: 1)
        defer { broker.remove() }
        var settings = KafkaBatchProducer.Settings()
        settings.produceVersion = version
        settings.batchBytes = 1500
        let producer = try KafkaBatchProducer(bootstrap: "127.0.0.1:\(port)", topic: "v\(version)", transactionalID: "t-v\(version)", settings: settings)
        for index in 0 ..< 200 { append(producer, key: index % 2 == 0 ? "k\(index)" : nil, value: "v\(index)") }
        try producer.flush()
        producer.release()
        try producer.commit()
        let values = try committed(port: port, topic: "v\(version)", partition: 0).compactMap(\.value)
        #expect(values == (0 ..< 200).map { "v\($0)" })
    }

    @Test func aTransactionOfOffsetsAloneCommitsThem() async throws {
        let (broker, port) = try await broker(topic: "quiet", partitions: 1)
        defer { broker.remove() }
        let producer = try KafkaBatchProducer(bootstrap: "127.0.0.1:\(port)", topic: "quiet", transactionalID: "t-6")
        try producer.sendOffsets(group: "quiet-progress", partition: 0, offset: 42)
        try producer.commit()
        let client = try KafkaWireClient(host: "127.0.0.1", port: port)
        let offsets = try client.send(OffsetFetchRequest(groupID: "quiet-progress", topics: [.init(name: "quiet", partitionIndexes: [0])]))
        #expect(offsets.topics.first?.partitions.first?.committedOffset == 42)
    }

    @Test func anUnreachableBrokerIsAnErrorNotAHang() throws {
        var settings = KafkaBatchProducer.Settings()
        settings.timeout = .seconds(2)
        #expect(throws: KafkaWireError.self) {
            _ = try KafkaBatchProducer(bootstrap: "127.0.0.1:1", topic: "x", transactionalID: "t-5", settings: settings)
        }
    }
}
