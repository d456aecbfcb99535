import SluiceCommandLine
import Foundation
import NIOCore
import SluiceBroker
import SluiceGen
import SluiceKafkaProtocol

/// Options every Kafka tool takes.
struct BootstrapOptions: ParsableArguments {
    @Option(name: .shortAndLong, help: "The broker to talk to (host:port).")
    var bootstrap = "127.0.0.1:9092"

    func connect() throws -> KafkaWireClient {
        let (host, port) = try parseAddress(bootstrap)
        do {
            return try KafkaWireClient(host: host, port: port)
        } catch {
            throw fail("\(error)")
        }
    }
}

/// Says what went wrong on standard error and ends the command with status 1.
func fail(_ message: String) -> ExitCode {
    FileHandle.standardError.write(Data("sluice: \(message)\n".utf8))
    return ExitCode.failure
}

/// Fails with the message of a Kafka error code, if it is one.
func check(_ code: Int16, _ what: String, message: String? = nil) throws {
    guard code != 0 else { return }
    throw fail("\(what): Kafka error \(code)\(message.map { ": \($0)" } ?? "")")
}

struct Topic: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Create, list, describe and delete topics on a Kafka broker.",
        subcommands: [Create.self, List.self, Describe.self, Delete.self])

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a topic.")
        @OptionGroup var options: BootstrapOptions
        @Argument var name: String
        @Option(help: "Number of partitions.") var partitions: Int32 = 1

        func run() throws {
            let client = try options.connect()
            let response = try client.send(CreateTopicsRequest(topics: [.init(name: name, numPartitions: partitions, replicationFactor: -1)]))
            for topic in response.topics { try check(topic.errorCode, "create \(topic.name)", message: topic.errorMessage) }
            print("created \(name) (\(partitions) partitions)")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List topics.")
        @OptionGroup var options: BootstrapOptions

        func run() throws {
            let client = try options.connect()
            let response = try client.send(MetadataRequest(topics: nil, allowAutoTopicCreation: false))
            for topic in response.topics.compactMap(\.name).sorted() { print(topic) }
        }
    }

    struct Describe: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show a topic's partitions and offsets.")
        @OptionGroup var options: BootstrapOptions
        @Argument var name: String

        func run() throws {
            let client = try options.connect()
            let metadata = try client.send(MetadataRequest(topics: [.init(name: name)], allowAutoTopicCreation: false))
            guard let topic = metadata.topics.first else { throw fail("no such topic \(name)") }
            try check(topic.errorCode, "describe \(name)")
            let partitions = topic.partitions.map(\.partitionIndex).sorted()
            func offsets(_ timestamp: Int64) throws -> [Int32: Int64] {
                let response = try client.send(ListOffsetsRequest(topics: [.init(name: name, partitions: partitions.map { .init(partitionIndex: $0, timestamp: timestamp) })]))
                var result: [Int32: Int64] = [:]
                for partition in response.topics.flatMap(\.partitions) { result[partition.partitionIndex] = partition.offset }
                return result
            }
            let earliest = try offsets(-2)
            let latest = try offsets(-1)
            print("topic \(name): \(partitions.count) partitions")
            for partition in partitions {
                print("  partition \(partition): offsets \(earliest[partition] ?? -1) to \(latest[partition] ?? -1)")
            }
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a topic and its data.")
        @OptionGroup var options: BootstrapOptions
        @Argument var name: String

        func run() throws {
            let client = try options.connect()
            let response = try client.send(DeleteTopicsRequest(topics: [.init(name: name)], timeoutMs: 30_000))
            for result in response.responses { try check(result.errorCode, "delete \(name)", message: result.errorMessage) }
            print("deleted \(name)")
        }
    }
}

