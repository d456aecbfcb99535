/// A Kafka UUID (topic ids, KIP-516): 16 bytes on the wire, most significant half first.
package struct KafkaUUID: Hashable, Sendable {
    /// The first 8 bytes, big-endian.
    package var mostSignificantBits: UInt64
    /// The last 8 bytes, big-endian.
    package var leastSignificantBits: UInt64

    /// The all-zero UUID Kafka uses for "no topic id".
    package static let zero = KafkaUUID(mostSignificantBits: 0, leastSignificantBits: 0)

    package init(mostSignificantBits: UInt64, leastSignificantBits: UInt64) {
        self.mostSignificantBits = mostSignificantBits
        self.leastSignificantBits = leastSignificantBits
    }
}
