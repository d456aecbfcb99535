import SluiceCore

/// A system table clients query: `pg_catalog.pg_class`, `information_schema.columns`,
/// `rw_catalog.rw_fragments`, `sluice_sources`, …, as RisingWave's `system_catalog` and DuckDB's
/// `function/table/system` declare theirs.
///
/// Each is a type of its own in a file of its own under `Tables/<schema>/`, listed once in
/// ``SystemTables/all``; ``SystemCatalog`` finds it by name and binds it as the rows it reads at
/// that moment. Only the columns that `psql`, drivers and SQLAlchemy read are present; `oid`
/// columns are `integer` (our relation ids start at 16384, inside the positive range).
protocol SystemTable: Sendable {
    /// The schema the table belongs to, which says how its name resolves.
    static var schema: SystemSchema { get }
    /// The table's name, without its schema.
    static var name: String { get }
    /// The columns, in order, with their types.
    static var columns: [(String, DataType)] { get }
    /// The columns of Postgres's vector types (`int2vector` 22, `oidvector` 30), by name, with the
    /// type each is sent as (``Scope/Entry/vectorOID``). Default: none.
    static var vectorOIDs: [String: Int32] { get }
    /// The rows now, as `context`'s session may see them: a value for each column in each row.
    static func rows(in context: SystemTableContext) -> [[Value]]
}

extension SystemTable {
    static var vectorOIDs: [String: Int32] { [:] }
}

/// Where a system table belongs, and so how a query's name finds it.
enum SystemSchema: Sendable, Equatable {
    /// `pg_catalog`: found with its schema or without one, as Postgres keeps it first on every
    /// search path.
    case pgCatalog
    /// `information_schema`: found with its schema only.
    case informationSchema
    /// RisingWave's `rw_catalog`: found with its schema or without one, as in RisingWave.
    case rwCatalog
    /// Sluice's own tables (`sluice_*`): no schema; found by their bare name only.
    case sluice

    /// The system schema a qualifier names (nil: none, so a user schema).
    init?(qualifier: String) {
        switch qualifier {
        case "pg_catalog": self = .pgCatalog
        case "information_schema": self = .informationSchema
        case "rw_catalog": self = .rwCatalog
        default: return nil
        }
    }

    /// Whether a table of the schema is found by its name without a schema.
    var isSearchedUnqualified: Bool {
        switch self {
        case .pgCatalog, .rwCatalog, .sluice: true
        case .informationSchema: false
        }
    }
}
