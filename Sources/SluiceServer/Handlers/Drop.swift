import SluiceCore
import SluicePGWire
import SluicePlanner

/// DROP TABLE, VIEW, MATERIALIZED VIEW, SOURCE and SINK: each relation (dependents first) leaves
/// the runtime, its connector stops, and it leaves the catalog and the stores.
enum DropHandler {
    /// Drops `relations`, dependents first; the tag names the kind of the last, the one named.
    static func run(_ relations: [RelationDefinition], in session: SQLSession) throws(SluiceError) -> PGStatementResult {
        for relation in relations { try apply(relation, to: session.database) }
        let kind = relations.last!.kind.rawValue.uppercased().replacing(" ", with: "_")
        return PGStatementResult(commandTag: "DROP_\(kind)")
    }

    /// Drops `relation` alone: its stream job, its connector and watermark, its catalog entry,
    /// store and rows; a table's drop is logged, so that a replay of the log skips its rows.
    static func apply(_ relation: RelationDefinition, to database: Database) throws(SluiceError) {
        let streams = database.streams
        if relation.kind == .materializedView || relation.kind == .sink { streams.runtime.dropView(id: relation.id) }
        if let connector = streams.connectors.remove(relation.id) { connector.stop() }
        streams.connectors.setWatermarkFilter(nil, for: relation.id)
        database.catalog.remove(id: relation.id)
        database.tables.stores.remove(id: relation.id)
        streams.runtime.removeRows(for: relation.id)
        try database.saveCatalog()
        if relation.kind == .table, let journal = database.tables.journal {
            // Its id may name a new table after a restart: replay must not apply its rows there.
            try journal.makeDurable(upTo: try journal.append(.dropped(table: relation.id)))
        }
    }

    /// A view or sink whose backfill could not read what it starts from (a source's history:
    /// a topic gone, a broker down) is dropped again, and its CREATE fails with the reason.
    static func dropIfBackfillFailed(_ relation: RelationDefinition, in database: Database) throws(SluiceError) {
        guard let failure = database.streams.runtime.backfillFailure(view: relation.id) else { return }
        let made = database.catalog.relation(id: relation.id) ?? relation
        try? apply(made, to: database)
        throw failure
    }
}
