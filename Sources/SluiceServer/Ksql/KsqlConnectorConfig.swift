import SluiceCore
import SluiceSQL

/// The Kafka Connect classes a ksqlDB `CREATE SOURCE|SINK CONNECTOR` may name, and what Sluice
/// makes of each: Debezium's Postgres source becomes a `postgres-cdc` source with a table and a
/// `FORMAT DEBEZIUM` Kafka sink per captured table; Confluent's JDBC sink a Kafka reader of each
/// topic and a `jdbc` sink. Every other class is refused by name.
enum KsqlConnectorClass {
    static let debeziumPostgres = "io.debezium.connector.postgresql.PostgresConnector"
    static let jdbcSink = "io.confluent.connect.jdbc.JdbcSinkConnector"
    static let jdbcSource = "io.confluent.connect.jdbc.JdbcSourceConnector"
    static let jsonConverter = "org.apache.kafka.connect.json.JsonConverter"
    static let stringConverter = "org.apache.kafka.connect.storage.StringConverter"

    /// Why `className` is not carried out, with what Sluice offers instead.
    static func refusal(_ className: String, isSource: Bool) -> SluiceError {
        let lowered = className.lowercased()
        if lowered.contains("mongo") {
            return SluiceError(
                .featureNotSupported, "Sluice has no MongoDB connector: \(className) is not supported",
                hint: "Write MongoDB's change events to a topic with a Debezium MongoDB connector elsewhere and read them with FORMAT DEBEZIUM_MONGO ENCODE JSON on Sluice's SQL port.")
        }
        if className == jdbcSource {
            return SluiceError(
                .featureNotSupported, "the JDBC source connector is not supported by Sluice",
                hint: "Capture a PostgreSQL table with 'connector.class' = '\(debeziumPostgres)', or with a postgres-cdc source on Sluice's SQL port.")
        }
        if className == jdbcSink && isSource || className == debeziumPostgres && !isSource {
            return SluiceError(.invalidParameterValue, "\(className) is a \(isSource ? "sink" : "source") connector; write CREATE \(isSource ? "SINK" : "SOURCE") CONNECTOR")
        }
        return SluiceError(
            .featureNotSupported, "connector class \(className) is not supported by Sluice",
            hint: "Sluice carries out \(debeziumPostgres) (source) and \(jdbcSink) (sink) over its own connectors.")
    }
}

/// A connector's properties as given, read one key at a time; what is never read is an unknown
/// property, taken with a warning.
struct KsqlConnectorProperties {
    private(set) var values: [String: String] = [:]
    private(set) var order: [String] = []
    private var read: Set<String> = ["connector.class", "name", "tasks.max"]
    var warnings: [String] = []

    init(_ options: [WithOption]) {
        for option in options {
            if values[option.key] == nil { order.append(option.key) }
            values[option.key] = option.value.text
        }
    }

    mutating func take(_ key: String) -> String? {
        read.insert(key)
        guard let value = values[key]?.trimmed(of: " "), !value.isEmpty else { return nil }
        return value
    }

    mutating func require(_ key: String) throws(SluiceError) -> String {
        guard let value = take(key) else { throw SluiceError(.invalidParameterValue, "Missing required configuration \"\(key)\" which has no default value.") }
        return value
    }

    mutating func boolean(_ key: String, default value: Bool) throws(SluiceError) -> Bool {
        guard let text = take(key) else { return value }
        switch text.lowercased() {
        case "true": return true
        case "false": return false
        default: throw SluiceError(.invalidParameterValue, "Invalid value \(text) for configuration \(key): Expected value to be either true or false")
        }
    }

    /// A property whose any value changes what the connector does, which Sluice does not do.
    mutating func refuse(_ key: String, _ why: String) throws(SluiceError) {
        if take(key) != nil { throw SluiceError(.featureNotSupported, "\(key) is not supported: \(why)") }
    }

    mutating func refusePrefix(_ prefix: String, _ why: String) throws(SluiceError) {
        if let key = order.first(where: { $0.hasPrefix(prefix) }) { throw SluiceError(.featureNotSupported, "\(key) is not supported: \(why)") }
    }

    /// `key.converter` and `value.converter` (JSON; the key may be a string), checked; whether
    /// `value.converter.schemas.enable` is true (Kafka Connect's `{schema, payload}` envelope).
    mutating func converters() throws(SluiceError) -> Bool {
        var valueSchemas = false
        for side in ["key", "value"] {
            if let converter = take("\(side).converter"), converter != KsqlConnectorClass.jsonConverter,
                side == "value" || converter != KsqlConnectorClass.stringConverter
            {
                throw SluiceError(
                    .featureNotSupported, "\(side).converter \(converter) is not supported",
                    hint: "Sluice's connectors write and read JSON: \(KsqlConnectorClass.jsonConverter).")
            }
            let schemas = try boolean("\(side).converter.schemas.enable", default: false)
            if side == "value" { valueSchemas = schemas }
        }
        return valueSchemas
    }

