/// Constants of Avro object container files (specification, "Object Container Files").
enum AvroContainerFormat {
    /// The first four bytes of every file: `O`, `b`, `j`, 1.
    static let magic: [UInt8] = [0x4F, 0x62, 0x6A, 0x01]
    /// The length of the sync marker that follows the header and every block.
    static let syncMarkerSize = 16
    /// The metadata key of the writer's schema, as JSON.
    static let schemaKey = "avro.schema"
    /// The metadata key of the block codec's name.
    static let codecKey = "avro.codec"
    /// The metadata schema: a map of bytes.
    static let metadataSchema = AvroSchema(.map(values: .bytes))
}
