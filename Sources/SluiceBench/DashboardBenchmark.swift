import Foundation
import SluiceCore
import SluiceGen
import SluiceServer

/// `sluice bench dashboard`: what watching a pipeline costs it. Seed 000's source and its five
/// views (as the seed writes them) read N balloon events from the built-in broker twice: once
/// alone, once while the dashboard's feed builds a snapshot (the graph, every view's top rows)
/// and Prometheus scrapes `/metrics`, both every second as a browser and a scraper would. Then
/// the snapshot and the scrape alone, over the finished views. Goal: watching costs the
/// pipeline under 5% of its throughput.
package struct DashboardBenchmark {
    package var events: Int
    package var runs: Int

    package init(events: Int, runs: Int) {
        self.events = events
        self.runs = runs
    }

    package func run() async throws {
        let ndjson = JSONDecodeBenchmark.events(events)
        report("sluice bench dashboard: \(events) balloon events through seed 000's source and five views, median of \(runs) runs each")
        let broker = try await BenchBroker.start(named: "dashboard")
        try KafkaJSONBenchmark.load(ndjson, topic: "balloon", port: broker.port)
        let bootstrap = "127.0.0.1:\(broker.port)"
        let sql = SeedTemplate.fill(BalloonSeed.source, ["balloon_game_kafka_topic": "balloon", "balloon_game_kafka_bootstrap_servers": bootstrap])
            .replacingOccurrences(of: "scan.startup.mode='latest'", with: "scan.startup.mode='earliest'")

        var alone: [Double] = []
        var watched: [Double] = []
        var last: (database: Database, feed: DashboardFeed, metrics: ServerMetrics)?
        for run in 0 ..< runs * 2 {
            let watching = run % 2 == 1
            let database = try Database.withConnectors(dataDirectory: nil)
            let feed = DashboardFeed(database: database)
            let metrics = ServerMetrics(database: database, broker: broker.broker, recoverySeconds: 0)
            let session = SQLSession(database: database, user: "root", databaseName: "dev", parameters: [:])
            let watcher = watching ? Task {
                // A browser's feed and a scraper, each once a second.
                let snapshots = Task {
                    for await _ in feed.subscribe() {}
                }
                while !Task.isCancelled {
                    _ = metrics.exposition()
                    try? await Task.sleep(for: .seconds(1))
                }
                snapshots.cancel()
            } : nil
            let start = ContinuousClock.now
            _ = try await session.execute(script: sql)
            try await database.waitForSource(named: "balloon_game_events", toTake: events, timeout: .seconds(900))
            let seconds = (ContinuousClock.now - start).inSeconds
            watcher?.cancel()
            feed.stop()
            if watching { watched.append(seconds) } else { alone.append(seconds) }
            report(String(format: "  run %d %@  %7.2f s  %12.0f events/s", run / 2 + 1, (watching ? "watched" : "alone  ") as NSString,
                          seconds, Double(events) / seconds))
            if let last { last.database.stop() }
            last = (database, feed, metrics)
        }
        let aloneMedian = alone.sorted()[alone.count / 2]
        let watchedMedian = watched.sorted()[watched.count / 2]
        report(String(format: "  alone     median %7.2f s  %12.0f events/s", aloneMedian, Double(events) / aloneMedian))
        report(String(format: "  watched   median %7.2f s  %12.0f events/s  (a dashboard snapshot and a /metrics scrape every second)",
                      watchedMedian, Double(events) / watchedMedian))
        report(String(format: "  watching costs %.1f%% of the pipeline's throughput (goal: under 5%%)", (watchedMedian / aloneMedian - 1) * 100))

        // The snapshot and the scrape alone, over the last run's five views.
        if let last {
            var snapshotTimes: [Double] = []
            var snapshotBytes = 0
            var scrapeTimes: [Double] = []
            var scrapeBytes = 0
            for _ in 0 ..< 21 {
                var start = ContinuousClock.now
                snapshotBytes = await last.feed.snapshot().count
                snapshotTimes.append((ContinuousClock.now - start).inSeconds)
                start = ContinuousClock.now
                scrapeBytes = last.metrics.exposition().count
                scrapeTimes.append((ContinuousClock.now - start).inSeconds)
            }
            report(String(format: "  dashboard snapshot  median %7.2f ms  (%d KiB of JSON: the graph and five views' top rows)",
                          snapshotTimes.sorted()[10] * 1000, snapshotBytes >> 10))
            report(String(format: "  /metrics scrape     median %7.2f ms  (%d KiB of text)", scrapeTimes.sorted()[10] * 1000, scrapeBytes >> 10))
            last.database.stop()
        }
        await broker.stop()
    }
}