    /// The keys given and never read: taken, each named in a warning.
    mutating func warnUnread() {
        for key in order where !read.contains(key) {
            warnings.append("\(key) is not carried out by Sluice and was ignored")
        }
    }

    /// The properties as Kafka Connect answers them, passwords hidden.
    var json: JSONDocument {
        .object(order.map { key in
            JSONDocument.Member(key, .string(key.hasSuffix("password") ? "********" : values[key] ?? ""))
        })
    }
}

/// Debezium's PostgreSQL source connector's configuration, as Sluice carries it out.
struct DebeziumPostgresConfig {
    var host: String
    var port: String
    var user: String
    var password: String?
    var database: String
    /// `topic.prefix` (or the older `database.server.name`): topics are `<prefix>.<schema>.<table>`.
    var prefix: String
    var tables: [(schema: String, table: String)]
    var slot: String?
    var publication: String
    var createsPublication: Bool
    var takesSnapshot: Bool
    var sslMode: String?

    init(_ properties: inout KsqlConnectorProperties) throws(SluiceError) {
        host = try properties.require("database.hostname")
        port = properties.take("database.port") ?? "5432"
        user = try properties.require("database.user")
        password = properties.take("database.password")
        database = try properties.require("database.dbname")
        let serverName = properties.take("database.server.name")
        guard let prefix = properties.take("topic.prefix") ?? serverName else {
            throw SluiceError(.invalidParameterValue, "Missing required configuration \"topic.prefix\" which has no default value.")
        }
        self.prefix = prefix
        let list = properties.take("table.include.list") ?? properties.take("table.whitelist")
        guard let list else {
            throw SluiceError(
                .featureNotSupported, "Sluice's Debezium connector captures the tables it is given: table.include.list is required",
                hint: "Name them as schema.table, separated by commas, as in 'table.include.list' = 'public.orders,public.customers'.")
        }
        tables = []
        for entry in list.split(separator: ",") {
            let name = entry.trimmed(of: " ")
            guard !name.isEmpty else { continue }
            if name.contains(where: { "*+?[](){}|^$\\".contains($0) }) {
                throw SluiceError(
                    .featureNotSupported, "table.include.list entry '\(name)' is a pattern; Sluice takes table names only",
                    hint: "List each table as schema.table.")
            }
            let parts = name.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard parts.count <= 2, !parts.contains(where: \.isEmpty) else {
                throw SluiceError(.invalidParameterValue, "table.include.list entry '\(name)' is not schema.table")
            }
            tables.append(parts.count == 2 ? (parts[0], parts[1]) : ("public", parts[0]))
        }
        guard !tables.isEmpty else { throw SluiceError(.invalidParameterValue, "table.include.list names no table") }
        if let plugin = properties.take("plugin.name"), plugin != "pgoutput" {
            throw SluiceError(.featureNotSupported, "plugin.name \(plugin) is not supported", hint: "Sluice decodes pgoutput, PostgreSQL's built-in plugin: 'plugin.name' = 'pgoutput'.")
        }
        slot = properties.take("slot.name")
        publication = properties.take("publication.name") ?? "dbz_publication"
        switch properties.take("publication.autocreate.mode") ?? "all_tables" {
        case "all_tables", "filtered": createsPublication = true
        case "disabled": createsPublication = false
        case let mode: throw SluiceError(.invalidParameterValue, "Invalid value \(mode) for configuration publication.autocreate.mode")
        }
        switch properties.take("snapshot.mode") ?? "initial" {
        case "initial": takesSnapshot = true
        case "never", "no_data": takesSnapshot = false
        case let mode:
            throw SluiceError(
                .featureNotSupported, "snapshot.mode \(mode) is not supported",
                hint: "Sluice takes 'initial' (copy the rows, then stream the changes) and 'never' or 'no_data' (changes only).")
        }
        switch properties.take("database.sslmode") {
        case nil: sslMode = nil
        case let mode?: sslMode = mode
        }
        try properties.refuse("table.exclude.list", "list the tables to capture in table.include.list")
        try properties.refuse("column.include.list", "Sluice captures whole rows")
        try properties.refuse("column.exclude.list", "Sluice captures whole rows")
        try properties.refuse("schema.exclude.list", "list the tables to capture in table.include.list")
        try properties.refusePrefix("transforms", "single message transforms change the events, and Sluice writes Debezium's envelope as it is")
        if try properties.converters() {
            properties.warnings.append(
                "value.converter.schemas.enable: events are written without Kafka Connect's schema wrapper (the payload alone), which ksqlDB's and Sluice's JSON readers take")
        }
        // Taken as Debezium means them: the schema list is implied by the tables.
        _ = properties.take("schema.include.list")
        properties.warnUnread()
    }

