import SluiceCore
import SluiceDataflow
import SluiceLakehouse
import SluicePlanner
import SluiceSQL

/// Trino's catalogs over ours: `sluice` is the whole catalog (its schemas are ours), `hive` the
/// file sources (Trino's `default` schema is our `public`), `iceberg` the tables of the built-in
/// Iceberg REST catalog (a schema is a namespace of one of its warehouses), and each warehouse
/// under its own name too.
struct TrinoCatalogs: Sendable {
    /// What a Trino catalog is.
    enum Kind: Equatable, Sendable {
        case sluice
        case hive
        /// The built-in catalog's tables: of one warehouse, or of whichever has the schema.
        case iceberg(warehouse: String?)
    }

    let catalog: Catalog
    let store: IcebergCatalogStore?
    /// `--trino-iceberg-warehouse`: the warehouse the `iceberg` catalog reads; nil: all.
    let icebergWarehouse: String?

    /// The connectors whose sources are files: the `hive` catalog's tables.
    static let fileConnectors: Set<String> = ["posix_fs", "s3", "s3_v2", "gcs", "azblob"]

    /// The catalogs' names, sorted, as SHOW CATALOGS lists them.
    var names: [String] {
        var names: Set<String> = ["sluice", "hive"]
        if store != nil {
            names.insert("iceberg")
            for warehouse in store?.warehouseNames() ?? [] { names.insert(warehouse) }
        }
        return names.sorted()
    }

    /// The catalog named `name`.
    func kind(of name: String) throws(SluiceError) -> Kind {
        switch name {
        case "sluice": return .sluice
        case "hive": return .hive
        case "iceberg" where store != nil: return .iceberg(warehouse: icebergWarehouse)
        default:
            if let store, store.warehouseNames().contains(name) { return .iceberg(warehouse: name) }
            throw SluiceError(.invalidCatalogName, "Catalog '\(name)' not found")
        }
    }

    /// The schemas of a catalog, sorted.
    func schemas(of name: String) throws(SluiceError) -> [String] {
        switch try kind(of: name) {
        case .sluice:
            return (Array(catalog.schemas.keys) + ["information_schema"]).sorted()
        case .hive:
            return catalog.schemas.keys.map { $0 == "public" ? "default" : $0 }.sorted()
        case .iceberg(let warehouse):
            guard let store else { return [] }
            var schemas: Set<String> = []
            for name in warehouse.map({ [$0] }) ?? store.warehouseNames() {
                for namespace in try store.listNamespaces(warehouse: name) { schemas.insert(namespace.joined(separator: ".")) }
            }
            return schemas.sorted()
        }
    }

    /// The tables of a catalog's schema, sorted.
    func tables(of name: String, schema: String) throws(SluiceError) -> [String] {
        switch try kind(of: name) {
        case .sluice:
            return catalog.relations.filter { $0.schema == schema && $0.kind != .sink }.map(\.name).sorted()
        case .hive:
            let ours = schema == "default" ? "public" : schema
            return catalog.relations.filter { $0.schema == ours && Self.isFileSource($0) }.map(\.name).sorted()
        case .iceberg(let warehouse):
            guard let store else { return [] }
            let found = try self.warehouse(of: schema, in: warehouse)
            return try store.listTables(warehouse: found, namespace: schema.split(separator: ".").map(String.init)).sorted()
        }
    }

    static func isFileSource(_ relation: RelationDefinition) -> Bool {
        relation.kind == .source && fileConnectors.contains(relation.connector?.connector ?? "")
    }

