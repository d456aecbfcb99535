// SluiceFormats: data formats to and from column builders.
//
// - JSON/: `JSONRowDecoder`, the schema-directed decoder of JSON messages (one object per
//   Kafka message or NDJSON line) into `ColumnBuilder`s, with RisingWave's JSON source
//   semantics; `JSONScanner` is its byte cursor, `JSONNumbers` and `JSONTemporal` its
//   allocation-free conversions.
// - Fuzz/: the entry point `sluice fuzz json` and the unit tests drive.
//
// CSV, Avro and Parquet will live beside JSON/ (ARCHITECTURE.md, "Formats and lakehouse").
