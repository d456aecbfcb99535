import NIOCore
import SluiceKafkaProtocol
import Testing

@testable import SluiceBroker

/// A fetch's answer leaves the broker in pieces: its large records as read from the log, the
/// fields around them encoded. The pieces, put together, are the response a client reads.
@Suite struct FetchFrameTests {
    @Test(arguments: [Int16(4), 12])
    func largeRecordsGoOutAsTheirOwnPiecesAndReadBackWhole(version: Int16) throws {
        let broker = try TemporaryBroker()
        defer { broker.remove() }
        try broker.broker.topics.create("events", partitions: 2)
        let client = try EmbeddedKafkaClient(broker.broker)
        let large = (0 ..< 400).map { "event \($0) " + String(repeating: "x", count: 100) }
        let produce = ProduceRequest(acks: -1, timeoutMs: 1000, topicData: [
            .init(name: "events", partitionData: [.init(index: 0, records: Requests.batch(large)), .init(index: 1, records: Requests.batch(["small"]))])
        ])
        #expect(try client.call(produce, version: 9).firstErrorCode == 0)
        let fetch = FetchRequest(maxWaitMs: 0, minBytes: 0, topics: [
            .init(topic: "events", partitions: [
                .init(partition: 0, fetchOffset: 0, partitionMaxBytes: 1 << 20), .init(partition: 1, fetchOffset: 0, partitionMaxBytes: 1 << 20),
            ])
        ])
        try client.send(fetch, version: version)
        // The frame's pieces as written: the fields up to the large records, the records, the rest.
        var pieces: [ByteBuffer] = []
        while let piece = try client.channel.readOutbound(as: ByteBuffer.self) { pieces.append(piece) }
        let logged = try #require(try broker.broker.topics.log("events", 0)?.read(from: 0, maxBytes: 1 << 20))
        #expect(logged.readableBytes >= KafkaBroker.splicedRecords)
        #expect(pieces.count == 3)
        #expect(pieces.count == 3 && pieces[1] == logged)
        // Together, one well-formed response with both partitions' records.
        var frame = ByteBuffer()
        for var piece in pieces { frame.writeBuffer(&piece) }
        #expect(frame.readInteger(as: Int32.self).map(Int.init) == frame.readableBytes)
        _ = try KafkaResponseHeader(from: &frame, headerVersion: FetchResponse.api.responseHeaderVersion(for: version))
        let response = try FetchResponse(from: &frame, version: version)
        #expect(frame.readableBytes == 0)
        let partitions = response.responses.flatMap(\.partitions)
        #expect(partitions.map(\.partitionIndex) == [0, 1])
        #expect(partitions[0].records == logged)
        #expect(try Self.values(partitions[0].records) == large)
        #expect(try Self.values(partitions[1].records) == ["small"])
    }

    static func values(_ records: ByteBuffer?) throws -> [String] {
        let records = try #require(records)
        return try RecordBatchValidator(origin: .log).validate(records).flatMap { view in
            try view.records(in: records).map { String(buffer: $0.value ?? ByteBuffer()) }
        }
    }
}
