import CoreMetrics
import Prometheus
import SluiceBroker
import SluiceCore
import SluiceHTTP
import SluicePGWire
import SluicePlanner
import Synchronization

/// Prometheus `/metrics`: swift-metrics counters and gauges over a Prometheus registry of the
/// server's own (not the process-wide bootstrap, so that servers in one test process do not
/// share series).
///
/// The engine already counts what matters where it happens: connectors their rows, fragments
/// their rows and state, sinks their commits, the checkpoint writer its checkpoints, the broker
/// its traffic. A scrape brings the swift-metrics series up to those counts (counters grow by
/// the difference since the last scrape), so the data path keeps one set of counters and pays
/// nothing for metrics.
package final class ServerMetrics: Sendable {
    let registry: PrometheusCollectorRegistry
    /// Makes the swift-metrics series over ``registry``; histograms get buckets from 5 ms to 10 s.
    let factory: PrometheusMetricsFactory
    let database: Database
    let broker: KafkaBroker?
    private let state: Mutex<State>
    /// The SQL endpoint, once it listens: its refused logins.
    private let sqlServer = Mutex<PGServer?>(nil)
    /// The HTTP listeners' logins, whose refusals count too.
    private let httpAccess = Mutex<[HTTPAccess]>([])

    /// Counts the SQL endpoint's refused logins from now on.
    package func attach(_ server: PGServer) {
        sqlServer.withLock { $0 = server }
    }

    /// Counts an HTTP listener's refused logins too.
    func attach(_ access: HTTPAccess) {
        httpAccess.withLock { $0.append(access) }
    }

    private struct State {
        var counters: [SeriesKey: (counter: CoreMetrics.Counter, last: Int)] = [:]
        var gauges: [SeriesKey: CoreMetrics.Gauge] = [:]
        var checkpointDurations: CoreMetrics.Timer?
        var lastCheckpointEpoch: UInt64 = 0
        var barrierLatencies: CoreMetrics.Timer?
        var lastBarrierEpoch: UInt64 = 0
    }

    struct SeriesKey: Hashable {
        var name: String
        var labels: [String]
    }

    /// - Parameter recoverySeconds: how long the start's recovery took.
    package init(database: Database, broker: KafkaBroker?, recoverySeconds: Double) {
        self.database = database
        self.broker = broker
        self.state = Mutex(State())
        let registry = PrometheusCollectorRegistry()
        self.registry = registry
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.defaultDurationHistogramBuckets = [
            .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250),
            .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(10),
        ]
        self.factory = factory
        CoreMetrics.Gauge(label: "sluice_recovery_seconds", factory: factory).record(recoverySeconds)
    }

    /// The text exposition format, with every series brought up to date.
    package func exposition() -> [UInt8] {
        refresh()
        return registry.emitToBuffer()
    }

    private func refresh() {
        let catalog = database.catalog
        state.withLock { state in
            var seen = Set<SeriesKey>()
            func count(_ name: String, _ labels: [(String, String)], _ value: Int) {
                let key = SeriesKey(name: name, labels: labels.flatMap { [$0.0, $0.1] })
                seen.insert(key)
                let entry = state.counters[key] ?? (CoreMetrics.Counter(label: name, dimensions: labels, factory: factory), 0)
                if value >= entry.last {
                    if value > entry.last { entry.counter.increment(by: Int64(value - entry.last)) }
                } else {
                    // The count started again (the relation was dropped and made anew).
                    entry.counter.reset()
                    entry.counter.increment(by: Int64(value))
                }
                state.counters[key] = (entry.counter, value)
            }
            func gauge(_ name: String, _ labels: [(String, String)], _ value: Double) {
                let key = SeriesKey(name: name, labels: labels.flatMap { [$0.0, $0.1] })
                seen.insert(key)
                let gauge = state.gauges[key] ?? CoreMetrics.Gauge(label: name, dimensions: labels, factory: factory)
                gauge.record(value)
                state.gauges[key] = gauge
            }

            for source in catalog.systemReader.sources {
                guard let name = catalog.relation(id: source.relationID)?.name else { continue }
                let labels = [("source", name)]
                count("sluice_source_rows_total", labels, source.rowsRead)
                count("sluice_source_rows_rejected_total", labels, source.rowsRejected)
                count("sluice_source_rows_late_total", labels, source.rowsLate)
                count("sluice_source_rows_deduplicated_total", labels, source.rowsDeduplicated)
                count("sluice_source_bytes_total", labels, source.bytesRead)
                if let lag = source.lag { gauge("sluice_source_lag_messages", labels, Double(lag)) }
            }
            for job in catalog.systemReader.streamingJobs {
                guard let relation = catalog.relation(id: job.viewID) else { continue }
                let labels = [(relation.kind == .sink ? "sink" : "view", relation.name)]
                let prefix = relation.kind == .sink ? "sluice_sink_fragment" : "sluice_view"
                count("\(prefix)_rows_in_total", labels, job.rowsIn)
                if relation.kind != .sink { count("sluice_view_rows_out_total", labels, job.rowsOut) }
                count("\(prefix)_errors_total", labels, job.errors)
                gauge("\(prefix)_state_bytes", labels, Double(job.stateBytes))
                if relation.kind != .sink { gauge("sluice_view_rows", labels, Double(job.rowCount)) }
                gauge("\(prefix)_backfill_rows_remaining", labels, Double(job.backfillRows - job.backfilledRows))
            }
            for sink in catalog.systemReader.sinks {
                guard let name = catalog.relation(id: sink.relationID)?.name else { continue }
                let labels = [("sink", name)]
                count("sluice_sink_rows_in_total", labels, sink.rowsIn)
                count("sluice_sink_rows_committed_total", labels, sink.rows)
                count("sluice_sink_files_committed_total", labels, sink.files)
                count("sluice_sink_commits_total", labels, sink.commits)
                count("sluice_sink_commit_failures_total", labels, sink.commitFailures)
                gauge("sluice_sink_pending_epochs", labels, Double(sink.pendingEpochs))
                gauge("sluice_sink_last_commit_epoch", labels, Double(sink.lastCommitEpoch))
            }

            let checkpoints = catalog.systemReader.checkpoints
            let durations = state.checkpointDurations ?? CoreMetrics.Timer(label: "sluice_checkpoint_duration_seconds", factory: factory)
            state.checkpointDurations = durations
            for record in checkpoints where record.epoch > state.lastCheckpointEpoch && record.error == nil {
                durations.recordNanoseconds(record.durationMicroseconds * 1000)
            }
            state.lastCheckpointEpoch = max(state.lastCheckpointEpoch, checkpoints.map(\.epoch).max() ?? 0)
            if let last = checkpoints.last(where: { $0.error == nil }) {
                gauge("sluice_checkpoint_last_bytes", [], Double(last.bytesWritten))
                gauge("sluice_checkpoint_last_epoch", [], Double(last.epoch))
            }
            gauge("sluice_checkpoints_failed_recent", [], Double(checkpoints.filter { $0.error != nil }.count))

            // Barriers: from injection until every view and sink has passed them.
            let latencies = database.streams.runtime.barrierLatencies
            let barrierTimer = state.barrierLatencies ?? CoreMetrics.Timer(label: "sluice_barrier_latency_seconds", factory: factory)
            state.barrierLatencies = barrierTimer
            for latency in latencies where latency.epoch > state.lastBarrierEpoch { barrierTimer.recordNanoseconds(latency.nanoseconds) }
            state.lastBarrierEpoch = max(state.lastBarrierEpoch, latencies.last?.epoch ?? 0)

            let memory = catalog.systemReader.memory
            gauge("sluice_memory_limit_bytes", [], Double(memory.limitBytes))
            gauge("sluice_state_resident_bytes", [], Double(memory.residentBytes))
            gauge("sluice_state_spilled_bytes", [], Double(memory.spilledBytes))
            gauge("sluice_process_resident_bytes", [], Double(memory.processBytes))
            gauge("sluice_query_memory_bytes", [], Double(memory.queryReservedBytes))
            gauge("sluice_query_memory_limit_bytes", [], Double(memory.queryLimitBytes))
            for (owner, bytes) in memory.byOwner { gauge("sluice_memory_bytes", [("owner", owner)], Double(bytes)) }

            // Refused logins on every port: SQL, Kafka (SASL) and HTTP.
            let failedLogins = (sqlServer.withLock { $0 }?.failedLogins ?? 0) + (broker?.failedLogins ?? 0)
                + httpAccess.withLock { $0.reduce(0) { $0 + $1.failedLogins } }
            count("sluice_failed_logins_total", [], failedLogins)
            if let broker {
                for (topic, traffic) in broker.traffic.snapshot {
                    let labels = [("topic", topic)]
                    count("sluice_broker_records_produced_total", labels, traffic.recordsProduced)
                    count("sluice_broker_bytes_produced_total", labels, traffic.bytesProduced)
                    count("sluice_broker_bytes_fetched_total", labels, traffic.bytesFetched)
                }
            }

            // Series of relations that are gone.
            for (key, entry) in state.counters where !seen.contains(key) {
                entry.counter.destroy()
                state.counters[key] = nil
            }
            for (key, gauge) in state.gauges where !seen.contains(key) {
                gauge.destroy()
                state.gauges[key] = nil
            }
        }
    }
}
