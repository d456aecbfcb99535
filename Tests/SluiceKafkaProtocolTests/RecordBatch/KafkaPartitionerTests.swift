import Testing

@testable import SluiceKafkaProtocol

@Suite struct KafkaPartitionerTests {
    /// Kafka's `UtilsTest.testMurmur2` cases (and kafka-python's `murmur2` agrees).
    @Test func murmur2MatchesKafka() {
        let cases: [(String, Int32)] = [
            ("21", -973_932_308), ("foobar", -790_332_482), ("a-little-bit-long-string", -985_981_536),
            ("a-little-bit-longer-string", -1_486_304_829), ("lkjh234lh9fiuh90y23oiuhsafujhadof229phr9h19h89h8", -58_897_971),
            ("abc", 479_470_107), ("", 275_646_681),
        ]
        for (key, expected) in cases {
            let hash = Array(key.utf8).withUnsafeBytes { KafkaPartitioner.murmur2($0) }
            #expect(Int32(bitPattern: hash) == expected, "murmur2(\(key))")
        }
    }

    @Test func keyedRecordsHashUnkeyedRotate() {
        var partitioner = KafkaPartitioner(partitionCount: 3)
        // toPositive(-973932308) % 3 = 1173551340 % 3 = 0.
        #expect(Array("21".utf8).withUnsafeBytes { partitioner.partition(for: $0) } == 1_173_551_340 % 3)
        #expect((0 ..< 7).map { _ in partitioner.partition(for: nil) } == [0, 1, 2, 0, 1, 2, 0])
    }
}
