import SluiceCore
import SluiceFormats

/// The Avro schemas of a Kafka sink with ENCODE AVRO, derived from its columns, and their
/// registration under Confluent's subjects `<topic>-value` and `<topic>-key`:
/// - PLAIN and UPSERT: the value is a record of the columns named after the topic;
/// - DEBEZIUM: the value is Debezium's envelope `<topic>.Envelope` with `before` and `after`
///   (each `["null", <topic>.Value]`, the record of the columns), `op` and `ts_ms`;
/// - keys (a primary key, without `KEY ENCODE TEXT`): a record of the key columns,
///   `<topic>_key`.
struct KafkaAvroSchemas {
    /// Encodes the rows: the values of PLAIN and UPSERT, the `before` and `after` of DEBEZIUM.
    var rows: AvroRowEncoder
    var keys: AvroRowEncoder?
    /// The schema registered as `<topic>-value`.
    var valueSchema: AvroSchema
    var keySchema: AvroSchema? { keys?.schema }

    init(topic: String, columns: [(name: String, type: DataType)], keyColumns: [Int], keyAsText: Bool, format: KafkaSinkOptions.Format) {
        let name = AvroNames.valid(topic, dotted: false)
        if format == .debezium {
            rows = AvroRowEncoder(columns: columns, recordName: "\(name).Value")
            valueSchema = .record("\(name).Envelope", [
                AvroField("before", .optional(rows.schema), defaultValue: .null),
                AvroField("after", .optional(rows.schema), defaultValue: .null),
                AvroField("op", .string),
                AvroField("ts_ms", .long),
            ])
        } else {
            rows = AvroRowEncoder(columns: columns, recordName: name)
            valueSchema = rows.schema
        }
        keys = keyColumns.isEmpty || keyAsText ? nil : AvroRowEncoder(columns: keyColumns.map { columns[$0] }, recordName: "\(name)_key")
    }

    /// Registers the schemas under the topic's subjects (or finds them there) and returns their
    /// ids; a schema the registry refuses (incompatible with the subject's versions) is an error
    /// naming its reason.
    func register(with registry: SchemaRegistryClient, topic: String) throws(SluiceError) -> KafkaAvroSchemaIDs {
        let value = try registry.register(valueSchema, subject: "\(topic)-value")
        let key = try keySchema.map { (schema) throws(SluiceError) in try registry.register(schema, subject: "\(topic)-key") }
        return KafkaAvroSchemaIDs(value: value, key: key)
    }
}
