import Foundation
import SluiceCore
import SluicePGWire
import SluicePlanner
import SluiceSQL
import Synchronization

/// The dashboard's state, as JSON: the pipeline graph (sources, tables, views and sinks, with
/// their counters), each materialized view's top rows and the chart its shape calls for, the
/// recent checkpoints and memory.
///
/// One snapshot is built per ``interval`` while anyone watches, and handed to every subscriber
/// (each browser's `/events` stream), so ten open dashboards cost what one does. Counters are
/// cumulative; the browser turns two snapshots into rates.
package final class DashboardFeed: Sendable {
    let database: Database
    /// Read-only SQL, for the views' rows and the SQL box.
    let queries: DashboardQuery
    let interval: Duration
    /// Rows of each view's live table.
    static let viewRows = 100
    /// Views with more rows show their first rows, not the top of their chart's order.
    static let largestSortedView = 200_000
    private let subscribers = Mutex<[Int: AsyncStream<[UInt8]>.Continuation]>([:])
    private let nextSubscriber = Atomic<Int>(0)
    private let ticker = Mutex<Task<Void, Never>?>(nil)

    package init(database: Database, interval: Duration = .seconds(1)) {
        self.database = database
        queries = DashboardQuery(database: database, threads: SessionThreads())
        self.interval = interval
    }

    /// Snapshots from now on, the first at once, until the caller stops iterating.
    package func subscribe() -> AsyncStream<[UInt8]> {
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self, bufferingPolicy: .bufferingNewest(1))
        let id = nextSubscriber.add(1, ordering: .relaxed).newValue
        continuation.onTermination = { [weak self] _ in
            _ = self?.subscribers.withLock { $0.removeValue(forKey: id) }
        }
        subscribers.withLock { $0[id] = continuation }
        startTicking()
        return stream
    }

    /// Stops the snapshots and ends every subscriber's stream.
    package func stop() {
        ticker.withLock { task in
            task?.cancel()
            task = nil
        }
        let all = subscribers.withLock { subscribers in
            defer { subscribers = [:] }
            return Array(subscribers.values)
        }
        for continuation in all { continuation.finish() }
    }

    private func startTicking() {
        ticker.withLock { task in
            guard task == nil else { return }
            task = Task { [weak self] in
                while !Task.isCancelled {
                    guard let self else { return }
                    let watchers = self.subscribers.withLock { Array($0.values) }
                    if !watchers.isEmpty {
                        let snapshot = await self.snapshot()
                        for watcher in watchers { watcher.yield(snapshot) }
                    }
                    try? await Task.sleep(for: self.interval)
                }
            }
        }
    }

    /// The state now, as JSON bytes.
    package func snapshot() async -> [UInt8] {
        let catalog = database.catalog
        let relations = catalog.relations.filter { $0.kind != .view }
        let sources = Dictionary(catalog.systemReader.sources.map { ($0.relationID, $0) }, uniquingKeysWith: { first, _ in first })
        let sinks = Dictionary(catalog.systemReader.sinks.map { ($0.relationID, $0) }, uniquingKeysWith: { first, _ in first })
        let jobs = Dictionary(catalog.systemReader.streamingJobs.map { ($0.viewID, $0) }, uniquingKeysWith: { first, _ in first })
        var nodes: [JSONDocument] = []
        var edges: [JSONDocument] = []
        var views: [JSONDocument] = []
        let known = Set(relations.map(\.id))
        for relation in relations {
            var node: [JSONDocument.Member] = [
                .init("id", .int(Int64(relation.id))), .init("name", .string(relation.name)), .init("kind", .string(relation.kind.rawValue)),
            ]
            if let connector = relation.connector?.connector { node.append(.init("connector", .string(connector))) }
            if let rows = database.tables.stores.rowCount(id: relation.id) { node.append(.init("row_count", .int(Int64(rows)))) }
            if let source = sources[relation.id] {
                node.append(.init("source", Self.json(source)))
            }
            if let job = jobs[relation.id] {
                node.append(.init("job", .object([
                    "rows_in": .int(Int64(job.rowsIn)), "rows_out": .int(Int64(job.rowsOut)), "row_count": .int(Int64(job.rowCount)), "errors": .int(Int64(job.errors)),
                    "last_error": job.lastError.map { .string($0) }, "state_bytes": .int(Int64(job.stateBytes)),
                    "backfill_rows": .int(Int64(job.backfillRows)), "backfilled_rows": .int(Int64(job.backfilledRows)),
                ])))
            }
            if let sink = sinks[relation.id] {
                let options = relation.connector?.options ?? [:]
                node.append(.init("sink", Self.json(sink, target: [options["database.name"], options["table.name"]].compactMap { $0 }.joined(separator: "."))))
            }
            nodes.append(.object(node))
            for upstream in relation.dependencies where known.contains(upstream) {
                edges.append(.object(["from": .int(Int64(upstream)), "to": .int(Int64(relation.id))]))
            }
            if relation.kind == .materializedView { views.append(await view(relation)) }
        }
        let memory = catalog.systemReader.memory
        let barriers = database.streams.runtime.barrierLatencies.suffix(120).map { latency -> JSONDocument in
            .object(["epoch": .int(Int64(latency.epoch)), "ms": .double(Double(latency.nanoseconds) / 1e6), "checkpoint": .bool(latency.isCheckpoint)])
        }
        let checkpoints = catalog.systemReader.checkpoints.suffix(60).map { record -> JSONDocument in
            .object([
                "epoch": .int(Int64(record.epoch)), "started_at_ms": .int(record.startedAt / 1000),
                "duration_ms": .double(Double(record.durationMicroseconds) / 1000), "bytes": .int(Int64(record.bytesWritten)),
                "tables": .int(Int64(record.tables)), "error": record.error.map { .string($0) },
            ])
        }
        return JSONDocument.object([
            "time_ms": .int(Int64(Date().timeIntervalSince1970 * 1000)),
            "nodes": .array(nodes), "edges": .array(edges), "views": .array(views), "checkpoints": .array(Array(checkpoints)),
            "barriers": .array(Array(barriers)),
            "memory": .object([
                "limit_bytes": .int(Int64(memory.limitBytes)), "state_resident_bytes": .int(Int64(memory.residentBytes)),
                "state_spilled_bytes": .int(Int64(memory.spilledBytes)), "process_rss_bytes": .int(Int64(memory.processBytes)),
            ]),
        ]).bytes
    }

    static func json(_ source: SourceStatus) -> JSONDocument {
        .object([
            "rows_read": .int(Int64(source.rowsRead)), "rows_rejected": .int(Int64(source.rowsRejected)),
            "rows_late": .int(Int64(source.rowsLate)), "status": .string(source.status), "bytes_read": .int(Int64(source.bytesRead)),
            "lag": source.lag.map { .int(Int64($0)) },
            "latest_errors": .array(source.errors.suffix(5).reversed().map { error -> JSONDocument in
                .object([
                    "partition": .int(Int64(error.partition)), "offset": .int(error.offset), "error": .string(error.message),
                    "payload": .string(String(error.payload.prefix(300))), "rejected_at_ms": .int(error.rejectedAt / 1000),
                ])
            }),
        ])
    }

    static func json(_ sink: SinkStatus, target: String) -> JSONDocument {
        .object([
            "target": .string(target), "state": .string(sink.state), "last_commit_epoch": .int(Int64(sink.lastCommitEpoch)),
            "last_commit_at_ms": sink.lastCommitAt.map { .int($0 / 1000) }, "commits": .int(Int64(sink.commits)),
            "files": .int(Int64(sink.files)), "rows": .int(Int64(sink.rows)), "rows_in": .int(Int64(sink.rowsIn)),
            "pending_epochs": .int(Int64(sink.pendingEpochs)), "commit_failures": .int(Int64(sink.commitFailures)),
            "last_error": sink.lastError.map { .string($0) },
        ])
    }

    /// A view's top rows, and its chart: lines over `window_start` for a windowed view (one
    /// line per group of its text columns), bars for a GROUP BY (the largest values of its
    /// first number), else a table only.
    func view(_ relation: RelationDefinition) async -> JSONDocument {
        let chart = ViewChart(relation)
        var sql = "SELECT * FROM \(quoteIdentifierIfNeeded(relation.name))"
        // Ordered for the chart, unless the view is too large to sort every second.
        let sortable = (database.tables.stores.rowCount(id: relation.id) ?? 0) <= Self.largestSortedView
        switch sortable ? chart.kind : "table" {
        case "lines": sql += " ORDER BY \(chart.time.map { "\($0 + 1)" } ?? "1") DESC"
        case "bars": sql += " ORDER BY \(chart.value.map { "\($0 + 1)" } ?? "1") DESC NULLS LAST"
        default: break
        }
        sql += " LIMIT \(chart.kind == "lines" ? Self.viewRows * 4 : Self.viewRows)"
        var members: [JSONDocument.Member] = [.init("id", .int(Int64(relation.id))), .init("name", .string(relation.name)), .init("chart", chart.json)]
        do {
            let result = try await queries.result(of: sql)
            members.append(.init("columns", result["columns"] ?? .array([])))
            members.append(.init("rows", result["rows"] ?? .array([])))
        } catch {
            members.append(.init("error", .string(error.message)))
        }
        return .object(members)
    }
}

/// The chart a view's shape calls for.
struct ViewChart {
    var kind = "table"
    /// Columns (by index): the x axis of lines, the value, and the labels (text columns).
    var time: Int?
    var value: Int?
    var labels: [Int] = []

    init(_ relation: RelationDefinition) {
        let columns = relation.columns
        time = columns.firstIndex { $0.name == "window_start" && $0.type.isTemporal }
        labels = columns.indices.filter { columns[$0].type == .varchar }
        value = columns.indices.first { columns[$0].type.isNumeric && columns[$0].name != "window_start" && columns[$0].name != "window_end" }
        guard value != nil else { return }
        if time != nil {
            kind = "lines"
        } else if relation.definition.range(of: "GROUP BY", options: .caseInsensitive) != nil, !labels.isEmpty {
            kind = "bars"
        }
    }

    var json: JSONDocument {
        .object([
            "kind": .string(kind), "time": time.map { .int(Int64($0)) }, "value": value.map { .int(Int64($0)) },
            "labels": .array(labels.map { .int(Int64($0)) }),
        ])
    }
}
