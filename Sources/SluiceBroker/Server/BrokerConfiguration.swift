import NIOCore

/// Configuration of the built-in Kafka-compatible broker (Kafka's names in the comments).
package struct BrokerConfiguration: Sendable {
    /// The addresses to listen on (`listeners`, `advertised.listeners`); at least one. ``host``,
    /// ``port`` and ``advertisedHost`` read and set the first.
    package var listeners = [BrokerListener(name: "PLAINTEXT", host: "127.0.0.1", port: 9092)]
    /// Makes the TLS handler put first in the pipeline of each connection to a listener with
    /// `tls` (the server supplies SluiceNet's `TLSHandler`; the broker itself has no TLS). The broker refuses to start a TLS listener without it.
    package var tlsHandlerFactory: (@Sendable () throws -> any ChannelHandler)?
    /// Whether clients must authenticate with SASL, and against which users.
    package var authentication = BrokerAuthentication()
    /// Who may do what to which topic; nil: Kafka's ACL authorizer over the broker's ACLs (see
    /// ``allowEveryoneIfNoACLFound``).
    package var authorizer: (any BrokerAuthorizer)?
    /// Whether, for the ACL authorizer, a topic that no ACL covers is open to every user
    /// (`allow.everyone.if.no.acl.found`). Superusers and unauthenticated clients (where
    /// authentication is optional) may do everything regardless.
    package var allowEveryoneIfNoACLFound = false
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
    /// How often the log cleaner looks for compacted partitions to clean
    /// (`log.cleaner.backoff.ms`, default 15 seconds).
    package var cleanerIntervalMilliseconds = 15_000
    /// The most memory the log cleaner's key map takes (`log.cleaner.dedupe.buffer.size`,
    /// default 128 MiB, 24 bytes a key); it grows to that only as keys need it.
    package var cleanerDedupeBufferBytes = 128 << 20
    /// How often open transactions are checked against their timeouts
    /// (`transaction.abort.timed.out.transaction.cleanup.interval.ms`; Kafka's default is 10 s,
    /// a second here so that a producer that went away holds consumers up less).
    package var transactionCheckIntervalMilliseconds = 1_000

    package init() {}

    /// The first listener's address.
    package var host: String {
        get { listeners.first?.host ?? "127.0.0.1" }
        set { updateFirstListener { $0.host = newValue } }
    }

    /// The first listener's port; 0 binds a free one.
    package var port: Int {
        get { listeners.first?.port ?? 9092 }
        set { updateFirstListener { $0.port = newValue } }
    }

    /// The host clients of the first listener are told to connect to; the listen host when nil.
    package var advertisedHost: String? {
        get { listeners.first?.advertisedHost }
        set { updateFirstListener { $0.advertisedHost = newValue } }
    }

    private mutating func updateFirstListener(_ update: (inout BrokerListener) -> Void) {
        if listeners.isEmpty { listeners.append(BrokerListener(name: "PLAINTEXT", host: "127.0.0.1", port: 9092)) }
        update(&listeners[0])
    }
}
