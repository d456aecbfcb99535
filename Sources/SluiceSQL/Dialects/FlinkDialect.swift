import SluiceCore

/// Flink SQL lowered onto the engine's own statements: what a Flink SQL client types, parsed by
/// the one parser (which takes Flink's spellings: backquotes, `STRING`, `ROW<…>`, `WATERMARK
/// FOR`, `PRIMARY KEY … NOT ENFORCED`, quoted `WITH` keys), then rewritten here as an AST into
/// the statements Sluice runs. There is no second binder or executor.
///
/// Flink's `CREATE TABLE … WITH ('connector' = …)` names a connector's table: a Kafka or
/// datagen or filesystem table is read on every query as a source is (Flink keeps no rows of
/// it), so it becomes a source with the connector's options in Sluice's spelling; an
/// `upsert-kafka` table keeps its latest row per key, so it becomes a table with that key.
package enum FlinkDialect {
    /// `statement` as Sluice runs it.
    package static func lower(_ statement: Statement) throws(SluiceError) -> Statement {
        var statement = statement
        switch statement.kind {
        case .createTable(let table) where table.query == nil && table.options.contains(where: { $0.key == "connector" }):
            statement.kind = try lowerConnectorTable(table)
        case .createTable(var table) where table.query == nil && table.constraints.isEmpty && !table.columns.contains(where: { $0.constraints.contains(.primaryKey) }):
            // A Flink table without a key is an append-only stream (rows behind a watermark are dropped).
            table.isAppendOnly = true
            statement.kind = .createTable(table)
        case .createDatabase(let name, let ifNotExists):
            // A database of a catalog: what it is depends on the catalog (the binder knows them).
            statement.kind = .catalog(.createDatabase(name, ifNotExists: ifNotExists))
        default:
            break
        }
        return statement
    }

    // MARK: Iceberg catalogs

    /// The Iceberg connector's options for table `database.table` of a Flink Iceberg catalog
    /// (`'type' = 'iceberg'`, `'catalog-type' = 'rest'`) with `catalog`'s options.
    package static func icebergOptions(catalog: [String: String], database: String, table: String) -> [String: String] {
        var options = ["connector": "iceberg", "catalog.type": "rest", "database.name": database, "table.name": table]
        let names = [
            "uri": "catalog.uri", "warehouse": "warehouse.path", "credential": "catalog.credential", "scope": "catalog.scope",
            "oauth2-server-uri": "catalog.oauth2_server_uri", "token": "catalog.token", "s3.endpoint": "s3.endpoint",
            "s3.access-key-id": "s3.access.key", "s3.secret-access-key": "s3.secret.key", "s3.region": "s3.region", "client.region": "s3.region",
            "s3.path-style-access": "s3.path.style.access",
        ]
        for (key, value) in catalog {
            if let name = names[key] { options[name] = value }
        }
        return options
    }

    // MARK: Settings

    /// Flink's checkpoint interval setting, which paces a job's exactly-once commits.
    package static let checkpointIntervalKey = "execution.checkpointing.interval"

    /// Milliseconds of a Flink duration setting (Flink's `TimeUtils.parseDuration`): a number
    /// with a unit (`ns`, `us`, `ms`, `s`, `min`, `h`, `d` and their long forms: `10s`, `1 min`,
    /// `500 milliseconds`), or without one in milliseconds. Nil when it is not one.
    package static func durationMilliseconds(_ text: String) -> Int? {
        let trimmed = Substring(text).drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()
        let digits = String(trimmed).prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty, digits.count <= 15, let number = Int(digits) else { return nil }
        let unit = String(String(trimmed).dropFirst(digits.count).drop { $0 == " " }).lowercased()
        let nanoseconds: Int
        switch unit {
        case "ns", "nano", "nanos", "nanosecond", "nanoseconds": nanoseconds = 1
        case "us", "µs", "micro", "micros", "microsecond", "microseconds": nanoseconds = 1000
        case "", "ms", "milli", "millis", "millisecond", "milliseconds": nanoseconds = 1_000_000
        case "s", "sec", "secs", "second", "seconds": nanoseconds = 1_000_000_000
        case "m", "min", "mins", "minute", "minutes": nanoseconds = 60_000_000_000
        case "h", "hour", "hours": nanoseconds = 3_600_000_000_000
        case "d", "day", "days": nanoseconds = 86_400_000_000_000
        default: return nil
        }
        let (total, overflow) = number.multipliedReportingOverflow(by: nanoseconds)
        return overflow ? nil : (total + 999_999) / 1_000_000
    }

    /// The checkpoints between commits of a job's exactly-once sink when Flink's
    /// `execution.checkpointing.interval` is `interval` and Sluice checkpoints every
    /// `checkpointMilliseconds`: the interval rounded up to whole checkpoints, at least one.
    package static func checkpointsPerCommit(interval: Int, checkpointMilliseconds: Int) -> Int {
        let period = max(1, checkpointMilliseconds)
        return max(1, (interval + period - 1) / period)
    }

    // MARK: Connector tables

    static func lowerConnectorTable(_ table: CreateTable) throws(SluiceError) -> Statement.Kind {
        var table = table
        var options = FlinkOptions(table.options)
        let connector = try options.take("connector") ?? ""
        let connectorName = connector.lowercased()
        // `METADATA [FROM 'key']` columns: a Kafka message's as `INCLUDE`s.
        for column in table.columns {
            guard let key = column.constraints.lazy.compactMap({ constraint -> String? in
                if case .metadata(let key) = constraint { key ?? column.name } else { nil }
            }).first else { continue }
            guard connectorName == "kafka" || connectorName == "upsert-kafka" else {
                throw SluiceError(.featureNotSupported, "Invalid metadata key '\(key)' in column '\(column.name)': the '\(connector)' connector has none")
            }
            guard ["timestamp", "partition", "offset"].contains(key) else {
                throw SluiceError(
                    .featureNotSupported, "Invalid metadata key '\(key)' in column '\(column.name)' of table '\(table.name)'",
                    hint: "The Kafka metadata here: 'timestamp', 'partition' and 'offset'.")
            }
            table.includes.append(IncludeColumn(kind: key, alias: column.name))
        }
        table.columns.removeAll { $0.constraints.contains { if case .metadata = $0 { true } else { false } } }
        switch connectorName {
        case "kafka":
            let (source, format) = try kafkaOptions(&options, connector: "kafka")
            try options.refuseRest(connector: connector)
            var lowered = CreateSource(
                name: table.name, ifNotExists: table.ifNotExists, columns: table.columns, constraints: table.constraints,
                watermarks: table.watermarks, options: source, format: format)
            lowered.includes = table.includes
            if !table.constraints.isEmpty {
                throw SluiceError(
                    .featureNotSupported,
                    "The Kafka table '\(table.name)' with '\(format.encode.lowercased())' format doesn't support defining PRIMARY KEY constraint on the table, because it can't guarantee the semantic of primary key.",
                    hint: "Use the 'upsert-kafka' connector for a table keyed by its primary key.")
            }
            return .createSource(lowered)
        case "upsert-kafka":
            guard !table.constraints.isEmpty else {
                throw SluiceError(
                    .invalidTableDefinition, "'upsert-kafka' tables require to define a PRIMARY KEY constraint",
                    hint: "The PRIMARY KEY specifies which columns should be read from or write to the Kafka message key.")
            }
            let (source, format) = try kafkaOptions(&options, connector: "upsert-kafka")
            try options.refuseRest(connector: connector)
            var lowered = table
            lowered.options = source
            lowered.format = FormatEncode(format: "UPSERT", encode: format.encode, options: format.options)
            return .createTable(lowered)
        case "datagen":
            var generated: [WithOption] = [WithOption(key: "connector", value: .string("datagen"))]
            if let rate = try options.take("rows-per-second") { generated.append(WithOption(key: "datagen.rows.per.second", value: .number(rate))) }
            if options.has("number-of-rows") {
                throw SluiceError(
                    .featureNotSupported, "'number-of-rows' of the 'datagen' connector is not supported: its tables are unbounded",
                    hint: "Read a bounded number of rows with LIMIT, or generate them with generate_series.")
            }
            for key in options.keys where key.hasPrefix("fields.") {
                let value = try options.take(key) ?? ""
                // Flink's `null-rate` has no counterpart; its other field keys are ours.
                generated.append(WithOption(key: key, value: .string(value)))
            }
            try options.refuseRest(connector: connector)
            var lowered = CreateSource(
                name: table.name, ifNotExists: table.ifNotExists, columns: table.columns, constraints: table.constraints,
                watermarks: table.watermarks, options: generated, format: FormatEncode(format: "PLAIN", encode: "JSON"))
            lowered.includes = table.includes
            return .createSource(lowered)
        case "filesystem":
            guard let path = try options.take("path") else { throw SluiceError(.invalidParameterValue, "Missing required options are:\n\npath") }
            let format = try options.take("format") ?? ""
            let encode = try Self.encode(ofFormat: format, connector: connector)
            var files: [WithOption] = [WithOption(key: "connector", value: .string(path.hasPrefix("s3://") ? "s3" : "posix_fs"))]
            if path.hasPrefix("s3://") {
                let location = path.dropFirst("s3://".count)
                let bucket = location.prefix { $0 != "/" }
                files.append(WithOption(key: "s3.bucket_name", value: .string(String(bucket))))
                files.append(WithOption(key: "match_pattern", value: .string(String(location.dropFirst(bucket.count + 1)) + "*")))
            } else {
                let root = path.hasPrefix("file://") ? String(path.dropFirst("file://".count)) : path
                files.append(WithOption(key: "posix_fs.root", value: .string(root)))
            }
            for key in options.keys where key.hasPrefix("\(format).") { _ = try options.take(key) }
            try options.refuseRest(connector: connector)
            var lowered = CreateSource(
                name: table.name, ifNotExists: table.ifNotExists, columns: table.columns, constraints: table.constraints,
                watermarks: table.watermarks, options: files, format: FormatEncode(format: "PLAIN", encode: encode))
            lowered.includes = table.includes
            return .createSource(lowered)
        default:
            throw SluiceError(
                .featureNotSupported,
                "Could not find any factory for identifier '\(connector)' that implements 'org.apache.flink.table.factories.DynamicTableFactory' in the classpath.",
                hint: "The connectors Flink SQL tables can name here: 'kafka', 'upsert-kafka', 'datagen' and 'filesystem'.")
        }
    }

    /// Flink's Kafka options as Sluice's: the source's `WITH` and its `FORMAT … ENCODE …`.
    static func kafkaOptions(_ options: inout FlinkOptions, connector: String) throws(SluiceError) -> ([WithOption], FormatEncode) {
        var lowered = [WithOption(key: "connector", value: .string("kafka"))]
        guard let topic = try options.take("topic") else {
            if options.has("topic-pattern") {
                throw SluiceError(.featureNotSupported, "'topic-pattern' is not supported; name one 'topic'")
            }
            throw SluiceError(.invalidParameterValue, "Missing required options are:\n\ntopic")
        }
        lowered.append(WithOption(key: "topic", value: .string(topic)))
        guard let servers = try options.take("properties.bootstrap.servers") else {
            throw SluiceError(.invalidParameterValue, "Missing required options are:\n\nproperties.bootstrap.servers")
        }
        lowered.append(WithOption(key: "properties.bootstrap.server", value: .string(servers)))
        switch try options.take("scan.startup.mode")?.lowercased() {
        case nil, "group-offsets"?:
            // Flink's default: the offsets `properties.group.id` committed, else
            // `properties.auto.offset.reset` (latest). Without a group there are none.
            if options.keys.contains("properties.group.id") {
                lowered.append(WithOption(key: "scan.startup.mode", value: .string("group-offsets")))
            } else {
                let reset = try options.take("properties.auto.offset.reset")?.lowercased()
                lowered.append(WithOption(key: "scan.startup.mode", value: .string(reset == "earliest" ? "earliest" : "latest")))
            }
        case "earliest-offset"?:
            lowered.append(WithOption(key: "scan.startup.mode", value: .string("earliest")))
        case "latest-offset"?:
            lowered.append(WithOption(key: "scan.startup.mode", value: .string("latest")))
        case "timestamp"?:
            guard let millis = try options.take("scan.startup.timestamp-millis") else {
                throw SluiceError(
                    .invalidParameterValue, "'scan.startup.timestamp-millis' is required in 'timestamp' startup mode but missing.")
            }
            lowered.append(WithOption(key: "scan.startup.mode", value: .string("timestamp")))
            lowered.append(WithOption(key: "scan.startup.timestamp.millis", value: .number(millis)))
        case let other?:
            throw SluiceError(
                .invalidParameterValue,
                "Invalid value for option 'scan.startup.mode': '\(other)'; supported: 'earliest-offset', 'latest-offset', 'group-offsets', 'timestamp'")
        }
        for key in options.keys where key.hasPrefix("properties.") {
            lowered.append(WithOption(key: key, value: .string(try options.take(key) ?? "")))
        }
        var format = try options.take(connector == "upsert-kafka" ? "value.format" : "format") ?? ""
        if format.isEmpty { format = try options.take("value.format") ?? "" }
        if connector == "upsert-kafka" { _ = try options.take("key.format") }
        let encode = try Self.encode(ofFormat: format, connector: connector)
        var formatOptions: [WithOption] = []
        // What a Flink JSON table may say of its parsing: Sluice counts a row it cannot read in
        // `sluice_source_errors` and goes on, and reads both timestamp standards.
        for key in ["json.ignore-parse-errors", "json.timestamp-format.standard", "json.fail-on-missing-field", "json.map-null-key.mode"] {
            _ = try options.take(key)
        }
        if format.lowercased() == "avro-confluent" {
            let given = try options.take("avro-confluent.url")
            let spelled = try options.take("avro-confluent.schema-registry.url")
            guard let url = given ?? spelled else {
                throw SluiceError(.invalidParameterValue, "Missing required options are:\n\navro-confluent.url")
            }
            formatOptions.append(WithOption(key: "schema.registry", value: .string(url)))
        }
        let isChangelog = format.lowercased() == "debezium-json"
        return (lowered, FormatEncode(format: isChangelog ? "DEBEZIUM" : "PLAIN", encode: encode, options: formatOptions))
    }

    /// The `ENCODE` of a Flink `format`.
    static func encode(ofFormat format: String, connector: String) throws(SluiceError) -> String {
        switch format.lowercased() {
        case "json", "debezium-json": return "JSON"
        case "csv": return "CSV"
        case "avro-confluent", "avro": return "AVRO"
        case "parquet": return "PARQUET"
        case "": throw SluiceError(.invalidParameterValue, "Could not find required scan format 'format' of the '\(connector)' table.")
        default:
            throw SluiceError(
                .featureNotSupported, "Could not find any format factory for identifier '\(format)' in the classpath.",
                hint: "The formats Flink SQL tables can name here: 'json', 'csv', 'avro', 'avro-confluent', 'debezium-json' and 'parquet'.")
        }
    }
}

/// A Flink table's `WITH` options, taken one by one; what is left is refused as Flink does.
struct FlinkOptions {
    private var values: [(key: String, value: String)]

    init(_ options: [WithOption]) {
        values = options.map { ($0.key, $0.value.text) }
    }

    var keys: [String] { values.map(\.key) }

    func has(_ key: String) -> Bool { values.contains { $0.key == key } }

    /// The value of `key`, removed; nil when absent. A key given twice is an error.
    mutating func take(_ key: String) throws(SluiceError) -> String? {
        let found = values.filter { $0.key == key }
        guard found.count <= 1 else { throw SluiceError(.invalidParameterValue, "Option '\(key)' is given more than once.") }
        values.removeAll { $0.key == key }
        return found.first?.value
    }

    /// Flink's "Unsupported options found" for whatever was not taken.
    func refuseRest(connector: String) throws(SluiceError) {
        guard !values.isEmpty else { return }
        throw SluiceError(
            .invalidParameterValue,
            "Unsupported options found for '\(connector)'.\n\nUnsupported options:\n\n\(values.map(\.key).sorted().joined(separator: "\n"))")
    }
}
