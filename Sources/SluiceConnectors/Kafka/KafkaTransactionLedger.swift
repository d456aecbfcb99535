#if canImport(Glibc)
import Glibc
#endif
import SluiceCore
import SluiceKafkaProtocol

/// What an exactly-once Kafka sink asks the cluster's coordinators directly, over the Kafka
/// protocol, because librdkafka has no call for it:
/// - the last epoch the sink committed: each transaction also commits, as consumer group
///   `sluice-sink-<sink id>`'s offset of partition 0 of the sink's topic, the checkpoint epoch it
///   holds (the progress marker commits atomically with the messages);
/// - committing a transaction that a producer prepared before a restart, with the producer id and
///   epoch the sink recorded in its checkpoint: EndTxn as that producer (what Flink's Kafka sink
///   does to resume a transaction), before a new producer with the same transactional id would
///   abort it.
///
/// Plain connections only: a cluster that wants TLS or SASL gets an error here, and the sink
/// reports it rather than lose or repeat messages.
enum KafkaTransactionLedger {
    /// The epoch the sink's last committed transaction carried; nil when it never committed.
    static func lastCommittedEpoch(bootstrap: String, group: String, topic: String) throws(SluiceError) -> UInt64? {
        let client = try coordinator(of: group, keyType: 0, bootstrap: bootstrap)
        let response: OffsetFetchResponse
        do {
            response = try client.send(OffsetFetchRequest(groupID: group, topics: [.init(name: topic, partitionIndexes: [0])]))
        } catch {
            throw Self.failure("read the sink's committed epoch", error)
        }
        guard response.errorCode == 0 else { throw Self.failure("read the sink's committed epoch", code: response.errorCode) }
        guard let partition = response.topics.first?.partitions.first else { return nil }
        guard partition.errorCode == 0 else { throw Self.failure("read the sink's committed epoch", code: partition.errorCode) }
        return partition.committedOffset < 0 ? nil : UInt64(partition.committedOffset)
    }

    /// Commits the transaction `producerID` at `epoch` left open under `transactionalID`.
    static func commit(bootstrap: String, transactionalID: String, producerID: Int64, epoch: Int16) throws(SluiceError) {
        let deadline = ContinuousClock.now + .seconds(30)
        while true {
            let client = try coordinator(of: transactionalID, keyType: 1, bootstrap: bootstrap)
            let response: EndTxnResponse
            do {
                response = try client.send(EndTxnRequest(transactionalID: transactionalID, producerID: producerID, producerEpoch: epoch, committed: true))
            } catch {
                throw Self.failure("commit transaction \(transactionalID)", error)
            }
            switch response.errorCode {
            case 0:
                return
            // COORDINATOR_LOAD_IN_PROGRESS, NOT_COORDINATOR, CONCURRENT_TRANSACTIONS: ask again.
            case 14, 16, 51 where ContinuousClock.now < deadline:
                usleep(100_000)
            default:
                throw SluiceError(
                    .ioError, "kafka: the transaction of \(transactionalID) prepared before the restart cannot be committed",
                    detail: "The coordinator answered \(KafkaErrorCode(rawValue: response.errorCode)) for producer \(producerID), epoch \(epoch).",
                    hint: "If Sluice was down longer than the transaction timeout (transaction.timeout.ms), the broker aborted it.")
            }
        }
    }

    /// A connection to the coordinator of `key` (a group, or with key type 1 a transactional
    /// id), found through the first bootstrap broker that answers.
    private static func coordinator(of key: String, keyType: Int8, bootstrap: String) throws(SluiceError) -> KafkaWireClient {
        var lastError: KafkaWireError?
        for address in bootstrap.split(separator: ",") {
            guard let (host, port) = KafkaBatchProducer.hostAndPort(String(address)) else { continue }
            let client: KafkaWireClient
            let found: FindCoordinatorResponse
            do {
                client = try KafkaWireClient(host: host, port: port)
                found = try client.send(FindCoordinatorRequest(keyType: keyType, keys: [key]))
            } catch {
                lastError = error
                continue
            }
            guard let coordinator = found.coordinators.first, coordinator.errorCode == 0 else {
                throw Self.failure("find the coordinator of \(key)", code: found.coordinators.first?.errorCode ?? -1)
            }
            if coordinator.host == host && Int(coordinator.port) == port { return client }
            do {
                return try KafkaWireClient(host: coordinator.host, port: Int(coordinator.port))
            } catch {
                throw Self.failure("connect to the coordinator of \(key)", error)
            }
        }
        throw SluiceError(.ioError, "kafka: cannot reach the coordinator of \(key) through \(bootstrap)\(lastError.map { ": \($0)" } ?? "")")
    }


    private static func failure(_ what: String, _ error: KafkaWireError) -> SluiceError {
        SluiceError(.ioError, "kafka: cannot \(what): \(error)")
    }

    private static func failure(_ what: String, code: Int16) -> SluiceError {
        SluiceError(.ioError, "kafka: cannot \(what): the broker answered \(KafkaErrorCode(rawValue: code))")
    }
}
