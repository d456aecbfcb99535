import SluiceCore
import SluiceDataflow

/// The options of `CREATE SOURCE … WITH (connector = 'kafka', …) FORMAT PLAIN|UPSERT ENCODE JSON`
/// and of a table created the same way, checked as RisingWave checks them.
package struct KafkaSourceOptions: Sendable {
    /// Where reading starts in each partition the first time.
    package enum StartupMode: Sendable, Equatable {
        case earliest
        case latest
        /// The first record at or after this time (milliseconds since 1970).
        case timestamp(Int64)
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
    /// What `ENCODE` each message's value is in.
    package var encoding: MessageEncoding

    /// The options of RisingWave's Kafka source that Sluice takes (the rate limits are accepted
    /// and have nothing to do); `properties.*` go to the Kafka client.
    static let schema: [ConnectorOption] = [
        .text("topic", required: true), .text("properties.bootstrap.server"), .text("properties.bootstrap.servers"),
        .choice("scan.startup.mode", ["earliest", "latest", "timestamp"]), .integer("scan.startup.timestamp.millis"),
        .integer("scan.startup.timestamp_millis"), .text("group.id.prefix"), .integer("source_rate_limit"),
        .integer("streaming_rate_limit"), .prefix("properties."),
    ]

    /// Checks `description`'s options; every mistake is an error naming the option.
    package init(_ description: SourceDescription) throws(SluiceError) {
        let options = description.options
        guard let topic = options["topic"], !topic.isEmpty else {
            throw SluiceError(.invalidParameterValue, "the kafka connector needs a topic: WITH (…, topic = 'name')")
        }
        guard let servers = options["properties.bootstrap.server"] ?? options["properties.bootstrap.servers"], !servers.isEmpty else {
            throw SluiceError(
                .syntaxError, "the kafka connector needs option \"properties.bootstrap.server\"",
                hint: "Add properties.bootstrap.server = 'localhost:9092' (the cluster's brokers) to the WITH options.")
        }
        self.topic = topic
        self.bootstrapServers = servers
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
        case let other?:
            throw SluiceError(
                .invalidParameterValue, "scan.startup.mode must be 'earliest', 'latest' or 'timestamp', not '\(other)'")
        }
        clientProperties = options.keys.sorted().compactMap { key in
            guard key.hasPrefix("properties."), key != "properties.bootstrap.server", key != "properties.bootstrap.servers" else { return nil }
            return (String(key.dropFirst("properties.".count)), options[key]!)
        }
        let prefix = options["group.id.prefix"] ?? "sluice"
        groupID = "\(prefix)-\(description.name)"
        switch description.format {
        case "":
            throw SluiceError(.syntaxError, "a kafka connector needs a format, as in FORMAT PLAIN ENCODE JSON")
        case "PLAIN":
            isUpsert = false
            encoding = try MessageEncoding.of(description, connector: "kafka")
        case "UPSERT":
            guard description.encode == "JSON" else {
                throw SluiceError(.featureNotSupported, "FORMAT UPSERT takes ENCODE JSON, not ENCODE \(description.encode)")
            }
            guard description.isTable, !description.primaryKey.isEmpty else {
                throw SluiceError(
                    .invalidParameterValue, "FORMAT UPSERT needs a table with a primary key: CREATE TABLE … (…, PRIMARY KEY (…)) WITH (connector = 'kafka', …) FORMAT UPSERT ENCODE JSON")
            }
            isUpsert = true
            encoding = .json
        default:
            throw SluiceError(.featureNotSupported, "FORMAT \(description.format) is not supported; use FORMAT PLAIN or FORMAT UPSERT")
        }
    }

    private static func badTimestamp(_ text: String) -> SluiceError {
        SluiceError(.invalidParameterValue, "scan.startup.timestamp.millis must be milliseconds since 1970, not '\(text)'")
    }
}

extension KafkaSource {
    package static let entry = ConnectorEntry(
        name: "kafka", takesIncludes: true, sourceOptions: KafkaSourceOptions.schema,
        makeSource: { description, context throws(SluiceError) in try KafkaSource(description, validate: context.validate) })
}
