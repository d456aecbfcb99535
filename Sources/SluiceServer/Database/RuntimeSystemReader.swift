import Synchronization
import SluiceBatch
import SluiceCore
import SluiceDataflow
import SluicePlanner

/// What the system tables, `/metrics` and the dashboard read of a running database
/// (``SystemReader``): the stream runtime's views and sinks, the connectors, the tables' journal
/// of checkpoints and the memory ledgers, each read anew at every use.
///
/// Statuses and errors may quote a connector's options (a URL with its password, a value the
/// outside system echoes): the catalog's secrets are masked in all of them.
struct RuntimeSystemReader: SystemReader {
    /// For the secrets to mask.
    let catalog: Catalog
    let streams: StreamCoordinator
    let tables: TableState
    let queryMemory: ServerQueryMemory

    var streamingJobs: [StreamingJobStatus] {
        let secrets = catalog.secretValues
        return streams.runtime.views.map { fragment in
            let statistics = fragment.statistics
            var status = StreamingJobStatus(
                viewID: fragment.id, upstreams: fragment.upstreams, rowCount: statistics.rowCount.load(ordering: .relaxed),
                rowsIn: statistics.rowsIn.load(ordering: .relaxed), errors: statistics.errors.load(ordering: .relaxed),
                lastError: statistics.lastError.map { SecretOptions.maskingSecrets(in: $0, values: secrets) }, plan: fragment.planText,
                stateBytes: statistics.stateBytes.load(ordering: .relaxed))
            status.backfillRows = statistics.backfillRows.load(ordering: .relaxed)
            status.rowsOut = statistics.rowsOut.load(ordering: .relaxed)
            status.backfilledRows = statistics.backfilledRows.load(ordering: .relaxed)
            status.createdAt = statistics.createdAt.load(ordering: .relaxed)
            return status
        }
    }

    var sources: [SourceStatus] {
        let secrets = catalog.secretValues
        let connectors = streams.connectors
        return connectors.all.sorted { $0.key < $1.key }.map { id, connector in
            let statistics = connector.statistics
            var errors = statistics.errors
            for index in errors.indices { errors[index].message = SecretOptions.maskingSecrets(in: errors[index].message, values: secrets) }
            return SourceStatus(
                relationID: id, rowsRead: statistics.rowsRead.load(ordering: .relaxed),
                rowsRejected: statistics.rowsRejected.load(ordering: .relaxed), rowsLate: statistics.rowsLate.load(ordering: .relaxed),
                rowsDeduplicated: connectors.deduplicator(for: id)?.rowsDeduplicated.load(ordering: .relaxed) ?? 0,
                bytesRead: statistics.bytesRead.load(ordering: .relaxed),
                lag: statistics.lag,
                status: SecretOptions.maskingSecrets(in: statistics.status, values: secrets), errors: errors)
        }
    }

    var sinks: [SinkStatus] {
        let secrets = catalog.secretValues
        return streams.runtime.views.compactMap { fragment in
            guard let committer = fragment.sinkCommitter else { return nil }
            let statistics = committer.statistics
            let lastCommit = statistics.lastCommitMicros.load(ordering: .relaxed)
            let lastError = (statistics.lastError ?? fragment.statistics.lastError).map { SecretOptions.maskingSecrets(in: $0, values: secrets) }
            return SinkStatus(
                relationID: fragment.id,
                state: statistics.lastError != nil ? "retrying" : (lastCommit == 0 ? "running" : "committed"),
                lastCommitEpoch: statistics.lastCommittedEpoch.load(ordering: .relaxed), lastCommitAt: lastCommit == 0 ? nil : lastCommit,
                commits: statistics.commits.load(ordering: .relaxed), files: statistics.filesCommitted.load(ordering: .relaxed),
                rows: statistics.rowsCommitted.load(ordering: .relaxed), rowsIn: statistics.rowsIn.load(ordering: .relaxed),
                pendingEpochs: committer.pending.count, commitFailures: statistics.commitFailures.load(ordering: .relaxed),
                lastError: lastError)
        }
    }

    var checkpoints: [CheckpointRecord] {
        tables.journal?.history ?? []
    }

    var memory: MemoryStatus {
        var status = streams.memoryStatus
        status.queryReservedBytes = queryMemory.inUse
        status.queryLimitBytes = queryMemory.limit
        return status
    }
}
