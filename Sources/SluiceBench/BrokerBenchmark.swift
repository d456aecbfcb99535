#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NIOCore
import SluiceBroker
import SluiceCore
import SluiceKafkaProtocol

/// `sluice bench broker`: N records of 200-byte values produced to one partition of a broker
/// running in another process (`sluice broker`, over the loopback), in batches of about 1 MB as
/// librdkafka sends them (acks=all, up to five requests in flight), then consumed back with Fetch;
/// prints MB/s and records/s each way and the produce latency per request (p50, p99). The
/// same number of bytes written sequentially to a file in 1 MiB writes and fsynced is the
/// physical limit the produce rate is compared with.
package struct BrokerBenchmark {
    package var records: Int
    package var valueBytes = 200
    package var recordsPerBatch = 4000
    /// The `sluice` executable to start the broker with.
    package var executable: String

    package init(records: Int, executable: String) {
        self.records = records
        self.executable = executable
    }

    package func run() throws {
        report("sluice bench broker: \(records) records of \(valueBytes) bytes, batches of \(recordsPerBatch), broker in another process")
        report("  --log-flush never (Kafka's default: the operating system writes pages back)")
        try measure(flush: "never")
        report("  --log-flush always (fsync before an acks=all produce is answered)")
        try measure(flush: "always")
    }

    /// One broker with the flush policy `flush`: produce, consume, and the disk written the
    /// same way (one fsync at the end, or one after every write).
    func measure(flush: String) throws {
        let directory = NSTemporaryDirectory() + "sluice-bench-broker-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let port = try LocalProcess.freeLoopbackPort()
        let broker = Process()
        broker.executableURL = URL(fileURLWithPath: executable)
        broker.arguments = ["broker", "--listen", "127.0.0.1:\(port)", "--data-dir", "\(directory)/broker", "--log-flush", flush]
        broker.standardError = FileHandle.nullDevice
        try broker.run()
        defer {
            broker.terminate()
            broker.waitUntilExit()
        }
        let client = try Self.connect(port: port)
        let topic = "bench"
        let created = try client.send(CreateTopicsRequest(topics: [.init(name: topic, numPartitions: 1, replicationFactor: 1)]))
        guard created.topics.first?.errorCode == 0 else { throw KafkaWireError("cannot create the benchmark topic") }


        // The batches are encoded before the clock starts, so the figure is the broker's and
        // not this client's encoder: every full batch is the same bytes (no producer id, so the
        // broker assigns each its offsets, and the CRC does not cover the base offset).
        let value = ByteBuffer(repeating: UInt8(ascii: "x"), count: valueBytes)
        let timestamp = Int64(Date().timeIntervalSince1970 * 1000)
        func batch(of count: Int) -> ByteBuffer {
            var batch = ByteBuffer()
            _ = RecordBatchEncoder().encode((0 ..< count).map { KafkaRecord(offset: Int64($0), timestamp: timestamp, key: nil, value: value) }, into: &batch)
            return batch
        }
        let fullBatch = batch(of: recordsPerBatch)
        let lastBatch = records % recordsPerBatch == 0 ? fullBatch : batch(of: records % recordsPerBatch)
        var latencies: [Double] = []
        var producedBytes = 0
        let produceStart = ContinuousClock.now
        var sent = 0
        try client.producePipelined(topic: topic, next: {
            guard sent < records else { return nil }
            let count = min(recordsPerBatch, records - sent)
            let batch = count == recordsPerBatch ? fullBatch : lastBatch
            producedBytes += batch.readableBytes
            sent += count
            return batch
        }, acknowledged: { latencies.append($0.inSeconds) })
        let produceSeconds = (ContinuousClock.now - produceStart).inSeconds

        // Consume, as librdkafka does with its defaults (1 MiB a partition, fetch.max.bytes
        // 50 MiB): the next fetch is sent as soon as a response's batch
        // headers show where it ends, and the records are checked while the broker reads on.
        func fetch(from offset: Int64) throws(KafkaWireError) {
            try client.sendWithoutResponse(FetchRequest(
                replicaID: -1, maxWaitMs: 100, minBytes: 1, maxBytes: 50 << 20,
                topics: [.init(topic: topic, partitions: [.init(partition: 0, fetchOffset: offset, partitionMaxBytes: 1 << 20)])]))
        }
        var next: Int64 = 0
        var consumedBytes = 0
        var consumedRecords = 0
        let consumeStart = ContinuousClock.now
        try fetch(from: 0)
        while consumedRecords < records {
            let response = try client.receive(FetchRequest.self)
            guard let partition = response.responses.first?.partitions.first, partition.errorCode == 0, let data = partition.records else {
                throw KafkaWireError("fetch failed")
            }
            var index = data.readerIndex
            while let header = RecordBatchHeader(from: data, at: index), index + header.byteCount <= data.writerIndex {
                next = header.nextOffset
                index += header.byteCount
            }
            if next < Int64(records) { try fetch(from: next) }
            consumedBytes += data.readableBytes
            for view in try RecordBatchValidator(origin: .log).validate(data) {
                consumedRecords += Int(view.header.recordCount)
            }
        }
        let consumeSeconds = (ContinuousClock.now - consumeStart).inSeconds

        // The disk's sequential write speed, for the same bytes.
        let syncEachWrite = flush == "always"
        let diskSeconds = try Self.sequentialWrite(bytes: producedBytes, path: "\(directory)/dd.bin", syncEachWrite: syncEachWrite)

        latencies.sort()
        let megabytes = Double(producedBytes) / 1_000_000
        let produceRate = megabytes / produceSeconds
        let diskRate = megabytes / diskSeconds
        report(String(format: "    produce  %8.1f MB/s %12.0f records/s  latency per batch p50 %.2f ms, p99 %.2f ms", produceRate,
                     Double(records) / produceSeconds, latencies[latencies.count / 2] * 1000, latencies[min(latencies.count - 1, latencies.count * 99 / 100)] * 1000))
        report(String(format: "    consume  %8.1f MB/s %12.0f records/s", Double(consumedBytes) / 1_000_000 / consumeSeconds,
                     Double(consumedRecords) / consumeSeconds))
        report(String(format: "    disk     %8.1f MB/s sequential 1 MiB writes, %@ | produce / disk = %.2f", diskRate,
                     (syncEachWrite ? "each fsynced" : "one fsync at the end") as NSString, produceRate / diskRate))
    }

    /// Seconds to write `bytes` to a new file in 1 MiB writes and fsync it, at the end or after
    /// every write.
    static func sequentialWrite(bytes: Int, path: String, syncEachWrite: Bool) throws -> Double {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw KafkaWireError("cannot write \(path)") }
        defer {
            close(fd)
            unlink(path)
        }
        let block = [UInt8](repeating: 0x78, count: 1 << 20)
        let start = ContinuousClock.now
        var written = 0
        while written < bytes {
            let count = min(block.count, bytes - written)
            let result = block.withUnsafeBytes { write(fd, $0.baseAddress!, count) }
            guard result > 0 else { throw KafkaWireError("write failed: errno \(errno)") }
            written += result
            if syncEachWrite { fsync(fd) }
        }
        fsync(fd)
        return (ContinuousClock.now - start).inSeconds
    }

    static func connect(port: Int) throws -> KafkaWireClient {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            do {
                return try KafkaWireClient(host: "127.0.0.1", port: port)
            } catch {
                if ContinuousClock.now > deadline { throw error }
                usleep(20_000)
            }
        }
    }

}
