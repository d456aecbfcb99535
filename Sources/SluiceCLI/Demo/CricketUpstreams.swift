import Foundation
import SluiceCore
import SluiceGen
import SluiceKafkaClient
import SluicePostgresClient

/// The three upstreams of `sluice demo cricket`, fed with generated matches in turn: an ODI
/// match as a CSV row copied into PostgreSQL (one transaction), a T20 match as Debezium's
/// MongoDB event on the topic, a Test match as a YAML file (written aside and renamed, so the
/// file source never sees half of it). Every fifth T20 event is followed by a repeat of an
/// earlier one, and every fifth YAML file by a copy of an earlier match under another name: the
/// upstream repeating itself, which the pipeline's keys absorb.
struct CricketUpstreams {
    private var matches: CricketMatchGenerator
    private let producer: KafkaProducer
    private let upstream: PostgresConnection?
    private let yamlRoot: String
    /// The T20 events and Test files sent so far, to repeat.
    private var sentEvents: [(key: [UInt8], value: [UInt8])] = []
    private var sentFiles: [String] = []

    init(kafka: String, postgresPort: Int?, yamlRoot: String) throws {
        matches = CricketMatchGenerator(seed: UInt64.random(in: 1 ... 999_999))
        producer = try KafkaProducer(bootstrapServers: kafka, properties: ["linger.ms": "5"])
        upstream = try postgresPort.map { try PostgresConnection(PostgresConnectionSettings(host: "127.0.0.1", port: String($0), database: "dev", user: "root")) }
        self.yamlRoot = yamlRoot
    }

    /// Adds `rate` matches a second, formats in turn, until `stopRequested`.
    mutating func generate(rate: Double, stopRequested: () -> Bool) throws {
        let formats: [CricketMatch.Format] = upstream == nil ? [.t20, .test] : [.odi, .t20, .test]
        let interval = Duration.seconds(1 / rate)
        var next = ContinuousClock.now
        var count = 0
        defer {
            try? producer.flush(timeout: .seconds(5))
            upstream?.close()
        }
        while !stopRequested() {
            let format = formats[count % formats.count]
            count += 1
            try add(matches.next(format), number: count)
            next += interval
            let now = ContinuousClock.now
            if next > now { Thread.sleep(forTimeInterval: Double((next - now).components.attoseconds) / 1e18 + Double((next - now).components.seconds)) }
        }
    }

    private mutating func add(_ match: CricketMatch, number: Int) throws {
        switch match.format {
        case .odi:
            let line = Array(match.odiCSVLine.utf8)
            try upstream?.copyIn("COPY odi_matches (\(CricketMatch.odiColumns.joined(separator: ", "))) FROM STDIN WITH (FORMAT csv)") {
                (writer) throws(SluiceError) in try line.withUnsafeBytes { bytes in Result { () throws(SluiceError) in try writer.write(bytes) } }.get()
            }
        case .t20:
            let objectID = String(UInt64.random(in: 0 ... UInt64.max), radix: 16).leftPadded(to: 16) + String(UInt32(truncatingIfNeeded: number), radix: 16).leftPadded(to: 8)
            let change = CricketMatch.mongoChange(operation: "c", document: match.mongoDocument(objectID: objectID), objectID: objectID)
            let event = (key: Array(change.key.utf8), value: Array(change.value.utf8))
            try producer.produce(topic: CricketSeed.mongoTopic, key: event.key, value: event.value)
            if sentEvents.count >= 4, sentEvents.count % 5 == 0 {
                let repeated = sentEvents[sentEvents.count / 2]
                try producer.produce(topic: CricketSeed.mongoTopic, key: repeated.key, value: repeated.value)
            }
            sentEvents.append(event)
            producer.poll()
        case .test:
            try write(match.testYAML, as: "\(match.id).yaml")
            if sentFiles.count >= 4, sentFiles.count % 5 == 0 {
                try write(sentFiles[sentFiles.count / 2], as: "again-\(number).yaml")
            }
            sentFiles.append(match.testYAML)
        }
    }

    private func write(_ text: String, as name: String) throws {
        let staging = "\(yamlRoot)/.\(name).partial"
        try text.write(toFile: staging, atomically: false, encoding: .utf8)
        guard rename(staging, "\(yamlRoot)/\(name)") == 0 else { throw SluiceError(.ioError, "cannot rename \(staging): errno \(errno)") }
    }
}

private extension String {
    func leftPadded(to width: Int) -> String {
        count >= width ? String(suffix(width)) : String(repeating: "0", count: width - count) + self
    }
}
