/// The Kafka APIs Sluice speaks, each with the versions it reads and writes: the table the broker
/// advertises in its ApiVersions response. Clients pick, per API, the highest version both sides
/// support.
///
/// The ranges cover what librdkafka 2.x, kafka-python and the Java client negotiate, up to the
/// versions whose fields or semantics Sluice does not serve yet:
/// - Produce starts at 3, the first version that carries v2 record batches (v0–2 carry the old
///   message sets, which Kafka 4.0 dropped too); it stops at 9 (v10+ add leader hints, KIP-951).
/// - Fetch runs 4–12: v4 is the first with isolation levels and v2 batches only, v13+ name topics
///   by id.
/// - ListOffsets 1–7 (v0 answers a list of old-style offsets; v8+ add tiered-storage timestamps).
/// - OffsetCommit 2–8 and OffsetFetch 1–7 stop before the versions of KIP-848's consumer groups
///   (OffsetCommit v9) and of batched groups (OffsetFetch v8).
/// - FindCoordinator stops at 4 (batched keys); v5 and v6 add transaction and share-group errors.
/// - InitProducerId stops at 4; v5 only adds an error code for transactions.
/// - AddPartitionsToTxn stops at 3: v4+ are the broker-to-broker batched form (a list of
///   transactions, with verify-only), which Kafka keeps for brokers; clients send 0–3.
/// - AddOffsetsToTxn and TxnOffsetCommit stop at 3; v4 only adds TRANSACTION_ABORTABLE (KIP-890).
/// - EndTxn stops at 3: v4 adds TRANSACTION_ABORTABLE, v5 bumps the epoch on every transaction
///   and answers with the new producer id and epoch (KIP-890 part 2).
/// - AlterConfigs 0–2 and IncrementalAlterConfigs 0–1 are every version Kafka defines.
/// - SaslHandshake 0–1 and SaslAuthenticate 0–2 are every version Kafka defines; after a v0
///   handshake the SASL tokens travel as bare size-prefixed frames (KIP-43), after v1 inside
///   SaslAuthenticate requests (KIP-152).
/// - DescribeAcls, CreateAcls and DeleteAcls 0–3: v0 has no pattern type (every pattern is
///   LITERAL), v3 only adds the USER resource type.
///
/// - Invariant: `firstFlexibleVersion` is the version from which the API uses compact strings,
///   arrays and bytes and tagged fields (KIP-482), as in Kafka's message definitions; it may lie
///   above `supportedVersions` (then no supported version is flexible).
package enum KafkaAPI: Int16, CaseIterable, Sendable {
    case produce = 0
    case fetch = 1
    case listOffsets = 2
    case metadata = 3
    case offsetCommit = 8
    case offsetFetch = 9
    case findCoordinator = 10
    case joinGroup = 11
    case heartbeat = 12
    case leaveGroup = 13
    case syncGroup = 14
    case describeGroups = 15
    case listGroups = 16
    case saslHandshake = 17
    case apiVersions = 18
    case createTopics = 19
    case deleteTopics = 20
    case initProducerID = 22
    case addPartitionsToTxn = 24
    case addOffsetsToTxn = 25
    case endTxn = 26
    case txnOffsetCommit = 28
    case describeAcls = 29
    case createAcls = 30
    case deleteAcls = 31
    case describeConfigs = 32
    case alterConfigs = 33
    case saslAuthenticate = 36
    case createPartitions = 37
    case incrementalAlterConfigs = 44

    /// The API key on the wire.
    package var key: Int16 { rawValue }

    /// The API's name as Kafka's message definitions spell it.
    package var name: String { entry.name }

    /// The versions Sluice reads and writes, and advertises.
    package var supportedVersions: ClosedRange<Int16> { entry.supported }

    /// The lowest supported version.
    package var minimumVersion: Int16 { entry.supported.lowerBound }

    /// The highest supported version.
    package var maximumVersion: Int16 { entry.supported.upperBound }

    /// The first version that is flexible (KIP-482): compact encodings and tagged fields.
    package var firstFlexibleVersion: Int16 { entry.firstFlexible }

    /// Whether messages of this API at `version` use the flexible encoding.
    package func isFlexible(_ version: Int16) -> Bool {
        version >= entry.firstFlexible
    }

    /// Whether Sluice reads and writes this API at `version`.
    package func supports(_ version: Int16) -> Bool {
        entry.supported.contains(version)
    }

    // One row per API: name, supported versions, first flexible version (from the `flexibleVersions`
    // of the API's request and response definitions in apache/kafka's clients/…/common/message/).
    private var entry: (name: String, supported: ClosedRange<Int16>, firstFlexible: Int16) {
        switch self {
        case .produce: ("Produce", 3 ... 9, 9)
        case .fetch: ("Fetch", 4 ... 12, 12)
        case .listOffsets: ("ListOffsets", 1 ... 7, 6)
        case .metadata: ("Metadata", 0 ... 12, 9)
        case .offsetCommit: ("OffsetCommit", 2 ... 8, 8)
        case .offsetFetch: ("OffsetFetch", 1 ... 7, 6)
        case .findCoordinator: ("FindCoordinator", 0 ... 4, 3)
        case .joinGroup: ("JoinGroup", 0 ... 9, 6)
        case .heartbeat: ("Heartbeat", 0 ... 4, 4)
        case .leaveGroup: ("LeaveGroup", 0 ... 5, 4)
        case .syncGroup: ("SyncGroup", 0 ... 5, 4)
        case .describeGroups: ("DescribeGroups", 0 ... 5, 5)
        case .listGroups: ("ListGroups", 0 ... 5, 3)
        // Never flexible: Kafka cannot bump it without breaking clients up to 2.4 (KAFKA-9577).
        case .saslHandshake: ("SaslHandshake", 0 ... 1, .max)
        case .apiVersions: ("ApiVersions", 0 ... 4, 3)
        case .createTopics: ("CreateTopics", 0 ... 7, 5)
        case .deleteTopics: ("DeleteTopics", 0 ... 6, 4)
        case .initProducerID: ("InitProducerId", 0 ... 4, 2)
        case .addPartitionsToTxn: ("AddPartitionsToTxn", 0 ... 3, 3)
        case .addOffsetsToTxn: ("AddOffsetsToTxn", 0 ... 3, 3)
        case .endTxn: ("EndTxn", 0 ... 3, 3)
        case .txnOffsetCommit: ("TxnOffsetCommit", 0 ... 3, 3)
        case .describeAcls: ("DescribeAcls", 0 ... 3, 2)
        case .createAcls: ("CreateAcls", 0 ... 3, 2)
        case .deleteAcls: ("DeleteAcls", 0 ... 3, 2)
        case .describeConfigs: ("DescribeConfigs", 0 ... 4, 4)
        case .alterConfigs: ("AlterConfigs", 0 ... 2, 2)
        case .saslAuthenticate: ("SaslAuthenticate", 0 ... 2, 2)
        case .createPartitions: ("CreatePartitions", 0 ... 3, 2)
        case .incrementalAlterConfigs: ("IncrementalAlterConfigs", 0 ... 1, 1)
        }
    }

    /// Throws `unsupportedVersion` unless Sluice supports this API at `version`.
    func checkSupported(_ version: Int16) throws(KafkaDecodingError) {
        guard supports(version) else { throw .unsupportedVersion(apiKey: rawValue, version: version) }
    }
}
