/// Chooses a record's partition as the Java Kafka client's default partitioner does for keyed
/// records (`Utils.toPositive(Utils.murmur2(key)) % numPartitions`), so a key lands where a
/// Java or kafka-python producer would put it; unkeyed records go round-robin.
package struct KafkaPartitioner: Sendable {
    package let partitionCount: Int32
    private var nextRoundRobin: Int32 = 0

    package init(partitionCount: Int32) {
        precondition(partitionCount > 0, "a topic has at least one partition")
        self.partitionCount = partitionCount
    }

    /// The partition for a record with `key` (nil: unkeyed).
    package mutating func partition(for key: UnsafeRawBufferPointer?) -> Int32 {
        if let key {
            return Int32(bitPattern: Self.murmur2(key) & 0x7FFF_FFFF) % partitionCount
        }
        let partition = nextRoundRobin
        nextRoundRobin = (nextRoundRobin + 1) % partitionCount
        return partition
    }

    /// Kafka's 32-bit murmur2 (`org.apache.kafka.common.utils.Utils.murmur2`): seed
    /// `0x9747b28c`, little-endian 4-byte words, then the tail bytes, then the final mix.
    package static func murmur2(_ data: UnsafeRawBufferPointer) -> UInt32 {
        let length = data.count
        let m: UInt32 = 0x5BD1_E995
        let r: UInt32 = 24
        var h: UInt32 = 0x9747_B28C ^ UInt32(truncatingIfNeeded: length)
        let wordCount = length / 4
        for word in 0 ..< wordCount {
            let base = word * 4
            var k = UInt32(data[base]) | UInt32(data[base + 1]) << 8 | UInt32(data[base + 2]) << 16 | UInt32(data[base + 3]) << 24
            k = k &* m
            k ^= k >> r
            k = k &* m
            h = h &* m
            h ^= k
        }
        let tail = wordCount * 4
        switch length % 4 {
        case 3:
            h ^= UInt32(data[tail + 2]) << 16
            h ^= UInt32(data[tail + 1]) << 8
            h ^= UInt32(data[tail])
            h = h &* m
        case 2:
            h ^= UInt32(data[tail + 1]) << 8
            h ^= UInt32(data[tail])
            h = h &* m
        case 1:
            h ^= UInt32(data[tail])
            h = h &* m
        default:
            break
        }
        h ^= h >> 13
        h = h &* m
        h ^= h >> 15
        return h
    }
}
