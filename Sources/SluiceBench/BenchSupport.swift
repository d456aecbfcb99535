import NIOCore
import SluiceBroker
import SluiceCore
import SluiceKafkaProtocol
import SluicePGWire
import SluiceServer

// What the benchmarks share: SQL run through a session, and pipelined produce requests.

extension SQLSession {
    /// Runs every statement of `sql` and returns the last one's result.
    func execute(script sql: String) async throws -> PGStatementResult {
        let statements = try await prepare(sql, parameterTypes: [])
        var last = PGStatementResult(commandTag: "")
        for statement in statements { last = try await execute(statement, parameters: []) }
        return last
    }
}

extension KafkaWireClient {
    /// Produces the batches `next` hands out (until it returns nil) to partition 0 of `topic`
    /// with acks=all, keeping up to five requests in flight as librdkafka does; `acknowledged`
    /// gets each request's time from sending to its response.
    func producePipelined(
        topic: String, next: () -> ByteBuffer?, acknowledged: (Duration) -> Void = { _ in }
    ) throws {
        let version = try version(of: .produce)
        var outstanding: [ContinuousClock.Instant] = []
        var exhausted = false
        while !exhausted || !outstanding.isEmpty {
            while !exhausted && outstanding.count < 5 {
                guard let batch = next() else {
                    exhausted = true
                    break
                }
                let request = ProduceRequest(acks: -1, timeoutMs: 30_000, topicData: [.init(name: topic, partitionData: [.init(index: 0, records: batch)])])
                outstanding.append(ContinuousClock.now)
                try sendWithoutResponse(request, version: version)
            }
            if outstanding.isEmpty { break }
            let response = try receive(ProduceRequest.self, version: version)
            acknowledged(ContinuousClock.now - outstanding.removeFirst())
            if let code = response.responses.first?.partitionResponses.first?.errorCode, code != 0 {
                throw KafkaClientError("produce failed with Kafka error \(code)")
            }
        }
    }
}
