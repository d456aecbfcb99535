import SluiceCore

/// `sluice_sinks`: a row per running sink (of those the session's user may see), with its target,
/// state (`running`, `committed`, `retrying`), last commit, counts of commits, files and rows,
/// epochs pending, commit failures and last error (secrets masked). Operators and the end-to-end
/// tests watch delivery with it.
enum SluiceSinks: SystemTable {
    static let schema = SystemSchema.sluice
    static let name = "sluice_sinks"
    static let columns: [(String, DataType)] = [
        ("id", .int32), ("name", .varchar), ("connector", .varchar), ("target", .varchar), ("state", .varchar),
        ("last_commit_epoch", .int64), ("last_commit_at", .timestamptz), ("commits", .int64), ("files", .int64),
        ("rows", .int64), ("rows_in", .int64), ("pending_epochs", .int32), ("commit_failures", .int64), ("last_error", .varchar),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        let visibleIDs = context.visibleRelationIDs
        return context.reader.sinks.compactMap { status in
            guard visibleIDs.contains(status.relationID), let relation = context.catalog.relation(id: status.relationID) else { return nil }
            let options = relation.connector?.options ?? [:]
            let target = [options["database.name"], options["table.name"]].compactMap { $0 }.joined(separator: ".")
            return [
                .int32(Int32(relation.id)), .string(relation.name), .string(relation.connector?.connector ?? ""), .string(target),
                .string(status.state), .int64(Int64(status.lastCommitEpoch)), status.lastCommitAt.map { .timestamptz($0) } ?? .null,
                .int64(Int64(status.commits)), .int64(Int64(status.files)), .int64(Int64(status.rows)), .int64(Int64(status.rowsIn)),
                .int32(Int32(status.pendingEpochs)), .int64(Int64(status.commitFailures)), status.lastError.map { .string($0) } ?? .null,
            ]
        }
    }
}
