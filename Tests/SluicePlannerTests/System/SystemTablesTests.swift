import Foundation
import SluiceCore
import SluiceSQL
import Testing

@testable import SluicePlanner

/// The system tables: every table declared under `Sources/SluicePlanner/System/Tables/` is in
/// ``SystemTables/all`` (one table per file), names find tables as Postgres's and RisingWave's
/// search paths do, every table binds with rows as wide as its columns, and the runtime's tables
/// read the catalog's ``SystemReader``.
@Suite struct SystemTablesTests {
    static let tablesDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/SluicePlanner/System/Tables")

    /// The table types and names each file under `Tables/` declares, by file, read from its text.
    static func declaredTables() throws -> [String: (types: [String], names: [String])] {
        var declared: [String: (types: [String], names: [String])] = [:]
        let files = FileManager.default.enumerator(atPath: tablesDirectory.path)
        while let file = files?.nextObject() as? String {
            guard file.hasSuffix(".swift") else { continue }
            let text = try String(contentsOf: tablesDirectory.appendingPathComponent(file), encoding: .utf8)
            var types: [String] = []
            var names: [String] = []
            for line in text.split(separator: "\n") {
                let code = line.trimmingCharacters(in: .whitespaces)
                if code.hasPrefix("enum "), code.hasSuffix(": SystemTable {") {
                    types.append(String(code.dropFirst("enum ".count).prefix { $0 != ":" }))
                } else if code.hasPrefix("static let name = \"") {
                    names.append(String(code.dropFirst("static let name = \"".count).dropLast()))
                }
            }
            declared[file] = (types, names)
        }
        return declared
    }

    @Test func everyDeclaredTableIsListedOnce() throws {
        let declared = try Self.declaredTables()
        #expect(declared.count == SystemTables.all.count)
        for (file, tables) in declared {
            #expect(tables.types.count == 1 && tables.names.count == 1, "\(file) must declare one system table")
            // The build lists each table by its file's name.
            let fileName = String(file.split(separator: "/").last!.dropLast(".swift".count))
            #expect(tables.types == [fileName], "\(file) must declare the table its name says")
        }
        #expect(declared.values.flatMap { $0.types }.sorted() == SystemTables.all.map { String(describing: $0) }.sorted())
        #expect(declared.values.flatMap { $0.names }.sorted() == SystemTables.all.map { $0.name }.sorted())
    }

    @Test func aNameFindsOneTable() {
        var unqualified: Set<String> = []
        var qualified: Set<String> = []
        for table in SystemTables.all {
            #expect(qualified.insert("\(table.schema).\(table.name)").inserted, "\(table.name) is listed twice")
            if table.schema.isSearchedUnqualified {
                #expect(unqualified.insert(table.name).inserted, "\(table.name) names two tables without a schema")
            }
        }
    }

    @Test func namesResolveAsOnASearchPath() throws {
        func found(_ parts: String...) throws -> String? {
            try SystemCatalog.table(named: ObjectName(parts)).map { String(describing: $0) }
        }
        #expect(try found("pg_class") == "PgClass")
        #expect(try found("pg_catalog", "pg_class") == "PgClass")
        #expect(try found("dev", "pg_catalog", "pg_class") == "PgClass")
        #expect(try found("rw_fragments") == "RwFragments")
        #expect(try found("rw_catalog", "rw_fragments") == "RwFragments")
        #expect(try found("sluice_sinks") == "SluiceSinks")
        #expect(try found("information_schema", "tables") == "InformationSchemaTables")
        // Names of user relations.
        #expect(try found("tables") == nil)
        #expect(try found("public", "pg_class") == nil)
        #expect(try found("rw_nothing") == nil)
        #expect(try found("sluice_nothing") == nil)
        // A system schema without the table.
        let missing = [
            ["pg_catalog", "sluice_sinks"], ["pg_catalog", "tables"], ["pg_catalog", "rw_sources"], ["rw_catalog", "pg_class"],
            ["information_schema", "pg_class"], ["rw_catalog", "nothing"],
        ]
        for parts in missing {
            #expect(throws: SluiceError(.undefinedTable, "relation \"\(ObjectName(parts).description)\" does not exist")) {
                try SystemCatalog.table(named: ObjectName(parts))
            }
        }
    }

    @Test func everyTableBindsWithRowsOfItsWidth() throws {
        let catalog = Catalog()
        let table = RelationDefinition(
            id: catalog.allocateID(), name: "t", kind: .table,
            columns: [CatalogColumn(name: "id", type: .int32), CatalogColumn(name: "price", type: .decimal(precision: 10, scale: 2))], primaryKey: [0],
            definition: "CREATE TABLE t (id int PRIMARY KEY, price numeric(10,2))")
        try catalog.add(table)
        let session = SessionInfo(user: "root", database: "dev")
        for system in SystemTables.all {
            let parts: [String] = switch system.schema {
            case .pgCatalog: ["pg_catalog", system.name]
            case .informationSchema: ["information_schema", system.name]
            case .rwCatalog: ["rw_catalog", system.name]
            case .sluice: [system.name]
            }
            let bound = try SystemCatalog.relation(named: ObjectName(parts), catalog: catalog, session: session)
            #expect(bound?.scope.entries.map(\.name) == system.columns.map { $0.0 }, "\(system.name)")
        }
        let context = SystemTableContext(catalog: catalog, session: session)
        #expect(PgClass.rows(in: context).map { $0[1] } == [.string("t"), .string("t_pkey")])
        #expect(PgAttribute.rows(in: context).map { $0[3] } == [.int32(-1), .int32((10 << 16 | 2) + 4)])
        let index = try SystemCatalog.relation(named: ObjectName("pg_index"), catalog: catalog, session: session)
        #expect(index?.scope.entries.compactMap(\.vectorOID) == [22, 22, 30, 30])
    }

    /// A running system with one checkpoint and some memory in use.
    struct StubSystemReader: SystemReader {
        var streamingJobs: [StreamingJobStatus] { [] }
        var sources: [SourceStatus] { [] }
        var sinks: [SinkStatus] { [] }
        var checkpoints: [CheckpointRecord] {
            [CheckpointRecord(epoch: 7, startedAt: 1_000, bytesWritten: 2048, tables: 3, durationMicroseconds: 1500, error: nil)]
        }
        var memory: MemoryStatus {
            var memory = MemoryStatus()
            memory.limitBytes = 1 << 30
            memory.residentBytes = 4096
            return memory
        }
    }

    @Test func runtimeTablesReadTheCatalogsReader() {
        let catalog = Catalog()
        let context = SystemTableContext(catalog: catalog, session: SessionInfo(user: "root", database: "dev"))
        #expect(SluiceCheckpoints.rows(in: context).isEmpty)
        catalog.setSystemReader(StubSystemReader())
        #expect(SluiceCheckpoints.rows(in: context) == [
            [.int64(7), .timestamptz(1_000), .string("done"), .int32(3), .int64(2048), .float64(1.5), .string("state")]
        ])
        #expect(SluiceMemory.rows(in: context).first?.prefix(2) == [.int64(1 << 30), .int64(4096)])
        #expect(SluiceSources.rows(in: context).isEmpty && RwFragments.rows(in: context).isEmpty)
    }
}
