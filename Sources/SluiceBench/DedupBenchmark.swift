import Foundation
import SluiceCore
import SluiceServer

/// `sluice bench dedup`: what `dedup.key` costs a Kafka source. N seed-004 payment events (JSON,
/// about 120 bytes each; a fifth are repeats of a recent event, as a provider that crashed sends
/// them again) are loaded into one partition of the built-in broker, then read by a source with a
/// watermark into a view counting events per provider: without `dedup.key`, with
/// `dedup.key = 'event_id'` and `dedup.window = '1 hour'` (longer than the events' span of event
/// time, so no key is forgotten), and with `dedup.window = '1 minute'` (the watermark forgets keys
/// all along, a scan of the seen keys each quarter window); each timed from CREATE MATERIALIZED
/// VIEW until the source has taken every event and FLUSH has returned. Runs alternate; medians
/// are reported.
package struct DedupBenchmark {
    package var events: Int
    /// At least one.
    package var runs: Int

    package init(events: Int, runs: Int) {
        self.events = events
        self.runs = max(1, runs)
    }

    /// The `dedup.window` of a run, nil for none.
    private static let windows: [String?] = [nil, "1 hour", "1 minute"]

    /// The events as NDJSON, and how many are repeats: ids `evt_<n>` a millisecond apart in
    /// event time, about every fifth event a repeat of one of the last 1,000.
    static func payments(_ count: Int) -> (ndjson: [UInt8], repeats: Int) {
        var generator = SplitMix64(seed: 4)
        var out: [UInt8] = []
        out.reserveCapacity(count * 128)
        let providers = ["stripe", "braintree", "adyen", "paypal"]
        let base: Int64 = 1_793_491_200_000  // 2026-11-01, in milliseconds
        var emitted = [Bool](repeating: false, count: count)
        var repeats = 0
        for index in 0 ..< count {
            var number = index
            if index >= 1000 && generator.next() % 5 == 0 { number = index - 1 - Int(generator.next() % 1000) }
            // (A repeat of an id whose own turn was a repeat is that id's first event.)
            if emitted[number] { repeats += 1 }
            emitted[number] = true
            let time = Value.timestamptz((base + Int64(number)) * 1000).textForm
            let provider = providers[number % providers.count]
            let line = "{\"event_id\":\"evt_\(number)\",\"provider\":\"\(provider)\",\"amount\":\(number % 500).25,\"status\":\"succeeded\",\"created_at\":\"\(time)\"}\n"
            out.append(contentsOf: line.utf8)
        }
        return (out, repeats)
    }

    package func run() async throws {
        let (ndjson, repeats) = Self.payments(events)
        let megabytes = Double(ndjson.count) / 1_000_000
        report("sluice bench dedup: \(events) payment events (\(repeats) repeats), \(String(format: "%.1f", megabytes)) MB of JSON, one partition of the built-in broker, medians of \(runs) runs")
        let broker = try await BenchBroker.start(named: "dedup")
        try KafkaJSONBenchmark.load(ndjson, topic: "payments", port: broker.port)
        var seconds = [[Double]](repeating: [], count: Self.windows.count)
        for run in 0 ..< runs {
            for (variant, window) in Self.windows.enumerated() {
                let (taken, rows) = try await pipeline(port: broker.port, window: window, run: run)
                // (A repeat is at most a second behind its event, well inside either window.)
                let expected = window == nil ? events : events - repeats
                guard rows == expected else { throw SluiceError.internalError("the view counted \(rows) events, not \(expected)") }
                seconds[variant].append(taken)
            }
        }
        await broker.stop()
        let medians = seconds.map(median)
        let plainSeconds = medians[0]
        report(String(format: "  without dedup.key             %7.3f s  %12.0f events/s", plainSeconds, Double(events) / plainSeconds))
        for (variant, window) in Self.windows.enumerated() {
            guard let window else { continue }
            let label = "dedup.key, window '\(window)'".padding(toLength: 29, withPad: " ", startingAt: 0)
            let taken = medians[variant]
            report("  " + label + String(format: " %7.3f s  %12.0f events/s  (%d repeats dropped; %.2fx the events/s without it)",
                                        taken, Double(events) / taken, repeats, plainSeconds / taken))
        }
    }

    /// One source and view over the topic; the seconds from CREATE MATERIALIZED VIEW until the
    /// view shows every event, and the events it counted.
    private func pipeline(port: Int, window: String?, run: Int) async throws -> (Double, Int) {
        let database = try Database.withConnectors(dataDirectory: nil)
        let session = SQLSession(database: database, user: "root", databaseName: "dev", parameters: [:])
        let name = "payments_\(window.map { "dedup_" + $0.replacingOccurrences(of: " ", with: "_") } ?? "plain")_\(run)"
        let options = window.map { ", dedup.key = 'event_id', dedup.window = '\($0)'" } ?? ""
        _ = try await session.execute(script: """
            CREATE SOURCE \(name) (event_id varchar, provider varchar, amount decimal, status varchar, created_at timestamptz,
              WATERMARK FOR created_at AS created_at - INTERVAL '5 seconds')
            WITH (connector = 'kafka', topic = 'payments', properties.bootstrap.server = '127.0.0.1:\(port)',
              scan.startup.mode = 'earliest'\(options))
            FORMAT PLAIN ENCODE JSON
            """)
        let start = ContinuousClock.now
        _ = try await session.execute(script: "CREATE MATERIALIZED VIEW totals_\(name) AS SELECT provider, count(*) AS n, sum(amount) AS amount FROM \(name) GROUP BY provider")
        try await database.waitForSource(named: name, toTake: events, timeout: .seconds(900))
        let seconds = (ContinuousClock.now - start).inSeconds
        let result = try await session.execute(script: "SELECT sum(n) FROM totals_\(name)").chunks.first
        database.stop()
        return (seconds, result.flatMap { Int($0.columns[0].value(at: 0).textForm) } ?? 0)
    }

    private func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted[sorted.count / 2]
    }
}
