#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Synchronization
import SluiceConnectors
import SluiceCore
import SluiceServer

/// `sluice bench webhook`: events/s a webhook table accepts over HTTP with durable replies (each
/// 200 after the write-ahead log is synced), from one client and from 32, with NDJSON bodies of
/// 1 event and of 1,000; then the reply times when paced at 100,000 events/s (half the goal's
/// rate) and at half the best batched rate measured; beside a
/// plain INSERT over the wire (psql, one multi-row INSERT of 1,000 events per statement, each
/// durable). Goal: ≥ 200,000 events/s batched, p99 reply ≤ 20 ms at half that rate.
///
/// The server runs in process as `sluice serve` does (a data directory, durable commits); the
/// clients are threads with keep-alive HTTP/1.1 connections of their own (blocking sockets).
package struct WebhookBenchmark {
    package var seconds: Double

    package init(seconds: Double) {
        self.seconds = max(seconds, 0.5)
    }

    package func run() async throws {
        let directory = try benchDirectory(named: "webhook")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = benchServerConfiguration(directory: directory)
        var webhook = WebhookConfiguration()
        webhook.port = 0
        webhook.maximumBodyBytes = 64 << 20
        configuration.webhook = webhook
        let server = try await SluiceServer.start(configuration)
        let session = SQLSession(database: server.database, user: "root", databaseName: "dev", parameters: [:])
        _ = try await session.execute(script: """
            CREATE TABLE events (id bigint, kind varchar, amount double precision) APPEND ONLY WITH (connector = 'webhook', is_batched = 'true');
            CREATE TABLE inserted (id bigint, kind varchar, amount double precision) APPEND ONLY
            """)
        guard let port = server.webhook?.port else { throw SluiceError.internalError("the webhook listener did not start") }
        report(String(format: "sluice bench webhook: POST /webhook/dev/public/events, durable 200s, %.0f s a case", seconds))
        var best = 0.0
        for (clients, batch) in [(1, 1), (32, 1), (1, 1000), (32, 1000)] {
            let result = try drive(port: port, clients: clients, batch: batch, pace: nil)
            if batch > 1 { best = max(best, result.eventsPerSecond) }
            report(String(format: "  %2d client%@ batches of %4d  %10.0f events/s  %8.0f requests/s  p50 %6.2f ms  p99 %6.2f ms",
                          clients, clients == 1 ? " " : "s", batch, result.eventsPerSecond, result.requestsPerSecond, result.p50, result.p99))
        }
        // The goal's rate (half of 200,000 events/s), and half the best rate measured.
        for (label, rate) in [("half the goal", 100_000.0), ("half the best", best / 2)] {
            let paced = try drive(port: port, clients: 32, batch: 1000, pace: rate)
            report(String(format: "  paced at %@ (%.0f events/s, 32 clients, batches of 1000): %10.0f events/s  p50 %6.2f ms  p99 %6.2f ms",
                          label as NSString, rate, paced.eventsPerSecond, paced.p50, paced.p99))
        }
        let counted = try await session.execute(script: "SELECT count(*) FROM events").chunks.first?.columns[0].value(at: 0).textForm ?? "?"
        report("  rows in the table: \(counted)")
        if let insert = try insertOverTheWire(port: server.sqlServer.port, directory: directory) {
            report(String(format: "  psql INSERT of 1000 rows a statement (1 client)      %10.0f events/s", insert))
        }
        try await server.shutdown()
    }

    struct Result {
        var eventsPerSecond: Double
        var requestsPerSecond: Double
        var p50: Double
        var p99: Double
    }

    /// Posts batches of `batch` events from `clients` connections for ``seconds`` (at `pace`
    /// events a second in all when given); the replies' rate and latencies.
    private func drive(port: Int, clients: Int, batch: Int, pace: Double?) throws -> Result {
        let next = Atomic<Int>(0)
        let latencies = Mutex<[Double]>([])
        let failures = Atomic<Int>(0)
        let done = DispatchGroup()
        let start = ContinuousClock.now
        let deadline = start + .milliseconds(Int64(seconds * 1000))
        for client in 0 ..< clients {
            done.enter()
            let thread = Thread {
                defer { done.leave() }
                var own: [Double] = []
                guard let connection = try? BenchHTTPClient(port: port, what: "webhook listener") else {
                    failures.add(1, ordering: .relaxed)
                    return
                }
                var sent = 0
                while ContinuousClock.now < deadline {
                    if let pace {
                        // Each client's share of the rate, requests evenly spaced and the clients
                        // staggered, so the requests arrive one by one rather than in bursts.
                        let interval = Double(batch) * Double(clients) / pace
                        let due = start + .microseconds(Int64((Double(sent) + Double(client) / Double(clients)) * interval * 1_000_000))
                        let wait = due - ContinuousClock.now
                        if wait > .zero { Thread.sleep(forTimeInterval: Double(wait.components.attoseconds) / 1e18 + Double(wait.components.seconds)) }
                        if ContinuousClock.now >= deadline { break }
                    }
                    let first = next.add(batch, ordering: .relaxed).oldValue
                    var body = ""
                    body.reserveCapacity(batch * 56)
                    for id in first ..< first + batch {
                        body += #"{"id":\#(id),"kind":"k\#(id % 7)","amount":\#(Double(id % 1000) / 4)}"#
                        body += "\n"
                    }
                    let began = ContinuousClock.now
                    let answer = try? connection.request(
                        "POST", "/webhook/dev/public/events", body: Array(body.utf8), headers: [("Content-Type", "application/x-ndjson")])
                    guard answer?.status == 200 else {
                        failures.add(1, ordering: .relaxed)
                        break
                    }
                    own.append((ContinuousClock.now - began).inSeconds * 1000)
                    sent += 1
                }
                latencies.withLock { $0 += own }
            }
            thread.start()
        }
        done.wait()
        let elapsed = (ContinuousClock.now - start).inSeconds
        if failures.load(ordering: .relaxed) > 0 { throw SluiceError(.ioError, "\(failures.load(ordering: .relaxed)) webhook requests failed") }
        let sorted = latencies.withLock { $0 }.sorted()
        guard !sorted.isEmpty else { throw SluiceError(.ioError, "no webhook request was answered") }
        let percentile = { (p: Double) in sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))] }
        return Result(
            eventsPerSecond: Double(sorted.count * batch) / elapsed, requestsPerSecond: Double(sorted.count) / elapsed,
            p50: percentile(0.5), p99: percentile(0.99))
    }

    /// Events a second that psql inserts into `inserted`, 1,000 rows an INSERT, for about as long as a case.
    private func insertOverTheWire(port: Int, directory: String) throws -> Double? {
        guard let psql = ["/usr/bin/psql", "/usr/local/bin/psql"].first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            report("  psql: not installed (make test installs it)")
            return nil
        }
        let statements = max(20, Int(seconds * 100))
        var script = ""
        for statement in 0 ..< statements {
            script += "INSERT INTO inserted VALUES "
            script += (0 ..< 1000).map { row in
                let id = statement * 1000 + row
                return "(\(id), 'k\(id % 7)', \(Double(id % 1000) / 4))"
            }.joined(separator: ",")
            script += ";\n"
        }
        let path = "\(directory)/inserts.sql"
        try script.write(toFile: path, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: psql)
        process.arguments = ["-h", "127.0.0.1", "-p", String(port), "-U", "root", "-d", "dev", "-q", "-v", "ON_ERROR_STOP=1", "-f", path]
        process.standardOutput = FileHandle.nullDevice
        let start = ContinuousClock.now
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw SluiceError(.ioError, "psql failed with status \(process.terminationStatus)") }
        return Double(statements * 1000) / (ContinuousClock.now - start).inSeconds
    }
}
