import SluiceFormats

/// One field of a partition type: the partition spec's field name and field id, and the
/// field's Avro schema as Iceberg writes it (an optional field as `["null", T]`, a date as
/// `{"type": "int", "logicalType": "date"}`, and so on; spec, Appendix A).
package struct IcebergManifestPartitionField: Hashable, Sendable {
    package var name: String
    package var fieldID: Int
    package var type: AvroSchema

    package init(name: String, fieldID: Int, type: AvroSchema) {
        self.name = name
        self.fieldID = fieldID
        self.type = type
    }
}
