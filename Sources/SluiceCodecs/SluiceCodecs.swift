/// Compression codecs and checksums (CRC-32C), shared by the Kafka protocol, the broker's log
/// and the file formats. Imports nothing of ours.
public enum SluiceCodecs {}