    /// The warehouse holding `schema`: the one given, else the only one that has it.
    func warehouse(of schema: String, in given: String?) throws(SluiceError) -> String {
        guard let store else { throw SluiceError(.invalidCatalogName, "Catalog 'iceberg' not found") }
        let namespace = schema.split(separator: ".").map(String.init)
        if let given {
            guard try store.namespaceExists(warehouse: given, namespace) else {
                throw SluiceError(.invalidSchemaName, "Schema '\(schema)' does not exist")
            }
            return given
        }
        var holders: [String] = []
        for name in store.warehouseNames().sorted() where try store.namespaceExists(warehouse: name, namespace) { holders.append(name) }
        switch holders.count {
        case 0: throw SluiceError(.invalidSchemaName, "Schema '\(schema)' does not exist")
        case 1: return holders[0]
        default:
            throw SluiceError(
                .syntaxErrorOrAccessRuleViolation, "Schema '\(schema)' is in more than one warehouse: \(holders.joined(separator: ", "))",
                hint: "Name the warehouse as the catalog (\(holders[0]).\(schema)…), or start the server with --trino-iceberg-warehouse.")
        }
    }

    /// What a name in FROM means with the session's catalog and schema: nil for a name the
    /// `sluice` catalog leaves to ours as it is.
    func resolve(_ name: ObjectName, session: TrinoSessionNames, scans: FileScans) throws(SluiceError) -> ResolvedRelationName? {
        let parts = name.parts
        guard !parts.isEmpty, parts.count <= 3 else {
            throw SluiceError(.syntaxError, "Too many dots in table name: \(name.description)")
        }
        let catalogName = parts.count == 3 ? parts[0] : (session.catalog ?? "sluice")
        let schema = parts.count >= 2 ? parts[parts.count - 2] : (session.schema ?? (catalogName == "hive" ? "default" : "public"))
        let table = parts[parts.count - 1]
        switch try kind(of: catalogName) {
        case .sluice:
            // A lone name is ours as it is: the search path, then the system relations.
            if parts.count == 1, session.schema == nil || session.schema == "public" { return nil }
            return .catalog(ObjectName([schema, table]))
        case .hive:
            let ours = schema == "default" ? "public" : schema
            if let relation = catalog.relation(named: table, schema: ours), !Self.isFileSource(relation) {
                throw SluiceError(.undefinedTable, "Table 'hive.\(schema).\(table)' does not exist", hint: "It is not a file source; read it as sluice.\(ours).\(table).")
            }
            return .catalog(ObjectName([ours, table]))
        case .iceberg(let given):
            let warehouse = try self.warehouse(of: schema, in: given)
            let namespace = schema.split(separator: ".").map(String.init)
            guard let store, try store.tableExists(warehouse: warehouse, IcebergTableIdentifier(namespace: namespace, name: table)) else {
                throw SluiceError(.undefinedTable, "Table '\(catalogName).\(schema).\(table)' does not exist")
            }
            let found = try scans.relation(
                key: ["iceberg", warehouse, schema, table],
                description: SourceDescription(
                    id: 0, name: table, columns: [], primaryKey: [],
                    options: ["connector": "iceberg", "database.name": schema, "table.name": table, "warehouse.path": warehouse],
                    format: "PLAIN", encode: "PARQUET", formatOptions: [:], isTable: false))
            return .external(id: found.id, columns: found.columns)
        }
    }

    /// The columns of the table `name` names.
    func columns(of name: ObjectName, session: TrinoSessionNames, scans: FileScans) throws(SluiceError) -> [(name: String, type: DataType)] {
        let resolved = try resolve(name, session: session, scans: scans)
        switch resolved {
        case .external(_, let columns):
            return columns
        case .catalog(let ours):
            guard let relation = catalog.relation(named: ours.name, schema: ours.qualifier.last ?? "public") else {
                throw SluiceError(.undefinedTable, "Table '\(name.description)' does not exist")
            }
            return relation.columns.map { ($0.name, $0.type) }
        case nil:
            guard let relation = catalog.relation(named: name.name, schema: "public") else {
                throw SluiceError(.undefinedTable, "Table '\(name.description)' does not exist")
            }
            return relation.columns.map { ($0.name, $0.type) }
        }
    }
}

/// The catalog and schema a Trino session reads names in (`X-Trino-Catalog`, `X-Trino-Schema`).
struct TrinoSessionNames: Sendable, Equatable {
    var catalog: String?
    var schema: String?
}
