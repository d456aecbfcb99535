import SluiceBroker
import SluiceCore
import SluiceHTTP
import SluicePGWire
import SluicePlanner
import Synchronization

/// Prometheus `/metrics`, in the text exposition format (``PrometheusExposition``).
///
/// The engine already counts what matters where it happens: connectors their rows, fragments
/// their rows and state, sinks their commits, the checkpoint writer its checkpoints, the broker
/// its traffic. A scrape reads those counts as they are, so the data path keeps one set of
/// counters and pays nothing for metrics; only the two duration histograms (checkpoints and
/// barriers) are kept here, from the records each scrape has not seen yet.
package final class ServerMetrics: Sendable {
    let database: Database
    let broker: KafkaBroker?
    let recoverySeconds: Double
    private let histograms = Mutex(Histograms())
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

    private struct Histograms {
        var checkpointDurations = DurationHistogram()
        var lastCheckpointEpoch: UInt64 = 0
        var barrierLatencies = DurationHistogram()
        var lastBarrierEpoch: UInt64 = 0
    }

    /// - Parameter recoverySeconds: how long the start's recovery took.
    package init(database: Database, broker: KafkaBroker?, recoverySeconds: Double) {
        self.database = database
        self.broker = broker
        self.recoverySeconds = recoverySeconds
    }

    /// The text exposition format, every series as it is now.
    package func exposition() -> [UInt8] {
        let catalog = database.catalog
        var text = PrometheusExposition()
        text.gauge("sluice_recovery_seconds", [], recoverySeconds)
        for source in catalog.systemReader.sources {
            guard let name = catalog.relation(id: source.relationID)?.name else { continue }
            let labels = [("source", name)]
            text.counter("sluice_source_rows_total", labels, source.rowsRead)
            text.counter("sluice_source_rows_rejected_total", labels, source.rowsRejected)
            text.counter("sluice_source_rows_late_total", labels, source.rowsLate)
            text.counter("sluice_source_rows_deduplicated_total", labels, source.rowsDeduplicated)
            text.counter("sluice_source_bytes_total", labels, source.bytesRead)
            if let lag = source.lag { text.gauge("sluice_source_lag_messages", labels, Double(lag)) }
        }
        for job in catalog.systemReader.streamingJobs {
            guard let relation = catalog.relation(id: job.viewID) else { continue }
            let labels = [(relation.kind == .sink ? "sink" : "view", relation.name)]
            let prefix = relation.kind == .sink ? "sluice_sink_fragment" : "sluice_view"
            text.counter("\(prefix)_rows_in_total", labels, job.rowsIn)
            if relation.kind != .sink { text.counter("sluice_view_rows_out_total", labels, job.rowsOut) }
            text.counter("\(prefix)_errors_total", labels, job.errors)
            text.gauge("\(prefix)_state_bytes", labels, Double(job.stateBytes))
            if relation.kind != .sink { text.gauge("sluice_view_rows", labels, Double(job.rowCount)) }
            text.gauge("\(prefix)_backfill_rows_remaining", labels, Double(job.backfillRows - job.backfilledRows))
        }
        for sink in catalog.systemReader.sinks {
            guard let name = catalog.relation(id: sink.relationID)?.name else { continue }
            let labels = [("sink", name)]
            text.counter("sluice_sink_rows_in_total", labels, sink.rowsIn)
            text.counter("sluice_sink_rows_committed_total", labels, sink.rows)
            text.counter("sluice_sink_files_committed_total", labels, sink.files)
            text.counter("sluice_sink_commits_total", labels, sink.commits)
            text.counter("sluice_sink_commit_failures_total", labels, sink.commitFailures)
            text.gauge("sluice_sink_pending_epochs", labels, Double(sink.pendingEpochs))
            text.gauge("sluice_sink_last_commit_epoch", labels, Double(sink.lastCommitEpoch))
        }

        let checkpoints = catalog.systemReader.checkpoints
        // Barriers: from injection until every view and sink has passed them.
        let latencies = database.streams.runtime.barrierLatencies
        histograms.withLock { histograms in
            for record in checkpoints where record.epoch > histograms.lastCheckpointEpoch && record.error == nil {
                histograms.checkpointDurations.record(nanoseconds: record.durationMicroseconds * 1000)
            }
            histograms.lastCheckpointEpoch = max(histograms.lastCheckpointEpoch, checkpoints.map(\.epoch).max() ?? 0)
            for latency in latencies where latency.epoch > histograms.lastBarrierEpoch {
                histograms.barrierLatencies.record(nanoseconds: latency.nanoseconds)
            }
            histograms.lastBarrierEpoch = max(histograms.lastBarrierEpoch, latencies.last?.epoch ?? 0)
            text.histogram("sluice_checkpoint_duration_seconds", histograms.checkpointDurations)
            text.histogram("sluice_barrier_latency_seconds", histograms.barrierLatencies)
        }
        if let last = checkpoints.last(where: { $0.error == nil }) {
            text.gauge("sluice_checkpoint_last_bytes", [], Double(last.bytesWritten))
            text.gauge("sluice_checkpoint_last_epoch", [], Double(last.epoch))
        }
        text.gauge("sluice_checkpoints_failed_recent", [], Double(checkpoints.filter { $0.error != nil }.count))

        let memory = catalog.systemReader.memory
        text.gauge("sluice_memory_limit_bytes", [], Double(memory.limitBytes))
        text.gauge("sluice_state_resident_bytes", [], Double(memory.residentBytes))
        text.gauge("sluice_state_spilled_bytes", [], Double(memory.spilledBytes))
        text.gauge("sluice_process_resident_bytes", [], Double(memory.processBytes))
        text.gauge("sluice_query_memory_bytes", [], Double(memory.queryReservedBytes))
        text.gauge("sluice_query_memory_limit_bytes", [], Double(memory.queryLimitBytes))
        for (owner, bytes) in memory.byOwner { text.gauge("sluice_memory_bytes", [("owner", owner)], Double(bytes)) }

        // Refused logins on every port: SQL, Kafka (SASL) and HTTP.
        let failedLogins = (sqlServer.withLock { $0 }?.failedLogins ?? 0) + (broker?.failedLogins ?? 0)
            + httpAccess.withLock { $0.reduce(0) { $0 + $1.failedLogins } }
        text.counter("sluice_failed_logins_total", [], failedLogins)
        if let broker {
            for (topic, traffic) in broker.traffic.snapshot {
                let labels = [("topic", topic)]
                text.counter("sluice_broker_records_produced_total", labels, traffic.recordsProduced)
                text.counter("sluice_broker_bytes_produced_total", labels, traffic.bytesProduced)
                text.counter("sluice_broker_bytes_fetched_total", labels, traffic.bytesFetched)
            }
        }
        return text.bytes
    }
}
