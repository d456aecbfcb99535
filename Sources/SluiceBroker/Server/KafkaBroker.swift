import Foundation
import NIOCore
import NIOPosix
import SluiceAuth
import SluiceCore
import SluiceKafkaProtocol
import Synchronization

/// The built-in Kafka-compatible broker: one node that leads every partition, serving the
/// Kafka protocol over TCP with topics stored by ``TopicStore``.
///
/// Requests are decoded and answered on the connection's event loop; a Fetch that must wait for
/// data (`min_bytes`, `max_wait_ms`) is answered later from a scheduled re-check, so it holds
/// no thread.
///
/// Clients may authenticate with SASL (PLAIN, SCRAM-SHA-256) against ``users``, and must where
/// the configuration requires it; what an authenticated user may do to a topic is the
/// authorizer's call (by default, the ACLs in ``acls``).
package final class KafkaBroker: Sendable {
    package let configuration: BrokerConfiguration
    package let topics: TopicStore
    let producers: ProducerRegistry
    let groups: GroupCoordinator
    /// Transactional ids, their producers and open transactions.
    let transactions: TransactionCoordinator
    /// Records and bytes produced and fetched, per topic.
    package let traffic = BrokerTraffic()
    /// Compacts the logs of topics with `cleanup.policy=compact`, from the maintenance timers.
    package let cleaner: LogCleaner
    /// The ACLs that CreateAcls, DescribeAcls and DeleteAcls manage, kept in `acls.json`.
    package let acls: ACLStore
    let authorizer: any BrokerAuthorizer
    private let userDirectory: Mutex<any UserDirectory>
    /// SASL logins refused since the broker started (`sluice_failed_logins_total`).
    let failedLoginCount = Atomic<Int>(0)
    /// The listening channels, one per listener, in the configuration's order.
    private let channels = Mutex<[any Channel]>([])
    private let boundPorts: Mutex<[Int]>
    /// The retention check and, under the interval flush policy, the flush timer.
    private let maintenance = Mutex<[RepeatedTask]>([])

    /// Opens the broker's storage (recovering every partition) without listening yet.
    package init(configuration: BrokerConfiguration) throws {
        self.configuration = configuration
        self.topics = try TopicStore(directory: configuration.dataDirectory, logConfiguration: configuration.log)
        self.cleaner = LogCleaner(maximumMapBytes: configuration.cleanerDedupeBufferBytes)
        let producers = try ProducerRegistry(directory: configuration.dataDirectory)
        self.producers = producers
        // Producer state comes back from the batches in the logs, so a retry after a restart is
        // still recognised.
        for name in topics.names {
            for (partition, log) in topics.logs(of: name).enumerated() {
                for batch in log.recoveredProducerBatches {
                    producers.record(
                        producerID: batch.producerID, epoch: batch.epoch, topic: name, partition: Int32(partition),
                        firstSequence: batch.firstSequence, lastSequence: batch.lastSequence, offset: batch.offset)
                }
            }
        }
        let groups = try GroupCoordinator(directory: configuration.dataDirectory, timers: MultiThreadedEventLoopGroup.singleton.next())
        self.groups = groups
        self.transactions = try TransactionCoordinator(
            directory: configuration.dataDirectory, topics: topics,
            commitOffsets: { group, offsets in try groups.offsets.commit(group: group, offsets) },
            allocateProducerID: { try producers.allocate().id })
        let acls = try ACLStore(directory: configuration.dataDirectory)
        self.acls = acls
        self.authorizer = configuration.authorizer ?? ACLAuthorizer(store: acls, allowEveryoneIfNoACLFound: configuration.allowEveryoneIfNoACLFound)
        self.userDirectory = Mutex(configuration.authentication.users)
        self.boundPorts = Mutex(configuration.listeners.map(\.port))
    }

    /// The port the first listener listens on (after binding port 0, the one chosen).
    package var port: Int { boundPorts.withLock { $0.first ?? configuration.port } }

    /// The port the listener called `name` listens on, nil if there is none.
    package func port(of name: String) -> Int? {
        guard let index = configuration.listeners.firstIndex(where: { $0.name == name }) else { return nil }
        return boundPorts.withLock { $0[index] }
    }

    /// The users SASL checks: the configuration's at first. Set it once they exist (the
    /// server's come from the catalog, opened after the broker); logins from then on use it.
    package var users: any UserDirectory {
        get { userDirectory.withLock { $0 } }
        set { userDirectory.withLock { $0 = newValue } }
    }

    /// SASL logins refused since the broker started.
    package var failedLogins: Int { failedLoginCount.load(ordering: .relaxed) }

    /// The address Metadata and FindCoordinator give clients of the listener at `index`.
    func advertisedAddress(listener index: Int) -> (host: String, port: Int32) {
        let listener = configuration.listeners[index]
        return (listener.resolvedAdvertisedHost, Int32(boundPorts.withLock { $0[index] }))
    }

    /// Binds every listener and starts serving. Throws, binding none, when a listener wants TLS
    /// and the configuration has no TLS handler factory, or when two listeners share a name.
    package func start(group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws {
        let listeners = configuration.listeners
        guard !listeners.isEmpty else { throw SluiceError(.invalidParameterValue, "the broker has no listener") }
        for (index, listener) in listeners.enumerated() {
            if listener.tls && configuration.tlsHandlerFactory == nil {
                throw SluiceError(
                    .invalidParameterValue, "broker listener \(listener.name) wants TLS, but no TLS handler is configured",
                    hint: "Give the broker a certificate and key, or make the listener plain.")
            }
            if listeners[..<index].contains(where: { $0.name == listener.name }) {
                throw SluiceError(.invalidParameterValue, "broker listener name \(listener.name) is used twice")
            }
        }
        var bound: [any Channel] = []
        do {
            for index in listeners.indices {
                let channel = try await bind(listener: index, group: group)
                bound.append(channel)
                // Before the next bind: a client of this listener may already ask for its address.
                if let port = channel.localAddress?.port { boundPorts.withLock { $0[index] = port } }
            }
        } catch {
            for channel in bound { try? await channel.close() }
            boundPorts.withLock { $0 = listeners.map(\.port) }
            throw error
        }
        channels.withLock { $0 = bound }
        startMaintenance()
    }

    /// Binds the listener at `index`: each connection gets the TLS handler first when the
    /// listener wants TLS, then the frame decoder and the connection's handler.
    private func bind(listener index: Int, group: any EventLoopGroup) async throws -> any Channel {
        let listener = configuration.listeners[index]
        let maxFrameBytes = configuration.maxRequestBytes
        let tlsHandlerFactory = listener.tls ? configuration.tlsHandlerFactory : nil
        return try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelOption(.recvAllocator, value: AdaptiveRecvByteBufferAllocator(minimum: 64, initial: 2048, maximum: 1 << 20))
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let connection = self.makeConnection(listener: index, remoteAddress: channel.remoteAddress)
                    if let tlsHandlerFactory { try channel.pipeline.syncOperations.addHandler(try tlsHandlerFactory()) }
                    try channel.pipeline.syncOperations.addHandlers([
                        ByteToMessageHandler(KafkaFrameDecoder(maxFrameBytes: maxFrameBytes, connection: connection)),
                        KafkaConnectionHandler(broker: self, connection: connection),
                    ])
                }
            }
            .bind(host: listener.host, port: listener.port)
            .get()
    }

    /// The state of a new connection to the listener at `index` from `remoteAddress`: whether it
    /// must authenticate follows from the address (loopback or not).
    func makeConnection(listener index: Int, remoteAddress: SocketAddress?) -> KafkaConnection {
        let authentication = configuration.authentication
        let isLoopback = remoteAddress.map(\.isLoopback) ?? false
        let sasl = SASLStateMachine(
            requirement: authentication.requirement(loopback: isLoopback), mechanisms: authentication.mechanisms, users: users)
        return KafkaConnection(listenerIndex: index, clientHost: "/" + (remoteAddress?.ipAddress ?? ""), sasl: sasl)
    }

    /// Starts the timers that apply retention, flush on interval and clean compacted logs, off
    /// the event loops (they delete files and fsync). The log cleaner has a queue of its own, so
    /// a long cleaning holds up neither retention nor flushes.
    private func startMaintenance() {
        let queue = DispatchQueue(label: "sluice.broker.maintenance")
        let timers = MultiThreadedEventLoopGroup.singleton.next()
        var tasks: [RepeatedTask] = []
        func every(_ milliseconds: Int, on queue: DispatchQueue = queue, _ work: @escaping @Sendable () -> Void) {
            let interval = TimeAmount.milliseconds(Int64(max(1, milliseconds)))
            tasks.append(timers.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in queue.async(execute: work) })
        }
        let topics = self.topics
        every(configuration.retentionCheckIntervalMilliseconds) {
            topics.enforceRetention(nowMilliseconds: Int64(Date().timeIntervalSince1970 * 1000))
        }
        let cleaner = self.cleaner
        cleaner.resume()
        every(configuration.cleanerIntervalMilliseconds, on: DispatchQueue(label: "sluice.broker.cleaner")) {
            cleaner.cleanDue(topics.compactedLogs, nowMilliseconds: Int64(Date().timeIntervalSince1970 * 1000))
        }
        if case .interval(let milliseconds) = configuration.log.flush {
            every(milliseconds) { topics.syncDue() }
        }
        let transactions = self.transactions
        every(configuration.transactionCheckIntervalMilliseconds) {
            transactions.abortExpired(nowMs: TransactionCoordinator.nowMs())
        }
        maintenance.withLock { $0 = tasks }
    }

    /// Stops accepting connections and syncs every log.
    package func shutdown() async {
        let channels = self.channels.withLock { current in
            defer { current = [] }
            return current
        }
        for channel in channels { try? await channel.close() }
        for timer in maintenance.withLock({ timers in defer { timers = [] }; return timers }) { timer.cancel() }
        cleaner.stop()
        for name in topics.names {
            for log in topics.logs(of: name) { try? log.sync() }
        }
    }

    /// Answers one request frame of `connection`: the response frame, its size prefix included;
    /// nil when the request wants none (Produce with acks=0) or the connection closes without
    /// one; or a failed future when the request cannot be read. Either way the connection is
    /// closed when the broker set `connection.closesAfterResponse`, or the future failed (as
    /// Kafka closes it).
    func handle(_ frame: ByteBuffer, on connection: KafkaConnection, eventLoop: any EventLoop) -> EventLoopFuture<KafkaResponseFrame?> {
        if connection.sasl.expectsRawTokens {
            return rawTokenReceived(frame, on: connection, eventLoop: eventLoop).map { $0.map(KafkaResponseFrame.init) }
        }
        var body = frame
        let header: KafkaRequestHeader
        do {
            header = try KafkaRequestHeader(from: &body)
        } catch {
            return eventLoop.makeFailedFuture(error)
        }
        // Before authentication a SASL listener reads nothing else, and ends the connection.
        guard connection.sasl.admits(header.api) else {
            connection.closesAfterResponse = true
            return eventLoop.answered(nil)
        }
        guard let api = header.api, api.supportedVersions.contains(header.apiVersion) else {
            return eventLoop.answered(unsupported(header))
        }
        // Requests admitted before authentication (ApiVersions, SASL) have no principal and need none.
        let context = RequestContext(principal: connection.sasl.principal, listenerIndex: connection.listenerIndex)
        do {
            switch api {
            case .apiVersions: return eventLoop.answered(try answer(ApiVersionsRequest.self, header, &body, apiVersions))
            case .saslHandshake:
                let request = try SaslHandshakeRequest(from: &body, version: header.apiVersion)
                return eventLoop.answered(saslHandshake(request, header, on: connection))
            case .saslAuthenticate:
                let request = try SaslAuthenticateRequest(from: &body, version: header.apiVersion)
                return saslAuthenticate(request, header, on: connection, eventLoop: eventLoop).map { $0.map(KafkaResponseFrame.init) }
            case .metadata:
                return eventLoop.answered(try answer(MetadataRequest.self, header, &body) { metadata($0, version: $1, context) })
            case .produce:
                let request = try ProduceRequest(from: &body, version: header.apiVersion)
                let response = produce(request, version: header.apiVersion, context)
                return eventLoop.answered(request.acks == 0 ? nil : encode(response, header))
            case .fetch:
                let request = try FetchRequest(from: &body, version: header.apiVersion)
                return fetch(request, version: header.apiVersion, context, on: eventLoop).map { response in
                    self.encodeFetch(response, header)
                }
            case .listOffsets:
                return eventLoop.answered(try answer(ListOffsetsRequest.self, header, &body) { listOffsets($0, version: $1, context) })
            case .createTopics:
                return eventLoop.answered(try answer(CreateTopicsRequest.self, header, &body) { createTopics($0, version: $1, context) })
            case .deleteTopics:
                return eventLoop.answered(try answer(DeleteTopicsRequest.self, header, &body) { deleteTopics($0, version: $1, context) })
            case .createPartitions:
                return eventLoop.answered(
                    try answer(CreatePartitionsRequest.self, header, &body) { createPartitions($0, version: $1, context) })
            case .describeConfigs:
                return eventLoop.answered(
                    try answer(DescribeConfigsRequest.self, header, &body) { describeConfigs($0, version: $1, context) })
            case .initProducerID: return eventLoop.answered(try answer(InitProducerIdRequest.self, header, &body, initProducerID))
            case .addPartitionsToTxn:
                return eventLoop.answered(
                    try answer(AddPartitionsToTxnRequest.self, header, &body) { addPartitionsToTxn($0, version: $1, context) })
            case .addOffsetsToTxn: return eventLoop.answered(try answer(AddOffsetsToTxnRequest.self, header, &body, addOffsetsToTxn))
            case .endTxn: return eventLoop.answered(try answer(EndTxnRequest.self, header, &body, endTxn))
            case .txnOffsetCommit:
                return eventLoop.answered(
                    try answer(TxnOffsetCommitRequest.self, header, &body) { txnOffsetCommit($0, version: $1, context) })
            case .alterConfigs:
                return eventLoop.answered(try answer(AlterConfigsRequest.self, header, &body) { alterConfigs($0, version: $1, context) })
            case .incrementalAlterConfigs:
                return eventLoop.answered(
                    try answer(IncrementalAlterConfigsRequest.self, header, &body) { incrementalAlterConfigs($0, version: $1, context) })
            case .findCoordinator:
                return eventLoop.answered(
                    try answer(FindCoordinatorRequest.self, header, &body) { findCoordinator($0, version: $1, context) })
            case .joinGroup:
                let request = try JoinGroupRequest(from: &body, version: header.apiVersion)
                return groups.join(
                    request, version: header.apiVersion, clientID: header.clientID ?? "", clientHost: connection.clientHost, on: eventLoop
                ).map { KafkaResponseFrame(self.encode($0, header)) }
            case .syncGroup:
                let request = try SyncGroupRequest(from: &body, version: header.apiVersion)
                return groups.sync(request, on: eventLoop).map { KafkaResponseFrame(self.encode($0, header)) }
            case .heartbeat: return eventLoop.answered(try answer(HeartbeatRequest.self, header, &body) { request, _ in groups.heartbeat(request) })
            case .leaveGroup: return eventLoop.answered(try answer(LeaveGroupRequest.self, header, &body) { request, _ in groups.leave(request) })
            case .offsetCommit:
                return eventLoop.answered(try answer(OffsetCommitRequest.self, header, &body) { offsetCommit($0, version: $1, context) })
            case .offsetFetch:
                return eventLoop.answered(try answer(OffsetFetchRequest.self, header, &body) { offsetFetch($0, version: $1, context) })
            case .listGroups: return eventLoop.answered(try answer(ListGroupsRequest.self, header, &body, listGroups))
            case .describeGroups: return eventLoop.answered(try answer(DescribeGroupsRequest.self, header, &body, describeGroups))
            case .describeAcls:
                return eventLoop.answered(try answer(DescribeAclsRequest.self, header, &body) { describeAcls($0, version: $1, context) })
            case .createAcls:
                return eventLoop.answered(try answer(CreateAclsRequest.self, header, &body) { createAcls($0, version: $1, context) })
            case .deleteAcls:
                return eventLoop.answered(try answer(DeleteAclsRequest.self, header, &body) { deleteAcls($0, version: $1, context) })
            }
        } catch {
            // A body that cannot be read gets INVALID_REQUEST where the response has a place for
            // one error; other requests end the connection, as Kafka ends it for any of them.
            if let rejection = rejection(of: api, header) { return eventLoop.answered(rejection) }
            return eventLoop.makeFailedFuture(error)
        }
    }

    /// The response with INVALID_REQUEST for a request of `api` whose body could not be read,
    /// when that response carries one error for the whole request; nil when its errors belong
    /// to the topics, partitions or groups the unreadable body named.
    private func rejection(of api: KafkaAPI, _ header: KafkaRequestHeader) -> ByteBuffer? {
        let code = KafkaErrorCode.invalidRequest.rawValue
        let version = header.apiVersion
        switch api {
        case .apiVersions:
            return encode(ApiVersionsResponse(errorCode: code, apiKeys: KafkaAPI.allCases.map(ApiVersionsResponse.APIVersionRange.init)), header)
        case .fetch where version >= 7:
            return encode(FetchResponse(errorCode: code, responses: []), header)
        case .findCoordinator where version < 4:
            return encode(FindCoordinatorResponse(coordinators: [.init(key: "", nodeID: -1, host: "", port: -1, errorCode: code)]), header)
        case .joinGroup:
            return encode(JoinGroupResponse(errorCode: code, protocolName: nil, leader: "", memberID: ""), header)
        case .syncGroup:
            return encode(SyncGroupResponse(errorCode: code, assignment: ByteBuffer()), header)
        case .heartbeat:
            return encode(HeartbeatResponse(errorCode: code), header)
        case .leaveGroup:
            return encode(LeaveGroupResponse(errorCode: code), header)
        case .listGroups:
            return encode(ListGroupsResponse(errorCode: code, groups: []), header)
        case .initProducerID:
            return encode(InitProducerIdResponse(errorCode: code, producerID: -1, producerEpoch: -1), header)
        case .addOffsetsToTxn:
            return encode(AddOffsetsToTxnResponse(errorCode: code), header)
        case .endTxn:
            return encode(EndTxnResponse(errorCode: code), header)
        default:
            return nil
        }
    }

    /// Decodes a request, runs `handler` and encodes its response with the right header.
    private func answer<Request: KafkaRequest>(
        _ type: Request.Type, _ header: KafkaRequestHeader, _ body: inout ByteBuffer,
        _ handler: (Request, Int16) -> Request.Response
    ) throws(KafkaDecodingError) -> ByteBuffer {
        let request = try Request(from: &body, version: header.apiVersion)
        return encode(handler(request, header.apiVersion), header)
    }

    /// The response frame: size prefix, header and body (a fetch's is ``encodeFetch(_:_:)``'s).
    func encode<Response: KafkaResponse>(_ response: Response, _ header: KafkaRequestHeader) -> ByteBuffer {
        var buffer = Self.frameHead(of: Response.self, header, capacity: 256)
        response.write(to: &buffer, version: header.apiVersion)
        return Self.sealed(consume buffer)
    }

    /// A frame's start: a placeholder for its size, and the response header.
    private static func frameHead<Response: KafkaResponse>(of _: Response.Type, _ header: KafkaRequestHeader, capacity: Int) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: capacity)
        buffer.writeInteger(Int32(0))
        KafkaResponseHeader(correlationID: header.correlationID).write(
            to: &buffer, headerVersion: Response.api.responseHeaderVersion(for: header.apiVersion))
        return buffer
    }

    /// A fetch's response frame: its fields encoded, with the records of each partition that
    /// has at least ``splicedRecords`` bytes sent between them as read from the log, not copied.
    private func encodeFetch(_ response: FetchResponse, _ header: KafkaRequestHeader) -> KafkaResponseFrame {
        var buffer = Self.frameHead(of: FetchResponse.self, header, capacity: 512 + 64 * response.responses.count)
        var spliced: [FetchResponse.Splice] = []
        response.write(to: &buffer, version: header.apiVersion, splicing: Self.splicedRecords, spliced: &spliced)
        let size = buffer.readableBytes - 4 + spliced.reduce(0) { $0 + $1.records.readableBytes }
        buffer.setInteger(Int32(size), at: buffer.readerIndex)
        guard !spliced.isEmpty else { return KafkaResponseFrame(buffer) }
        var pieces: [ByteBuffer] = []
        pieces.reserveCapacity(2 * spliced.count + 1)
        var from = buffer.readerIndex
        for splice in spliced {
            pieces.append(buffer.getSlice(at: from, length: splice.at - from)!)
            pieces.append(splice.records)
            from = splice.at
        }
        if buffer.writerIndex > from { pieces.append(buffer.getSlice(at: from, length: buffer.writerIndex - from)!) }
        return KafkaResponseFrame(pieces: pieces)
    }

    /// Records at least this long go out of a fetch answer as their own buffer.
    static let splicedRecords = 16 << 10

    /// Sets the size prefix of a frame built with a placeholder in front.
    /// (Consumed: a frame still referenced elsewhere would be copied whole by the store.)
    private static func sealed(_ frame: consuming ByteBuffer) -> ByteBuffer {
        var frame = frame
        frame.setInteger(Int32(frame.readableBytes - 4), at: frame.readerIndex)
        return frame
    }

    /// The answer to an API or version the broker does not serve. ApiVersions gets a v0
    /// response with UNSUPPORTED_VERSION and the supported ranges (what clients expect, so they
    /// can retry with a version both sides know); anything else a response header and the same
    /// error code, which is where most responses' v0 error code sits.
    private func unsupported(_ header: KafkaRequestHeader) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: 64)
        buffer.writeInteger(Int32(0))
        KafkaResponseHeader(correlationID: header.correlationID).write(to: &buffer, headerVersion: 0)
        if header.apiKey == KafkaAPI.apiVersions.key {
            ApiVersionsResponse(errorCode: KafkaErrorCode.unsupportedVersion.rawValue, apiKeys: KafkaAPI.allCases.map(ApiVersionsResponse.APIVersionRange.init))
                .write(to: &buffer, version: 0)
        } else {
            buffer.writeInteger(KafkaErrorCode.unsupportedVersion.rawValue)
        }
        return Self.sealed(consume buffer)
    }
}
