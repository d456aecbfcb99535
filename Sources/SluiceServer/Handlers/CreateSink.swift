import Foundation
import SluiceCore
import SluiceDataflow
import SluiceExpr
import SluicePGWire
import SluicePlan
import SluicePlanner
import SluiceState

/// CREATE SINK: the connector checks its options and target, then the sink's catalog entry and
/// its stream job, started from the current rows of what it reads. The statement completes once
/// the sink has taken them.
enum CreateSinkHandler {
    /// Creates sink `relation`, fed by `plan`.
    static func run(_ relation: RelationDefinition, plan: StreamPlan, in session: SQLSession) async throws(SluiceError) -> PGStatementResult {
        let database = session.database
        // The statement completes once the sink has taken the rows it starts from.
        await database.streams.runtime.waitForCommit(try apply(relation, plan: plan, to: database))
        try DropHandler.dropIfBackfillFailed(relation, in: database)
        return PGStatementResult(commandTag: "CREATE_SINK")
    }

    /// Registers sink `relation` and starts feeding it by `plan`, from the current rows of what
    /// it reads, or from `restoring` (a checkpoint's state: its epochs prepared and not yet
    /// committed, which commit at the first durable checkpoint). With `validate` (at CREATE)
    /// the connector checks its options and target first. Returns the epoch after which the sink
    /// has taken those rows.
    static func apply(
        _ relation: RelationDefinition, plan: StreamPlan, to database: Database, restoring: RestoredTables? = nil, validate: Bool = true
    ) throws(SluiceError) -> UInt64 {
        var relation = relation
        if relation.sinkID == nil { relation.sinkID = UUID().uuidString.lowercased() }
        let sink = try database.makeSink(SinkDescription(relation), validate)
        let interval = relation.connector?.options["commit_checkpoint_interval"].flatMap { Int($0) } ?? sink.defaultCommitInterval
        let committer = SinkCommitter(sink: sink, interval: interval, statistics: SinkStatistics())
        do {
            try database.catalog.add(relation)
        } catch {
            sink.close()
            throw error
        }
        let runtime = database.streams.runtime
        do {
            let epoch = try runtime.createView(
                id: relation.id, name: relation.name, plan: plan, context: EvaluationContext(timeZones: database.timeZones), restoring: restoring,
                sink: committer)
            try database.saveCatalog()
            return epoch
        } catch {
            runtime.dropView(id: relation.id)
            database.catalog.remove(id: relation.id)
            committer.close()
            throw error
        }
    }
}

extension SinkDescription {
    /// What the connector of sink `relation` is told: its columns, key, options and format.
    init(_ relation: RelationDefinition) {
        self.init(
            id: relation.id, name: relation.name, sinkID: relation.sinkID ?? "", columns: relation.columns.map { ($0.name, $0.type) },
            appendOnly: relation.appendOnly ?? true, primaryKey: relation.primaryKey, options: relation.connector?.options ?? [:],
            format: relation.connector?.format ?? "", encode: relation.connector?.encode ?? "", formatOptions: relation.connector?.formatOptions ?? [:])
    }
}