    /// The Kafka topic of `table`, as Debezium names it.
    func topic(_ table: (schema: String, table: String)) -> String { "\(prefix).\(table.schema).\(table.table)" }
}

/// Confluent's JDBC sink connector's configuration, as Sluice carries it out.
struct JDBCSinkConfig {
    enum InsertMode: String { case insert, upsert }
    enum KeyMode: String { case none, recordKey = "record_key", recordValue = "record_value" }

    var url: String
    var user: String?
    var password: String?
    var topics: [String]
    var tableNameFormat: String
    var insertMode: InsertMode
    var keyMode: KeyMode
    var keyFields: [String]
    var deletesRows: Bool
    /// `value.converter.schemas.enable=true`: each value is Kafka Connect's `{"schema": …,
    /// "payload": {…}}`, its fields in `payload`.
    var valueSchemas = false

    init(_ properties: inout KsqlConnectorProperties) throws(SluiceError) {
        url = try properties.require("connection.url")
        guard url.lowercased().hasPrefix("jdbc:postgresql://") else {
            throw SluiceError(.featureNotSupported, "connection.url must be a PostgreSQL JDBC URL (jdbc:postgresql://host:port/database): Sluice's JDBC sink writes PostgreSQL only")
        }
        user = properties.take("connection.user")
        password = properties.take("connection.password")
        try properties.refuse("topics.regex", "name the topics in 'topics' (Sluice reads a fixed list of topics)")
        topics = try properties.require("topics").split(separator: ",").map { $0.trimmed(of: " ") }.filter { !$0.isEmpty }
        guard !topics.isEmpty else { throw SluiceError(.invalidParameterValue, "topics names no topic") }
        tableNameFormat = properties.take("table.name.format") ?? "${topic}"
        guard let insertMode = InsertMode(rawValue: (properties.take("insert.mode") ?? "insert").lowercased()) else {
            throw SluiceError(.featureNotSupported, "insert.mode \(properties.values["insert.mode"] ?? "") is not supported", hint: "Sluice takes insert and upsert.")
        }
        self.insertMode = insertMode
        guard let keyMode = KeyMode(rawValue: (properties.take("pk.mode") ?? "none").lowercased()) else {
            throw SluiceError(.featureNotSupported, "pk.mode \(properties.values["pk.mode"] ?? "") is not supported", hint: "Sluice takes none, record_key and record_value.")
        }
        self.keyMode = keyMode
        keyFields = (properties.take("pk.fields") ?? "").split(separator: ",").map { $0.trimmed(of: " ").lowercased() }.filter { !$0.isEmpty }
        deletesRows = try properties.boolean("delete.enabled", default: false)
        if insertMode == .upsert && keyMode == .none {
            throw SluiceError(.invalidParameterValue, "insert.mode upsert needs a primary key: set pk.mode to record_key or record_value")
        }
        if deletesRows && keyMode != .recordKey {
            throw SluiceError(.invalidParameterValue, "delete.enabled=true needs pk.mode=record_key")
        }
        if try properties.boolean("auto.create", default: false) {
            properties.warnings.append("auto.create: Sluice does not create tables in PostgreSQL; each table must exist with a column per field")
        }
        if try properties.boolean("auto.evolve", default: false) {
            properties.warnings.append("auto.evolve: Sluice does not alter tables in PostgreSQL")
        }
        if let dialect = properties.take("dialect.name"), dialect != "PostgreSqlDatabaseDialect" {
            throw SluiceError(.featureNotSupported, "dialect.name \(dialect) is not supported: Sluice's JDBC sink writes PostgreSQL only")
        }
        try properties.refusePrefix("transforms", "single message transforms change the records, which Sluice does not do")
        try properties.refuse("fields.whitelist", "Sluice writes every field of the records")
        try properties.refuse("fields.include.list", "Sluice writes every field of the records")
        valueSchemas = try properties.converters()
        if valueSchemas && deletesRows {
            throw SluiceError(
                .featureNotSupported, "delete.enabled=true with value.converter.schemas.enable=true is not supported: Sluice reads tombstones of plain JSON values only",
                hint: "Write plain JSON values (value.converter.schemas.enable=false), or leave delete.enabled out.")
        }
        properties.warnUnread()
    }

    /// The PostgreSQL table of `topic`: `table.name.format` with `${topic}` replaced, split at
    /// its first dot into schema and table.
    func table(of topic: String) -> (schema: String, table: String) {
        let name = tableNameFormat.replacing("${topic}", with: topic)
        let parts = name.split(separator: ".", maxSplits: 1).map(String.init)
        return parts.count == 2 ? (parts[0], parts[1]) : ("public", name)
    }
}

extension Substring {
    fileprivate func trimmed(of set: String) -> String {
        String(self.drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}

extension String {
    fileprivate func trimmed(of set: String) -> String {
        Substring(self).trimmed(of: set)
    }
}
