// SluiceFormats: data formats to and from column builders.
//
// - JSON/: `JSONRowDecoder`, the schema-directed decoder of JSON messages (one object per
//   Kafka message or NDJSON line) into `ColumnBuilder`s, with RisingWave's JSON source
//   semantics; `JSONScanner` is its byte cursor, `JSONNumbers` and `JSONTemporal` its
//   allocation-free conversions.
// - Avro/: Avro schemas (JSON text, with Iceberg's field ids), the binary encoding of
//   `AvroValue` trees, and object container files (`AvroContainerWriter`/`Reader`) with the
//   null, deflate, snappy and zstandard codecs: Iceberg's manifests and manifest lists.
// - Parquet/: our Parquet writer (`ParquetWriter`: Thrift compact footer, data page v1, PLAIN
//   and RLE_DICTIONARY, definition and repetition levels for structs and lists, the four
//   codecs, statistics, Iceberg field ids) and reader (`ParquetReader`: also data page v2, the
//   delta and byte-stream-split encodings, INT96 and legacy annotations, as pyarrow and DuckDB
//   write them).
// - Copy/: PostgreSQL's COPY text and CSV formats.
// - Fuzz/: the entry point `sluice fuzz json` and the unit tests drive.
