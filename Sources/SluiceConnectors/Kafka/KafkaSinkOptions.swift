import SluiceCore
import SluiceDataflow
import SluiceKafkaProtocol

/// The options of `CREATE SINK … WITH (connector = 'kafka', …) FORMAT PLAIN|UPSERT|DEBEZIUM
/// ENCODE JSON|AVRO [(force_append_only = 'true', schema.registry = '…')] [KEY ENCODE TEXT]`,
/// RisingWave's.
struct KafkaSinkOptions: Sendable {
    /// How each change becomes a message.
    enum Format: Sendable, Equatable {
        /// The new version of each row; deletes are dropped (the input is append-only or
        /// `force_append_only`).
        case plain
        /// Keyed by the primary key: the row's new version, or a tombstone (null value) when
        /// it is deleted.
        case upsert
        /// Debezium's change events: `before`, `after` and `op`, and a tombstone after a delete.
        case debezium
    }

    var topic: String
    var bootstrapServers: String
    /// `properties.*` other than the bootstrap servers, for librdkafka, prefix removed.
    var clientProperties: [String: String]
    var format: Format
    /// `KEY ENCODE TEXT`: the key is the one primary-key column's text, not a JSON object.
    var keyAsText: Bool
    /// ENCODE AVRO: the schema registry the sink's schemas are registered with; nil for JSON.
    var registry: SchemaRegistryClient?
    /// Each checkpoint's messages in one Kafka transaction, committed once the checkpoint is
    /// durable (`is_exactly_once`, default true); false: an idempotent producer flushed at each
    /// checkpoint (at least once, as RisingWave's Kafka sink is).
    var exactlyOnce: Bool
    /// FORMAT DEBEZIUM: `debezium.source.<field>` options, the fields of each event's `source`
    /// object (`connector`, `name`, `db`, `schema`, `table`, …) in place of the sink's own.
    var debeziumSource: [(key: String, value: String)]

    static let schema: [ConnectorOption] = [
        .text("topic", required: true), .text("properties.bootstrap.server"), .text("properties.bootstrap.servers"),
        .boolean("is_exactly_once"), .prefix("properties."), .prefix("debezium.source."),
    ]

    init(_ description: SinkDescription) throws(SluiceError) {
        let options = description.options
        (topic, bootstrapServers) = try KafkaSourceOptions.topicAndServers(options, of: "the kafka sink")
        clientProperties = Dictionary(KafkaSourceOptions.clientProperties(options), uniquingKeysWith: { _, last in last })
        exactlyOnce = try OptionValues.boolean(options, "is_exactly_once") ?? true
        if options["commit_checkpoint_interval"].map({ $0 != "1" }) ?? false {
            throw SluiceError(
                .invalidParameterValue, "a kafka sink commits its transaction at every checkpoint; commit_checkpoint_interval is not for it",
                hint: "Leave commit_checkpoint_interval out.")
        }
        switch description.format {
        case "PLAIN": format = .plain
        case "UPSERT": format = .upsert
        case "DEBEZIUM": format = .debezium
        case "":
            throw SluiceError(.syntaxError, "a kafka sink needs a format, as in FORMAT PLAIN ENCODE JSON")
        default:
            throw SluiceError(.featureNotSupported, "FORMAT \(description.format) is not supported for kafka sinks; use PLAIN, UPSERT or DEBEZIUM")
        }
        let sourcePrefix = "debezium.source."
        debeziumSource = options.filter { $0.key.hasPrefix(sourcePrefix) }.sorted { $0.key < $1.key }.map { (key: String($0.key.dropFirst(sourcePrefix.count)), value: $0.value) }
        if !debeziumSource.isEmpty && (format != .debezium || description.encode != "JSON") {
            throw SluiceError(.invalidParameterValue, "debezium.source.* options are for FORMAT DEBEZIUM ENCODE JSON sinks")
        }
        switch description.encode {
        case "JSON":
            registry = nil
            for key in description.formatOptions.keys where key != "force_append_only" && key != "key.encode" {
                throw SluiceError(.syntaxError, "unknown option \"\(key)\" for FORMAT \(description.format) ENCODE JSON", hint: "It takes force_append_only.")
            }
        case "AVRO":
            var options = description.formatOptions
            options["force_append_only"] = nil
            options["key.encode"] = nil
            try ConnectorOptionSchema("ENCODE AVRO", EncodeClause.avroOptions).check(options)
            registry = try SchemaRegistryClient(options: options)
        default:
            throw SluiceError(.featureNotSupported, "ENCODE \(description.encode) is not supported for kafka sinks; use ENCODE JSON or ENCODE AVRO")
        }
        switch description.formatOptions["key.encode"]?.uppercased() {
        case nil, "JSON", "AVRO": keyAsText = false
        case "TEXT":
            guard description.primaryKey.count == 1 else {
                throw SluiceError(.invalidParameterValue, "KEY ENCODE TEXT needs a primary_key of one column")
            }
            keyAsText = true
        case let other?:
            throw SluiceError(.featureNotSupported, "KEY ENCODE \(other) is not supported; use KEY ENCODE TEXT or leave it out (JSON)")
        }
        if format != .plain && description.primaryKey.isEmpty {
            throw SluiceError(
                .invalidParameterValue, "a kafka sink with FORMAT \(description.format) needs a primary_key",
                hint: "Name the columns that identify a row, as in primary_key = 'id'.")
        }
    }

    /// The librdkafka properties of the sink's producers: exactly-once producers wait for every
    /// replica and keep a transaction open up to Kafka's usual maximum, so that one prepared
    /// before a restart can still be committed after it; the user's properties come last.
    var producerProperties: [String: String] {
        var properties = ["acks": "all", "enable.idempotence": "true", "linger.ms": "10", "batch.num.messages": "10000"]
        if exactlyOnce { properties["transaction.timeout.ms"] = "900000" }
        properties.merge(clientProperties) { _, user in user }
        return properties
    }

    /// Whether the properties ask for TLS or SASL, which only librdkafka's producer speaks.
    var needsLibrdkafka: Bool {
        KafkaSourceOptions.needLibrdkafka(clientProperties)
    }

    /// The settings of the sink's own producer (``KafkaBatchProducer``), from the librdkafka
    /// properties it honours: `acks`, `batch.size`, `compression.type` (or `compression.codec`)
    /// and `transaction.timeout.ms`. The others tune librdkafka's queues and threads, which this
    /// producer does not have.
    func batchSettings(timeout: Duration) -> KafkaBatchProducer.Settings {
        let properties = producerProperties
        var settings = KafkaBatchProducer.Settings()
        settings.timeout = timeout
        switch properties["acks"]?.lowercased() {
        case "1", "0": settings.acks = 1
        default: settings.acks = -1
        }
        if let size = properties["batch.size"].flatMap({ Int($0) }), size > 0 { settings.batchBytes = size }
        switch (properties["compression.type"] ?? properties["compression.codec"])?.lowercased() {
        case "gzip": settings.compression = .gzip
        case "snappy": settings.compression = .snappy
        case "lz4": settings.compression = .lz4
        case "zstd": settings.compression = .zstd
        default: settings.compression = .uncompressed
        }
        if let limit = properties["transaction.timeout.ms"].flatMap({ Int32($0) }), limit > 0 { settings.transactionTimeoutMs = limit }
        return settings
    }
}
