/// Compression codecs and checksums, shared by the Kafka protocol, the broker's log and the file
/// formats. Imports nothing of ours; the codecs call the C system libraries (zlib, snappy, lz4,
/// zstd) through the CZlib, CSnappy, CLZ4 and CZstd module maps.
///
/// - `CompressionCodec`: Kafka's four codecs, compress and capped decompress, in the framings
///   Kafka clients write (`Compression/`).
/// - `CRC32C`: the checksum of Kafka record batches (`Checksums/`).
public enum SluiceCodecs {}