struct Produce: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Send each line of standard input (NDJSON, say) as a record value to a topic.")
    @OptionGroup var options: BootstrapOptions
    @Argument var topic: String
    @Option(help: "Partition to write to.") var partition: Int32 = 0
    @Option(help: "Records per batch.") var batch = 1000
    @Option(help: "Compression of each batch: none, gzip, snappy, lz4 or zstd.") var compression: ProduceCompression = .none
    @Flag(name: .shortAndLong, help: "No progress line and no summary.") var quiet = false

    func run() throws {
        var progress = TerminalProgress(quiet: quiet)
        let client = try options.connect()
        // Metadata first: it creates the topic where auto-creation is on.
        _ = try client.send(MetadataRequest(topics: [.init(name: topic)], allowAutoTopicCreation: true))
        var pending: [KafkaRecord] = []
        var sent = 0
        func flush() throws {
            guard !pending.isEmpty else { return }
            var encoder = RecordBatchEncoder()
            encoder.baseOffset = 0
            encoder.compression = compression.batchCompression
            var records = ByteBuffer()
            _ = encoder.encode(pending.enumerated().map { index, record in
                KafkaRecord(offset: Int64(index), timestamp: record.timestamp, key: nil, value: record.value)
            }, into: &records)
            let response = try client.send(ProduceRequest(acks: -1, timeoutMs: 30_000, topicData: [.init(name: topic, partitionData: [.init(index: partition, records: records)])]))
            for result in response.responses.flatMap(\.partitionResponses) { try check(result.errorCode, "produce to \(topic)", message: result.errorMessage) }
            sent += pending.count
            pending = []
            progress.update { "sluice produce: \(sent) records to \(topic)" }
        }
        while let line = readLine() {
            let now = Int64(Date().timeIntervalSince1970 * 1000)
            pending.append(KafkaRecord(offset: 0, timestamp: now, key: nil, value: ByteBuffer(string: line)))
            if pending.count >= batch { try flush() }
        }
        try flush()
        progress.clear()
        if !quiet { FileHandle.standardError.write(Data("sent \(sent) records to \(topic)\n".utf8)) }
    }
}

/// The values of `sluice produce --compression`, named as Kafka's `compression.type` names them.
enum ProduceCompression: String, ExpressibleByArgument, CaseIterable {
    case none, gzip, snappy, lz4, zstd

    var batchCompression: RecordBatchCompression {
        switch self {
        case .none: .uncompressed
        case .gzip: .gzip
        case .snappy: .snappy
        case .lz4: .lz4
        case .zstd: .zstd
        }
    }
}

struct Consume: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Print a topic partition's record values, one a line.")
    @OptionGroup var options: BootstrapOptions
    @Argument var topic: String
    @Option(help: "Partition to read.") var partition: Int32 = 0
    @Option(help: "Offset to start from (default: the earliest).") var offset: Int64?
    @Option(name: .shortAndLong, help: "Stop after this many records.") var count: Int?
    @Flag(name: .shortAndLong, help: "Stop at the end of the partition instead of waiting for more.") var exitAtEnd = false

    func run() throws {
        let client = try options.connect()
        var next = offset ?? 0
        if offset == nil {
            let response = try client.send(ListOffsetsRequest(topics: [.init(name: topic, partitions: [.init(partitionIndex: partition, timestamp: -2)])]))
            if let first = response.topics.first?.partitions.first {
                try check(first.errorCode, "consume \(topic)")
                next = first.offset
            }
        }
        var printed = 0
        while count.map({ printed < $0 }) ?? true {
            let request = FetchRequest(
                replicaID: -1, maxWaitMs: exitAtEnd ? 0 : 500, minBytes: exitAtEnd ? 0 : 1, maxBytes: 32 << 20,
                topics: [.init(topic: topic, partitions: [.init(partition: partition, fetchOffset: next, partitionMaxBytes: 8 << 20)])])
            let response = try client.send(request)
            guard let data = response.responses.first?.partitions.first else { return }
            try check(data.errorCode, "consume \(topic)")
            let records = data.records ?? ByteBuffer()
            if records.readableBytes == 0 {
                if exitAtEnd && next >= data.highWatermark { return }
                continue
            }
            let views: [RecordBatchView]
            do {
                views = try RecordBatchValidator(origin: .log).validate(records)
            } catch {
                throw fail("consume \(topic): \(error)")
            }
            for view in views {
                let decoded: [KafkaRecord]
                do {
                    decoded = try view.records(in: records)
                } catch {
                    throw fail("consume \(topic): \(error)")
                }
                for record in decoded where record.offset >= next {
                    print(record.value.map { String(buffer: $0) } ?? "")
                    printed += 1
                    next = record.offset + 1
                    if let count, printed >= count { return }
                }
                next = max(next, view.header.nextOffset)
            }
        }
    }
}
