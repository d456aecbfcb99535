import SluiceCore
import SluiceDataflow
import SluicePostgresClient

/// The options of `CREATE SOURCE … WITH (connector = 'postgres-cdc', …)`, RisingWave's, and
/// of a table made `FROM` it (the binder adds `table.name` and `schema.name`).
struct PostgresCDCOptions: Sendable {
    var settings: PostgresConnectionSettings
    var schema: String
    /// The upstream table (a table's; nil for the shared source).
    var table: String?
    var publication: String
    var createsPublication: Bool
    /// The replication slot's name: `slot.name`, else one made from the relation's id.
    var slot: String
    /// Whether a new table first copies the upstream rows (`snapshot`, default true).
    var takesSnapshot: Bool

    static let schema: [ConnectorOption] = [
        .text("hostname", required: true), .integer("port", 1 ... 65_535), .text("username", required: true), .text("password"),
        .text("database.name", required: true), .text("schema.name"), .text("table.name"), .text("slot.name"),
        .text("publication.name"), .boolean("publication.create.enable"),
        .choice("ssl.mode", ["disabled", "disable", "preferred", "prefer", "required", "require", "verify-ca", "verify-full"]),
        .text("ssl.root.cert"), .boolean("snapshot"), .integer("snapshot.batch_size", 1 ... .max), .integer("snapshot.interval", 1 ... .max),
        .integer("backfill.parallelism", 0 ... 256), .prefix("debezium."),
    ]

    init(_ description: SourceDescription) throws(SluiceError) {
        let options = description.options
        settings = PostgresConnectionSettings(
            host: options["hostname"] ?? "", port: options["port"] ?? "5432", database: options["database.name"] ?? "",
            user: options["username"] ?? "", password: options["password"], sslMode: options["ssl.mode"].map(PostgresSinkOptions.libpqSSLMode))
        if let root = options["ssl.root.cert"] { settings.extra.append(("sslrootcert", root)) }
        schema = options["schema.name"] ?? "public"
        table = description.isTable ? options["table.name"] : nil
        publication = options["publication.name"] ?? "rw_publication"
        createsPublication = try OptionValues.boolean(options, "publication.create.enable") ?? true
        takesSnapshot = try OptionValues.boolean(options, "snapshot") ?? true
        // One slot per table: each table's stream has its own confirmed position.
        let base = options["slot.name"] ?? "sluice_cdc"
        slot = description.isTable ? "\(base)_\(description.id)" : base
        guard slot.utf8.count <= 63, slot.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") }) else {
            throw SluiceError(
                .invalidParameterValue, "slot.name '\(base)' is not a replication slot name PostgreSQL takes",
                hint: "Use lower-case letters, digits and underscores, at most 50 characters (a table's id is added).")
        }
    }

    /// The upstream table, quoted.
    var quotedTable: String {
        "\(PostgresConnection.quoted(schema)).\(PostgresConnection.quoted(table ?? ""))"
    }
}

/// PostgreSQL's types (by `pg_type.typname`) as Sluice's, for a table that takes the upstream
/// columns (`(*)`). Anything without a type of its own here is read as its text.
enum PostgresTypeMapping {
    static func dataType(typeName: String, elementTypeName: String?) -> DataType {
        if let element = elementTypeName, typeName.hasPrefix("_") {
            return .list(dataType(typeName: element, elementTypeName: nil))
        }
        switch typeName {
        case "bool": return .boolean
        case "int2": return .int16
        case "int4", "oid": return .int32
        case "int8": return .int64
        case "float4": return .float32
        case "float8": return .float64
        case "numeric": return .decimal(precision: nil, scale: nil)
        case "date": return .date
        case "time": return .time
        case "timestamp": return .timestamp
        case "timestamptz": return .timestamptz
        case "interval": return .interval
        case "bytea": return .bytea
        case "json", "jsonb": return .jsonb
        default: return .varchar
        }
    }
}
