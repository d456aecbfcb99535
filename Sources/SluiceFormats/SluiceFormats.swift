// SluiceFormats: data formats to and from column builders.
//
// - JSON/: `JSONRowDecoder`, the schema-directed decoder of JSON messages (one object per
//   Kafka message or NDJSON line) into `ColumnBuilder`s, with RisingWave's JSON source
//   semantics; `JSONScanner` is its byte cursor, `JSONNumbers` and `JSONTemporal` its
//   allocation-free conversions.
// - Avro/: Avro schemas (JSON text, with Iceberg's field ids), the binary encoding of
//   `AvroValue` trees, and object container files (`AvroContainerWriter`/`Reader`) with the
//   null, deflate, snappy and zstandard codecs: Iceberg's manifests and manifest lists.
// - Copy/: PostgreSQL's COPY text and CSV formats.
// - Fuzz/: the entry point `sluice fuzz json` and the unit tests drive.
