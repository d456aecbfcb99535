#if canImport(Glibc)
import Glibc
#endif
import Foundation
import NIOCore
import SluiceBroker
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
    static let maxInFlight = 5
    /// The `sluice` executable to start the broker with.
    package var executable: String

    package init(records: Int, executable: String) {
        self.records = records
        self.executable = executable
    }

    package func run() throws {
        let directory = NSTemporaryDirectory() + "sluice-bench-broker-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let port = try Self.freePort()
        let broker = Process()
        broker.executableURL = URL(fileURLWithPath: executable)
        broker.arguments = ["broker", "--listen", "127.0.0.1:\(port)", "--data-dir", "\(directory)/broker"]
        broker.standardError = FileHandle.nullDevice
        try broker.run()
        defer {
            broker.terminate()
            broker.waitUntilExit()
        }
        let client = try Self.connect(port: port)
        let topic = "bench"
        let created = try client.send(CreateTopicsRequest(topics: [.init(name: topic, numPartitions: 1, replicationFactor: 1)]))
        guard created.topics.first?.errorCode == 0 else { throw KafkaClientError("cannot create the benchmark topic") }

        print("sluice bench broker: \(records) records of \(valueBytes) bytes, batches of \(recordsPerBatch), broker in another process")
        // Produce.
        let value = ByteBuffer(repeating: UInt8(ascii: "x"), count: valueBytes)
        var latencies: [Double] = []
        var producedBytes = 0
        let produceStart = ContinuousClock.now
        var sent = 0
        // Up to five requests in flight, as librdkafka keeps them by default.
        let produceVersion = try client.version(of: .produce)
        var outstanding: [ContinuousClock.Instant] = []
        while sent < records || !outstanding.isEmpty {
            while sent < records && outstanding.count < Self.maxInFlight {
                let count = min(recordsPerBatch, records - sent)
                let now = Int64(Date().timeIntervalSince1970 * 1000)
                var batch = ByteBuffer()
                _ = RecordBatchEncoder().encode((0 ..< count).map { KafkaRecord(offset: Int64($0), timestamp: now, key: nil, value: value) }, into: &batch)
                producedBytes += batch.readableBytes
                let request = ProduceRequest(acks: -1, timeoutMs: 30_000, topicData: [.init(name: topic, partitionData: [.init(index: 0, records: batch)])])
                outstanding.append(ContinuousClock.now)
                try client.sendWithoutResponse(request, version: produceVersion)
                sent += count
            }
            let response = try client.receive(ProduceRequest.self)
            latencies.append(Self.seconds(ContinuousClock.now - outstanding.removeFirst()))
            if let code = response.responses.first?.partitionResponses.first?.errorCode, code != 0 {
                throw KafkaClientError("produce failed with Kafka error \(code)")
            }
        }
        let produceSeconds = Self.seconds(ContinuousClock.now - produceStart)

        // Consume.
        var next: Int64 = 0
        var consumedBytes = 0
        var consumedRecords = 0
        let consumeStart = ContinuousClock.now
        while consumedRecords < records {
            let fetch = FetchRequest(
                replicaID: -1, maxWaitMs: 100, minBytes: 1, maxBytes: 64 << 20,
                topics: [.init(topic: topic, partitions: [.init(partition: 0, fetchOffset: next, partitionMaxBytes: 32 << 20)])])
            let response = try client.send(fetch)
            guard let partition = response.responses.first?.partitions.first, partition.errorCode == 0, let data = partition.records else {
                throw KafkaClientError("fetch failed")
            }
            consumedBytes += data.readableBytes
            let views = try RecordBatchValidator(origin: .log).validate(data)
            for view in views {
                consumedRecords += Int(view.header.recordCount)
                next = view.header.nextOffset
            }
        }
        let consumeSeconds = Self.seconds(ContinuousClock.now - consumeStart)

        // The disk's sequential write speed, for the same bytes.
        let diskSeconds = try Self.sequentialWrite(bytes: producedBytes, path: "\(directory)/dd.bin")

        latencies.sort()
        let megabytes = Double(producedBytes) / 1_000_000
        let produceRate = megabytes / produceSeconds
        let diskRate = megabytes / diskSeconds
        print(String(format: "  produce  %8.1f MB/s %12.0f records/s  latency per batch p50 %.2f ms, p99 %.2f ms", produceRate,
                     Double(records) / produceSeconds, latencies[latencies.count / 2] * 1000, latencies[min(latencies.count - 1, latencies.count * 99 / 100)] * 1000))
        print(String(format: "  consume  %8.1f MB/s %12.0f records/s", Double(consumedBytes) / 1_000_000 / consumeSeconds,
                     Double(consumedRecords) / consumeSeconds))
        print(String(format: "  disk     %8.1f MB/s sequential 1 MiB writes + fsync | produce / disk = %.2f", diskRate, produceRate / diskRate))
    }

    /// Seconds to write `bytes` to a new file in 1 MiB writes and fsync it.
    static func sequentialWrite(bytes: Int, path: String) throws -> Double {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard fd >= 0 else { throw KafkaClientError("cannot write \(path)") }
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
            guard result > 0 else { throw KafkaClientError("write failed: errno \(errno)") }
            written += result
        }
        fsync(fd)
        return seconds(ContinuousClock.now - start)
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

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw KafkaClientError("no free port") }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
