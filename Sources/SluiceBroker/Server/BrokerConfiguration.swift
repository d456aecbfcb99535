/// Configuration of the built-in Kafka-compatible broker (Kafka's names in the comments).
package struct BrokerConfiguration: Sendable {
    /// Address to listen on (`listeners`).
    package var host = "127.0.0.1"
    package var port = 9092
    /// The host clients are told to connect to (`advertised.listeners`); the listen host when nil.
    package var advertisedHost: String?
    /// Where topics live: `<dataDirectory>/<topic>-<partition>/`.
    package var dataDirectory = "./sluice-data/broker"
    /// This broker's id (`node.id`).
    package var nodeID: Int32 = 1
    package var clusterID = "sluice-cluster"
    /// Whether Metadata requests for unknown topics create them (`auto.create.topics.enable`).
    package var autoCreateTopics = true
    /// Partitions of a topic created without a count (`num.partitions`).
    package var defaultPartitions = 1
    /// Largest request frame read (`socket.request.max.bytes`, default 100 MiB).
    package var maxRequestBytes = 100 * 1024 * 1024
    /// Largest record batch accepted (`message.max.bytes`, default 1 MiB plus the batch overhead).
    package var maxBatchBytes = 1_048_588
    package var log = LogConfiguration()
    /// How often closed segments are checked against the retention limits
    /// (`log.retention.check.interval.ms`, default 5 minutes).
    package var retentionCheckIntervalMilliseconds = 300_000

    package init() {}
}
