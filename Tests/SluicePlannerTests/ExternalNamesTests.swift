import SluiceCore
import SluicePlan
import SluiceSQL
import Testing

@testable import SluicePlanner

/// A front door's own names in FROM (Trino's `catalog.schema.table`): the binder asks the
/// session's ``ExternalRelations`` after WITH's names, and binds the catalog's relation it names
/// or a relation outside the catalog.
@Suite struct ExternalNamesTests {
    /// `door.default.<t>` is our `public.<t>`; `lake.<s>.<t>` an outside table of one column.
    final class DoorNames: ExternalRelations {
        func relation(function: String, arguments: [String]) throws(SluiceError) -> (id: Int, columns: [(name: String, type: DataType)])? { nil }

        func resolve(_ name: ObjectName) throws(SluiceError) -> ResolvedRelationName? {
            switch name.parts.first {
            case "door" where name.parts.count == 3: .catalog(ObjectName(["public", name.name]))
            case "lake" where name.parts.count == 3: .external(id: -5, columns: [("c", .int64)])
            default: nil
            }
        }
    }

    /// The result's column names and the ids of the tables its plan scans.
    private func bound(_ sql: String, _ catalog: Catalog) throws -> (names: [String], tables: [Int]) {
        var binder = Binder(catalog: catalog, session: SessionInfo(user: "root", database: "dev"))
        binder.externalRelations = DoorNames()
        guard case .query(let plan, let columns) = try binder.bindUnoptimized(try SQLParser.parse(sql)[0]) else { return ([], []) }
        func tables(_ value: Any) -> [Int] {
            if let scan = value as? TableScan { return [scan.tableID] }
            return Mirror(reflecting: value).children.flatMap { tables($0.value) }
        }
        return (columns.map(\.name), tables(plan))
    }

    @Test func threePartNamesResolveThroughTheDoor() throws {
        let catalog = Catalog()
        let table = RelationDefinition(
            id: catalog.allocateID(), name: "t", kind: .table, columns: [CatalogColumn(name: "x", type: .int32)], definition: "CREATE TABLE t (x int)")
        try catalog.add(table)
        #expect(try bound("SELECT x FROM door.default.t", catalog) == (["x"], [table.id]))
        #expect(try bound("SELECT c, y.c FROM lake.s.y", catalog) == (["c", "c"], [-5]))
        // WITH's names come first; names the door leaves alone are the catalog's.
        #expect(try bound("WITH t AS (SELECT 1 AS z) SELECT z FROM t", catalog) == (["z"], []))
        #expect(try bound("SELECT x FROM public.t", catalog) == (["x"], [table.id]))
        #expect(throws: SluiceError.self) { try bound("SELECT x FROM door.default.missing", catalog) }
    }
}
