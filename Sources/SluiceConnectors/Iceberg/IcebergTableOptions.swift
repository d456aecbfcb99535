import SluiceCore
import SluiceLakehouse

/// The `WITH` options of an Iceberg sink or source, with RisingWave's names.
struct IcebergTableOptions: Sendable {
    var namespace: [String]
    var table: String
    /// `catalog.uri`: a REST catalog (Polaris, ours over HTTP); nil: the built-in one, in process.
    var catalogURI: String?
    /// `catalog.type = 'storage'`: no catalog service, the tables' metadata found in the
    /// warehouse's folders (``IcebergStorageCatalog``).
    var usesStorageCatalog: Bool
    /// `warehouse.path`, or `catalog.name`: the warehouse a REST client names, and the built-in
    /// catalog's warehouse.
    var warehouse: String
    var credential: String?
    var scope: String?
    var oauth2ServerURI: String?
    var createTableIfNotExists: Bool
    /// `s3.*`: where the table's files are when they are on S3 (each may be absent).
    var s3Endpoint: String?
    var s3AccessKey: String?
    var s3SecretKey: String?
    var s3Region: String?
    var s3PathStyle: Bool?
    /// RisingWave's `enable_compaction` and `compaction_interval_sec`: after a commit, at most
    /// this often, the table's small files are compacted and its old snapshots expired.
    var compaction: Bool
    var compactionIntervalSeconds: Int
    var snapshotExpiration: Bool
    var snapshotMaxAgeMilliseconds: Int64?

    /// Every option an Iceberg sink or source takes.
    static let schema: [ConnectorOption] = [
        .text("database.name", required: true), .text("table.name", required: true), .choice("catalog.type", ["rest", "storage"]),
        .text("catalog.uri"), .text("catalog.name"), .text("warehouse.path"), .text("catalog.credential"), .text("catalog.scope"),
        .text("catalog.oauth2_server_uri"), .text("catalog.token"), .text("s3.endpoint"), .text("s3.access.key"), .text("s3.secret.key"),
        .text("s3.region"), .boolean("s3.path.style.access"), .boolean("create_table_if_not_exists"), .boolean("enable_compaction"),
        .integer("compaction_interval_sec", 1 ... .max), .boolean("enable_snapshot_expiration"),
        .integer("snapshot_expiration_max_age_millis", 1 ... .max),
    ]

    init(_ options: [String: String]) throws(SluiceError) {
        guard let database = options["database.name"], !database.isEmpty else {
            throw SluiceError(.invalidParameterValue, "an iceberg sink or source needs database.name, the table's namespace")
        }
        guard let table = options["table.name"], !table.isEmpty else {
            throw SluiceError(.invalidParameterValue, "an iceberg sink or source needs table.name")
        }
        namespace = database.split(separator: ".").map(String.init)
        self.table = table
        switch options["catalog.type"]?.lowercased() {
        case nil, "rest":
            usesStorageCatalog = false
        case "storage":
            usesStorageCatalog = true
            guard let path = options["warehouse.path"], path.hasPrefix("s3://") || path.hasPrefix("file://") || path.hasPrefix("/") else {
                throw SluiceError(
                    .invalidParameterValue, "catalog.type = 'storage' needs warehouse.path, the warehouse's folder",
                    hint: "For example warehouse.path = 's3://bucket/warehouse' or 'file:///data/warehouse'.")
            }
        case let other?:
            throw SluiceError(
                .featureNotSupported, "catalog.type '\(other)' is not supported",
                hint: "Use catalog.type = 'rest' with catalog.uri, 'storage' with warehouse.path, or leave both out for the built-in catalog.")
        }
        catalogURI = options["catalog.uri"].flatMap { $0.isEmpty ? nil : $0 }
        warehouse = options["warehouse.path"] ?? options["catalog.name"] ?? "default"
        if warehouse.isEmpty { warehouse = "default" }
        credential = options["catalog.credential"]
        scope = options["catalog.scope"]
        oauth2ServerURI = options["catalog.oauth2_server_uri"]
        createTableIfNotExists = try OptionValues.boolean(options, "create_table_if_not_exists") ?? true
        s3Endpoint = options["s3.endpoint"].flatMap { $0.isEmpty ? nil : $0 }
        s3AccessKey = options["s3.access.key"]
        s3SecretKey = options["s3.secret.key"]
        s3Region = options["s3.region"].flatMap { $0.isEmpty ? nil : $0 }
        s3PathStyle = try OptionValues.boolean(options, "s3.path.style.access")
        compaction = try OptionValues.boolean(options, "enable_compaction") ?? true
        snapshotExpiration = try OptionValues.boolean(options, "enable_snapshot_expiration") ?? true
        compactionIntervalSeconds = 300
        if let text = options["compaction_interval_sec"] {
            guard let seconds = Int(text), seconds > 0 else {
                throw SluiceError(.invalidParameterValue, "compaction_interval_sec must be a positive number of seconds, not '\(text)'")
            }
            compactionIntervalSeconds = seconds
        }
        if let text = options["snapshot_expiration_max_age_millis"] {
            guard let milliseconds = Int64(text), milliseconds > 0 else {
                throw SluiceError(.invalidParameterValue, "snapshot_expiration_max_age_millis must be a positive number, not '\(text)'")
            }
            snapshotMaxAgeMilliseconds = milliseconds
        }
    }

    var identifier: IcebergTableIdentifier { IcebergTableIdentifier(namespace: namespace, name: table) }
}

/// The Iceberg connector: a sink that writes a table, and a source that scans one.
package enum IcebergConnector {
    package static let entry = ConnectorEntry(
        name: "iceberg", sourceOptions: IcebergTableOptions.schema,
        makeSource: { description, context throws(SluiceError) in
            guard !description.isTable else {
                throw SluiceError(.featureNotSupported, "a table cannot be fed by the iceberg connector", hint: "Use CREATE SOURCE … WITH (connector = 'iceberg', …).")
            }
            return try IcebergSource(description, lakehouse: context.lakehouse, validate: context.validate)
        },
        sinkOptions: IcebergTableOptions.schema,
        makeSink: { description, context throws(SluiceError) in try IcebergSink(description, lakehouse: context.lakehouse, validate: context.validate) })
}
