import Foundation
import SluiceBroker
import SluiceCore
import SluiceGen
import SluicePGWire
import SluiceServer

/// Nexmark q0, q1 and q2 as materialized views over a Kafka source of the built-in broker, part
/// of `sluice bench mv`: N events of the full Nexmark stream (RisingWave's nexmark-bench layout,
/// one topic, `event_type` and a struct per kind) are loaded into one partition, then each query
/// runs in a fresh database, timed from CREATE MATERIALIZED VIEW until the source has taken every
/// event and FLUSH has returned. q0 and q1 keep every bid in the view (about 92% of the events);
/// q2 keeps one bid in 123, so its rate is that of reading and filtering alone, and q0/q2 shows
/// what keeping the rows costs.
struct NexmarkViewBenchmark {
    var events: Int

    static let source = """
        CREATE SOURCE nexmark (
          event_type BIGINT,
          person STRUCT<id BIGINT, name VARCHAR, email_address VARCHAR, credit_card VARCHAR, city VARCHAR, state VARCHAR,
                        date_time TIMESTAMP, extra VARCHAR>,
          auction STRUCT<id BIGINT, item_name VARCHAR, description VARCHAR, initial_bid BIGINT, reserve BIGINT, date_time TIMESTAMP,
                         expires TIMESTAMP, seller BIGINT, category BIGINT, extra VARCHAR>,
          bid STRUCT<auction BIGINT, bidder BIGINT, price BIGINT, channel VARCHAR, url VARCHAR, date_time TIMESTAMP, extra VARCHAR>
        ) WITH (connector = 'kafka', topic = 'nexmark', properties.bootstrap.server = '%@', scan.startup.mode = 'earliest')
        FORMAT PLAIN ENCODE JSON
        """

    /// The queries as RisingWave's nexmark-bench writes them over the one-topic source.
    static let queries: [(name: String, sql: String)] = [
        ("q0", "SELECT (bid).auction, (bid).bidder, (bid).price, (bid).date_time FROM nexmark WHERE event_type = 2"),
        ("q1", "SELECT (bid).auction, (bid).bidder, 0.908 * (bid).price AS price, (bid).date_time FROM nexmark WHERE event_type = 2"),
        ("q2", "SELECT (bid).auction, (bid).price FROM nexmark WHERE event_type = 2 AND (bid).auction % 123 = 0"),
    ]

    /// The full Nexmark stream (persons, auctions and bids), as RisingWave's nexmark-bench makes it.
    static func generator() -> NexmarkGenerator {
        var configuration = NexmarkGenerator.Configuration()
        configuration.kind = .all
        return NexmarkGenerator(configuration)
    }

    /// The next `count` events of `generator` as JSON lines.
    static func ndjson(_ count: Int, from generator: inout NexmarkGenerator) -> [UInt8] {
        let event = GeneratedEvent()
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * 220)
        for _ in 0 ..< count {
            event.key.removeAll()
            event.value.removeAll()
            generator.next(into: event)
            bytes += event.value.bytes
            bytes.append(UInt8(ascii: "\n"))
        }
        return bytes
    }

    struct Figures {
        var name: String
        var seconds: Double
        var rows: Int
    }

    func run() async throws -> [Figures] {
        var generator = Self.generator()
        let ndjson = Self.ndjson(events, from: &generator)
        print(String(format: "  nexmark: %d events, %.1f MB of JSON, one partition of the built-in broker", events, Double(ndjson.count) / 1e6))

        let broker = try await BenchBroker.start(named: "nexmark")
        try KafkaJSONBenchmark.load(ndjson, topic: "nexmark", port: broker.port)

        var results: [Figures] = []
        for query in Self.queries {
            let database = try Database.withConnectors(dataDirectory: nil)
            let session = SQLSession(database: database, user: "root", databaseName: "dev", parameters: [:])
            _ = try await session.execute(script: String(format: Self.source, "127.0.0.1:\(broker.port)" as NSString))
            let start = ContinuousClock.now
            _ = try await session.execute(script: "CREATE MATERIALIZED VIEW nexmark_\(query.name) AS \(query.sql)")
            try await database.waitForSource(named: "nexmark", toTake: events)
            let seconds = (ContinuousClock.now - start).inSeconds
            let count = try await session.execute(script: "SELECT count(*) FROM nexmark_\(query.name)").chunks.first
            database.stop()
            var rows = 0
            if let count, case .int64(let value) = count.columns[0].value(at: 0) { rows = Int(value) }
            results.append(Figures(name: query.name, seconds: seconds, rows: rows))
            print(String(format: "  nexmark %@  %7.2f s  %10.0f events/s  (%d rows in the view)", query.name as NSString, seconds,
                         Double(events) / seconds, rows))
        }
        await broker.stop()
        if let q2 = results.first(where: { $0.name == "q2" }) {
            for figures in results where figures.name != "q2" {
                print(String(format: "  nexmark %@ / q2 = %.2f", figures.name as NSString, q2.seconds / figures.seconds))
            }
        }
        return results
    }
}
