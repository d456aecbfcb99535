import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

/// The system tables clients query (`pg_catalog.*`, `information_schema.*`, `rw_catalog.*` and
/// Sluice's own `sluice_*`), found by name among ``SystemTables/all`` and bound as the rows they
/// hold when the query is bound.
///
/// A name finds a table as Postgres's and RisingWave's search paths would: without a schema, a
/// table of `pg_catalog`, of `rw_catalog` or of Sluice's own; with `pg_catalog`,
/// `information_schema` or `rw_catalog`, a table of that schema, or the error "relation does not
/// exist". Any other schema names a user relation.
enum SystemCatalog {
    static func relation(named name: ObjectName, catalog: Catalog, session: SessionInfo) throws(SluiceError) -> BoundQuery? {
        guard let system = try table(named: name) else { return nil }
        let rows = system.rows(in: SystemTableContext(catalog: catalog, session: session))
        let types = system.columns.map(\.1)
        guard rows.allSatisfy({ $0.count == types.count }) else {
            throw SluiceError.internalError("system table \(name.name) has rows of the wrong width")
        }
        var scope = Scope(entries: system.columns.map { Scope.Entry(qualifier: name.name, name: $0.0, type: $0.1) })
        let vectorOIDs = system.vectorOIDs
        for index in scope.entries.indices {
            scope.entries[index].vectorOID = vectorOIDs[scope.entries[index].name]
        }
        if rows.isEmpty {
            // An empty VALUES is not allowed; filter a one-row NULL VALUES away instead.
            let nullRow = types.map { ScalarExpr.literal(.null, $0) }
            return BoundQuery(plan: .filter(input: .values(rows: [nullRow], types: types), predicate: .literal(.bool(false), .boolean)), scope: scope)
        }
        let plan: BatchPlan = .values(rows: rows.map { row in zip(row, types).map { ScalarExpr.literal($0.0, $0.1) } }, types: types)
        return BoundQuery(plan: plan, scope: scope)
    }

    /// The system table `name` names; nil when it names none (a user relation, then). Fails
    /// with 42P01 when `name` is in a system schema that has no table of that name.
    static func table(named name: ObjectName) throws(SluiceError) -> (any SystemTable.Type)? {
        guard let qualifier = name.qualifier.last else {
            return SystemTables.all.first { $0.schema.isSearchedUnqualified && $0.name == name.name }
        }
        guard let schema = SystemSchema(qualifier: qualifier) else { return nil }
        guard let table = SystemTables.all.first(where: { $0.schema == schema && $0.name == name.name }) else {
            throw SluiceError(.undefinedTable, "relation \"\(name.description)\" does not exist")
        }
        return table
    }
}
