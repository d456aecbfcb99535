import SluiceCore
import SluiceDataflow

/// The options of `CREATE SOURCE … WITH (connector = 'kafka', …) FORMAT PLAIN|UPSERT|DEBEZIUM
/// ENCODE JSON|AVRO` (PLAIN also `ENCODE CSV`, and tables `FORMAT DEBEZIUM_MONGO ENCODE JSON`)
/// and of a table created the same way, checked as RisingWave checks them.
package struct KafkaSourceOptions: Sendable {
    /// Where reading starts in each partition the first time.
    package enum StartupMode: Sendable, Equatable {
        case earliest
        case latest
        /// The first record at or after this time (milliseconds since 1970).
        case timestamp(Int64)
        /// Where the source's consumer group (``groupID``) committed it was, as Flink's
        /// `group-offsets`; a partition the group has committed nothing for starts at its
        /// earliest or latest offset, as `properties.auto.offset.reset` says (latest when unset).
        case groupOffsets(fromEarliest: Bool)
    }

    package var topic: String
    package var bootstrapServers: String
    package var startup: StartupMode
    /// `properties.*` options other than the bootstrap servers, passed to the Kafka client with
    /// the prefix removed (`properties.client.id` → `client.id`).
    package var clientProperties: [(key: String, value: String)]
    /// The consumer group the source commits its progress to, so lag tools see it.
    package var groupID: String
    /// FORMAT UPSERT: the message key is the primary key, and a null value deletes.
    package var isUpsert: Bool
    /// FORMAT DEBEZIUM: each value is a Debezium change event, applied by primary key.
    package var isDebezium = false
    /// FORMAT DEBEZIUM_MONGO: each value is a change event of Debezium's MongoDB connector,
    /// applied by `_id` (``isDebezium`` is set too).
    package var isDebeziumMongo = false
    /// What `ENCODE` each message's value is in.
    package var encoding: MessageEncoding

    /// The options of RisingWave's Kafka source that Sluice takes (the rate limits are accepted
    /// and have nothing to do); `properties.*` go to the Kafka client.
    static let schema: [ConnectorOption] = [
        .text("topic", required: true), .text("properties.bootstrap.server"), .text("properties.bootstrap.servers"),
        .choice("scan.startup.mode", ["earliest", "latest", "timestamp", "group-offsets"]), .integer("scan.startup.timestamp.millis"),
        .integer("scan.startup.timestamp_millis"), .text("group.id.prefix"), .integer("source_rate_limit"),
        .integer("streaming_rate_limit"), .prefix("properties."),
    ]

    /// Checks `description`'s options; every mistake is an error naming the option.
    package init(_ description: SourceDescription) throws(SluiceError) {
        let options = description.options
        (topic, bootstrapServers) = try Self.topicAndServers(options, of: "the kafka connector")
        let millis = options["scan.startup.timestamp.millis"] ?? options["scan.startup.timestamp_millis"]
        switch options["scan.startup.mode"]?.lowercased() {
        case nil:
            // RisingWave starts at the timestamp when one is given, else at the earliest offset.
            if let millis {
                guard let value = Int64(millis) else { throw Self.badTimestamp(millis) }
                startup = .timestamp(value)
            } else {
                startup = .earliest
            }
        case "earliest": startup = .earliest
        case "latest": startup = .latest
        case "timestamp":
            guard let millis else {
                throw SluiceError(.invalidParameterValue, "scan.startup.mode = 'timestamp' needs scan.startup.timestamp.millis")
            }
            guard let value = Int64(millis) else { throw Self.badTimestamp(millis) }
            startup = .timestamp(value)
        case "group-offsets":
            startup = .groupOffsets(fromEarliest: options["properties.auto.offset.reset"]?.lowercased() == "earliest")
        case let other?:
            throw SluiceError(
                .invalidParameterValue, "scan.startup.mode must be 'earliest', 'latest', 'timestamp' or 'group-offsets', not '\(other)'")
        }
        clientProperties = Self.clientProperties(options)
        // `properties.group.id` names the group the source commits to (and, with
        // `group-offsets`, starts from); else one of its own.
        let prefix = options["group.id.prefix"] ?? "sluice"
        groupID = options["properties.group.id"] ?? "\(prefix)-\(description.name)"
        switch description.format {
        case "":
            throw SluiceError(.syntaxError, "a kafka connector needs a format, as in FORMAT PLAIN ENCODE JSON")
        case "PLAIN":
            isUpsert = false
            encoding = try MessageEncoding.of(description, connector: "kafka")
        case "UPSERT":
            guard description.encode == "JSON" || description.encode == "AVRO" else {
                throw SluiceError(.featureNotSupported, "FORMAT UPSERT takes ENCODE JSON or AVRO, not ENCODE \(description.encode)")
            }
            guard description.isTable, !description.primaryKey.isEmpty || !description.primaryKeyNames.isEmpty else {
                throw SluiceError(
                    .invalidParameterValue, "FORMAT UPSERT needs a table with a primary key: CREATE TABLE … (…, PRIMARY KEY (…)) WITH (connector = 'kafka', …) FORMAT UPSERT ENCODE JSON")
            }
            isUpsert = true
            encoding = try Self.keyedEncoding(description)
        case "DEBEZIUM":
            guard description.encode == "JSON" || description.encode == "AVRO" else {
                throw SluiceError(.featureNotSupported, "FORMAT DEBEZIUM takes ENCODE JSON or AVRO, not ENCODE \(description.encode)")
            }
            guard description.isTable, !description.primaryKey.isEmpty || !description.primaryKeyNames.isEmpty else {
                throw SluiceError(
                    .invalidParameterValue,
                    "FORMAT DEBEZIUM needs a table with a primary key: CREATE TABLE … (…, PRIMARY KEY (…)) WITH (connector = 'kafka', …) FORMAT DEBEZIUM ENCODE JSON",
                    hint: "Debezium's events are applied as upserts and deletes by key, so the table must have one.")
            }
            isUpsert = true
            isDebezium = true
            encoding = try Self.keyedEncoding(description)
        case "DEBEZIUM_MONGO":
            guard description.encode == "JSON" else {
                throw SluiceError(.featureNotSupported, "FORMAT DEBEZIUM_MONGO takes ENCODE JSON, not ENCODE \(description.encode)")
            }
            try DebeziumMongoColumns.check(description)
            try ConnectorOptionSchema("ENCODE JSON", EncodeClause.jsonOptions).check(description.formatOptions)
            isUpsert = true
            isDebezium = true
            isDebeziumMongo = true
            encoding = .json
        default:
            throw SluiceError(.featureNotSupported, "FORMAT \(description.format) is not supported; use FORMAT PLAIN, UPSERT, DEBEZIUM or DEBEZIUM_MONGO")
        }
    }

    /// The encoding of FORMAT UPSERT or DEBEZIUM (JSON or Avro), its options checked.
    private static func keyedEncoding(_ description: SourceDescription) throws(SluiceError) -> MessageEncoding {
        guard description.encode == "AVRO" else { return .json }
        try ConnectorOptionSchema("ENCODE AVRO", EncodeClause.avroOptions).check(description.formatOptions)
        return .avro(try SchemaRegistryClient(options: description.formatOptions))
    }

    /// The Avro subject of the topic's values (Confluent's `TopicNameStrategy`).
    var valueSubject: String { "\(topic)-value" }

    /// The `topic` and `properties.bootstrap.server` options a Kafka source and sink both need.
    static func topicAndServers(_ options: [String: String], of subject: String) throws(SluiceError) -> (topic: String, servers: String) {
        guard let topic = options["topic"], !topic.isEmpty else {
            throw SluiceError(.invalidParameterValue, "\(subject) needs a topic: WITH (…, topic = 'name')")
        }
        guard let servers = options["properties.bootstrap.server"] ?? options["properties.bootstrap.servers"], !servers.isEmpty else {
            throw SluiceError(
                .syntaxError, "\(subject) needs option \"properties.bootstrap.server\"",
                hint: "Add properties.bootstrap.server = 'localhost:9092' (the cluster's brokers) to the WITH options.")
        }
        return (topic, servers)
    }

    /// `properties.*` other than the bootstrap servers, prefix removed, sorted by name: the
    /// Kafka client's own properties.
    /// Whether the properties ask for TLS or SASL, which only librdkafka speaks of our clients.
    var needsLibrdkafka: Bool { Self.needLibrdkafka(clientProperties) }

    static func needLibrdkafka(_ properties: some Sequence<(key: String, value: String)>) -> Bool {
        properties.contains { key, value in
            let key = key.lowercased()
            return (key == "security.protocol" && value.lowercased() != "plaintext") || key.hasPrefix("sasl.") || key.hasPrefix("ssl.")
        }
    }

    static func clientProperties(_ options: [String: String]) -> [(key: String, value: String)] {
        options.keys.sorted().compactMap { key in
            guard key.hasPrefix("properties."), key != "properties.bootstrap.server", key != "properties.bootstrap.servers" else { return nil }
            return (String(key.dropFirst("properties.".count)), options[key]!)
        }
    }

    private static func badTimestamp(_ text: String) -> SluiceError {
        SluiceError(.invalidParameterValue, "scan.startup.timestamp.millis must be milliseconds since 1970, not '\(text)'")
    }
}

extension KafkaSource {
    /// `connector = 'kafka'`: sources and tables read a topic; sinks write one.
    package static let entry = ConnectorEntry(
        name: "kafka", takesIncludes: true, sourceOptions: KafkaSourceOptions.schema,
        makeSource: { description, context throws(SluiceError) in try KafkaSource(description, validate: context.validate) },
        sinkOptions: KafkaSinkOptions.schema,
        makeSink: { description, context throws(SluiceError) in try KafkaSink(description, validate: context.validate) })
}
