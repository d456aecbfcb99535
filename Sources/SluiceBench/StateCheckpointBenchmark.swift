import Foundation
import SluiceCore
import SluiceGen
import SluicePGWire
import SluiceServer

/// The state-checkpoint part of `sluice bench checkpoint`: Nexmark events from the built-in
/// broker through two views (q0, which keeps every bid, and a GROUP BY over auctions), with a
/// data directory, run twice:
/// - with checkpoints off (one every 2^30 barriers) and with one at every barrier: the rates and
///   their ratio, and what the checkpoints wrote against the state they changed (bytes of the
///   views' changes; bases are first checkpoints and compactions);
/// - then a crash (no clean stop) and a restart: the time until SQL is served with the views'
///   state restored, and until the views have taken a further tenth of the events at full speed.
struct StateCheckpointBenchmark {
    var events: Int
    var barrierMilliseconds = 250

    static let views = [
        ("nexmark_q0", "SELECT (bid).auction, (bid).bidder, (bid).price, (bid).date_time FROM nexmark WHERE event_type = 2"),
        ("auction_bids", "SELECT (bid).auction AS auction, count(*) AS bids, max((bid).price) AS top FROM nexmark WHERE event_type = 2 GROUP BY (bid).auction"),
    ]

    func run() async throws {
        // Stopped (and its topic's gigabytes removed) before returning, whatever happens.
        let broker = try await BenchBroker.start(named: "state-checkpoints")
        do {
            try await run(with: broker)
        } catch {
            await broker.stop()
            throw error
        }
        await broker.stop()
    }

    private func run(with broker: BenchBroker) async throws {
        let extra = events / 10
        var generator = NexmarkViewBenchmark.generator()
        func ndjson(_ count: Int) -> [UInt8] { NexmarkViewBenchmark.ndjson(count, from: &generator) }
        try KafkaJSONBenchmark.load(ndjson(events), topic: "nexmark", port: broker.port)
        report("  views' state: \(events) Nexmark events through q0 (every bid kept) and a GROUP BY over auctions, barrier every \(barrierMilliseconds) ms")

        // Best of two runs each, alternating: two cores make single runs noisy.
        var rates = [0.0, 0.0]
        var path = ""
        for (run, frequency) in [1 << 30, 1, 1 << 30, 1].enumerated() {
            if !path.isEmpty { try? FileManager.default.removeItem(atPath: path) }
            path = try benchDirectory(named: "state-checkpoints")
            let database = try Database.withConnectors(
                dataDirectory: path, barrierIntervalMilliseconds: barrierMilliseconds, checkpointFrequency: frequency, memoryLimit: ServerConfiguration.defaultMemoryLimit)
            let session = SQLSession(database: database, user: "root", databaseName: "dev", parameters: [:])
            _ = try await session.execute(script: String(format: NexmarkViewBenchmark.source, "127.0.0.1:\(broker.port)" as NSString))
            let start = ContinuousClock.now
            for (name, sql) in Self.views { _ = try await session.execute(script: "CREATE MATERIALIZED VIEW \(name) AS \(sql)") }
            try await database.waitForSource(named: "nexmark", toTake: events)
            let seconds = (ContinuousClock.now - start).inSeconds
            rates[run % 2] = max(rates[run % 2], Double(events) / seconds)
            let stateBytes = database.streams.runtime.views.reduce(0) { $0 + $1.statistics.stateBytes.load(ordering: .relaxed) }
            if run < 2 {
                report(String(format: "  %@  %7.2f s  %10.0f events/s", frequency == 1 ? "checkpoint every barrier" : "checkpoints off         ", seconds, Double(events) / seconds))
            } else if frequency == 1 {
                database.streams.waitForStateCheckpoints()
                let totals = database.streams.stateCheckpointTotals
                report(String(format: "  checkpoint every barrier  %7.2f s  %10.0f events/s; best of two: %.0f against %.0f with checkpoints off, %.2f",
                             seconds, Double(events) / seconds, rates[1], rates[0], rates[1] / rates[0]))
                report(String(format: "  %d checkpoints: %.1f MiB written (%.2f MiB each); changes %.1f MiB, bases %.1f MiB: %.2f bytes written per byte of changes; %d failed; state %.0f MiB",
                             totals.checkpoints, Double(totals.bytesWritten) / 1_048_576, Double(totals.bytesWritten) / 1_048_576 / Double(max(totals.checkpoints, 1)),
                             Double(totals.deltaBytes) / 1_048_576, Double(totals.baseBytes) / 1_048_576,
                             Double(totals.bytesWritten) / Double(max(totals.deltaBytes, 1)), totals.failures, Double(stateBytes) / 1_048_576))
            } else {
                report(String(format: "  checkpoints off           %7.2f s  %10.0f events/s", seconds, Double(events) / seconds))
            }
            // A crash: the last run's directory is recovered below. (The checkpoints already
            // handed to the writer are let finish: the next run removes this directory.)
            database.stop()
            database.streams.waitForStateCheckpoints()
        }
        defer { try? FileManager.default.removeItem(atPath: path) }

        try KafkaJSONBenchmark.load(ndjson(extra), topic: "nexmark", port: broker.port, append: true)
        let restart = ContinuousClock.now
        // (With the memory limit `sluice serve` has by default: half the machine's memory.)
        let recovered = try Database.withConnectors(
            dataDirectory: path, barrierIntervalMilliseconds: barrierMilliseconds, memoryLimit: ServerConfiguration.defaultMemoryLimit)
        let serving = (ContinuousClock.now - restart).inSeconds
        // Until the source stands at the end of the topic (it resumed at the last checkpoint's
        // offset) and every view shows it.
        let source = recovered.catalog.relation(named: "nexmark")?.id ?? -1
        while (recovered.streams.positions(of: source)?[0] ?? 0) < Int64(events + extra) {
            try await Task.sleep(for: .milliseconds(5))
        }
        await recovered.flush()
        let caughtUp = (ContinuousClock.now - restart).inSeconds
        let session = SQLSession(database: recovered, user: "root", databaseName: "dev", parameters: [:])
        _ = try await session.execute(script: "FLUSH")
        let count = try await session.execute(script: "SELECT count(*) FROM nexmark_q0").chunks.first?.columns[0].value(at: 0).textForm ?? "?"
        let stateBytes = recovered.streams.runtime.views.reduce(0) { $0 + $1.statistics.stateBytes.load(ordering: .relaxed) }
        recovered.stop()
        report(String(format: "  recovery  %6.2f s until SQL is served (%.0f MiB of view state restored), %6.2f s until %d more events are in (%.2f s at the steady rate); q0 holds %@ rows",
                     serving, Double(stateBytes) / 1_048_576, caughtUp, extra, Double(extra) / rates[1], count as NSString))
        report("  \(recovered.recovery?.summary ?? "")")
    }
}
