import Foundation
import NIOCore
import SluiceBroker
import SluiceCore
import SluiceKafkaProtocol
import SluicePGWire
import SluiceServer

/// `sluice bench kafka-json`: N seed-000 balloon events (JSON, about 150 bytes each) loaded into
/// a topic of the built-in broker, then read by a Kafka source (librdkafka, the JSON row
/// decoder) feeding seed 000's leaderboard view, as `sluice serve` runs them: broker and engine in
/// one process. Timed from CREATE MATERIALIZED VIEW, which starts the source reading, until the
/// source has taken every event and FLUSH has returned with the view showing them all. Then the
/// decoder alone over the same NDJSON, and DuckDB's `read_json` on one thread
/// (``JSONDecodeBenchmark``).
package struct KafkaJSONBenchmark {
    package var events: Int
    package var compareWithDuckDB: Bool

    package init(events: Int, compareWithDuckDB: Bool) {
        self.events = events
        self.compareWithDuckDB = compareWithDuckDB
    }

    static let leaderboard = """
        CREATE MATERIALIZED VIEW mv_leaderboard AS
          SELECT player, sum(score) as total_score, count(case when favorite_color_bonus = true then 1 end) as bonus_hits,
                 max(event_ts) as event_ts
          FROM balloon_game_events GROUP BY player
        """

    package func run() async throws {
        let ndjson = JSONDecodeBenchmark.events(events)
        let megabytes = Double(ndjson.count) / 1_000_000
        report("sluice bench kafka-json: \(events) balloon events, \(String(format: "%.1f", megabytes)) MB of JSON, one partition of the built-in broker")

        let broker = try await BenchBroker.start(named: "kafka-json")
        let bootstrap = "127.0.0.1:\(broker.port)"

        let loadStart = ContinuousClock.now
        try Self.load(ndjson, topic: "balloon", port: broker.port)
        let loadSeconds = (ContinuousClock.now - loadStart).inSeconds
        report(String(format: "  load       %7.2f s  %12.0f events/s  %7.1f MB/s  (produced with acks=all)", loadSeconds,
                     Double(events) / loadSeconds, megabytes / loadSeconds))

        let database = try Database.withConnectors(dataDirectory: nil)
        let session = SQLSession(database: database, user: "root", databaseName: "dev", parameters: [:])
        _ = try await session.execute(script: """
            CREATE SOURCE balloon_game_events (player string, balloon_color string, score integer, page_id integer,
              favorite_color_bonus boolean, event_ts timestamptz)
            WITH (connector = 'kafka', topic = 'balloon', properties.bootstrap.server = '\(bootstrap)', scan.startup.mode = 'earliest')
            FORMAT PLAIN ENCODE JSON
            """)
        let start = ContinuousClock.now
        _ = try await session.execute(script: Self.leaderboard)
        try await database.waitForSource(named: "balloon_game_events", toTake: events, timeout: .seconds(600))
        let seconds = (ContinuousClock.now - start).inSeconds
        let total = try await session.execute(script: "SELECT sum(total_score), count(*) FROM mv_leaderboard").chunks.first
        database.stop()
        await broker.stop()
        let check = total.map { "\($0.columns[0].value(at: 0).textForm) total score over \($0.columns[1].value(at: 0).textForm) players" } ?? "no result"
        report(String(format: "  end to end %7.2f s  %12.0f events/s  %7.1f MB/s  (source → leaderboard view; %@)", seconds,
                     Double(events) / seconds, megabytes / seconds, check as NSString))
        try JSONDecodeBenchmark(events: events, compareWithDuckDB: compareWithDuckDB).run(ndjson: ndjson)
    }

    /// Produces every line of `ndjson` to partition 0 of `topic`, in batches of up to 4,000 records
    /// and 768 KiB with up to five requests in flight, as librdkafka sends them.
    /// Produces `ndjson`'s lines to partition 0 of `topic`, created first unless `append`.
    static func load(_ ndjson: [UInt8], topic: String, port: Int, append: Bool = false) throws {
        let client = try KafkaWireClient(host: "127.0.0.1", port: port)
        if !append {
            let created = try client.send(CreateTopicsRequest(topics: [.init(name: topic, numPartitions: 1, replicationFactor: 1)]))
            guard created.topics.first?.errorCode == 0 else { throw KafkaWireError("cannot create topic \(topic)") }
        }
        let timestamp = Int64(Date().timeIntervalSince1970 * 1000)
        try ndjson.withUnsafeBytes { bytes in
            var lineStart = 0
            try client.producePipelined(topic: topic) {
                var records: [KafkaRecord] = []
                var batchBytes = 0
                // Under the broker's default message.max.bytes (1 MiB) for a batch.
                while lineStart < bytes.count && records.count < 4000 && batchBytes < 768 << 10 {
                    let end = bytes[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
                    batchBytes += end - lineStart + 16
                    let line = ByteBuffer(bytes: UnsafeRawBufferPointer(rebasing: bytes[lineStart ..< end]))
                    records.append(KafkaRecord(offset: Int64(records.count), timestamp: timestamp, key: nil, value: line))
                    lineStart = end + 1
                }
                if records.isEmpty { return nil }
                var batch = ByteBuffer()
                _ = RecordBatchEncoder().encode(records, into: &batch)
                return batch
            }
        }
    }


}
