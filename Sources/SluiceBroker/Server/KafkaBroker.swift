import Foundation
import NIOCore
import NIOPosix
import SluiceKafkaProtocol
import Synchronization

/// The built-in Kafka-compatible broker: one node that leads every partition, serving the
/// Kafka protocol over TCP with topics stored by ``TopicStore``.
///
/// Requests are decoded and answered on the connection's event loop; a Fetch that must wait for
/// data (`min_bytes`, `max_wait_ms`) is answered later from a scheduled re-check, so it holds
/// no thread.
package final class KafkaBroker: Sendable {
    package let configuration: BrokerConfiguration
    package let topics: TopicStore
    let producers: ProducerRegistry
    let groups: GroupCoordinator
    /// Records and bytes produced and fetched, per topic.
    package let traffic = BrokerTraffic()
    private let channel = Mutex<(any Channel)?>(nil)
    private let boundPort: Mutex<Int>
    /// The retention check and, under the interval flush policy, the flush timer.
    private let maintenance = Mutex<[RepeatedTask]>([])

    /// Opens the broker's storage (recovering every partition) without listening yet.
    package init(configuration: BrokerConfiguration) throws {
        self.configuration = configuration
        self.topics = try TopicStore(directory: configuration.dataDirectory, logConfiguration: configuration.log)
        self.producers = try ProducerRegistry(directory: configuration.dataDirectory)
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
        self.groups = try GroupCoordinator(directory: configuration.dataDirectory, timers: MultiThreadedEventLoopGroup.singleton.next())
        self.boundPort = Mutex(configuration.port)
    }

    /// The port the broker listens on (after binding port 0, the one chosen).
    package var port: Int { boundPort.withLock { $0 } }

    /// The host clients are told to connect to.
    var advertisedHost: String { configuration.advertisedHost ?? (configuration.host == "0.0.0.0" ? "127.0.0.1" : configuration.host) }

    /// Binds and starts serving.
    package func start(group: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton) async throws {
        let maxFrameBytes = configuration.maxRequestBytes
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandlers([
                        ByteToMessageHandler(KafkaFrameDecoder(maxFrameBytes: maxFrameBytes)),
                        KafkaConnectionHandler(broker: self),
                    ])
                }
            }
            .bind(host: configuration.host, port: configuration.port)
            .get()
        self.channel.withLock { $0 = channel }
        boundPort.withLock { $0 = channel.localAddress?.port ?? configuration.port }
        startMaintenance()
    }

    /// Starts the timers that apply retention and flush on interval, off the event loops (they
    /// delete files and fsync).
    private func startMaintenance() {
        let queue = DispatchQueue(label: "sluice.broker.maintenance")
        let timers = MultiThreadedEventLoopGroup.singleton.next()
        var tasks: [RepeatedTask] = []
        func every(_ milliseconds: Int, _ work: @escaping @Sendable () -> Void) {
            let interval = TimeAmount.milliseconds(Int64(max(1, milliseconds)))
            tasks.append(timers.scheduleRepeatedTask(initialDelay: interval, delay: interval) { _ in queue.async(execute: work) })
        }
        let topics = self.topics
        every(configuration.retentionCheckIntervalMilliseconds) {
            topics.enforceRetention(nowMilliseconds: Int64(Date().timeIntervalSince1970 * 1000))
        }
        if case .interval(let milliseconds) = configuration.log.flush {
            every(milliseconds) { topics.syncDue() }
        }
        maintenance.withLock { $0 = tasks }
    }

    /// Stops accepting connections and syncs every log.
    package func shutdown() async {
        let channel = self.channel.withLock { current in
            defer { current = nil }
            return current
        }
        try? await channel?.close()
        for timer in maintenance.withLock({ timers in defer { timers = [] }; return timers }) { timer.cancel() }
        for name in topics.names {
            for log in topics.logs(of: name) { try? log.sync() }
        }
    }

    /// Answers one request frame: the response frame, its size prefix included, nil when the
    /// request wants none (Produce with acks=0), or a failed future when the request cannot be
    /// read (the connection is then closed, as Kafka does).
    func handle(_ frame: ByteBuffer, clientHost: String = "", on eventLoop: any EventLoop) -> EventLoopFuture<ByteBuffer?> {
        var body = frame
        let header: KafkaRequestHeader
        do {
            header = try KafkaRequestHeader(from: &body)
        } catch {
            return eventLoop.makeFailedFuture(error)
        }
        guard let api = header.api, api.supportedVersions.contains(header.apiVersion) else {
            return eventLoop.makeSucceededFuture(unsupported(header))
        }
        do {
            switch api {
            case .apiVersions: return eventLoop.makeSucceededFuture(try answer(ApiVersionsRequest.self, header, &body, apiVersions))
            case .metadata: return eventLoop.makeSucceededFuture(try answer(MetadataRequest.self, header, &body, metadata))
            case .produce:
                let request = try ProduceRequest(from: &body, version: header.apiVersion)
                let response = produce(request, version: header.apiVersion)
                return eventLoop.makeSucceededFuture(request.acks == 0 ? nil : encode(response, header))
            case .fetch:
                let request = try FetchRequest(from: &body, version: header.apiVersion)
                return fetch(request, version: header.apiVersion, on: eventLoop).map { response in
                    self.encode(response, header, capacity: 512 + response.recordBytes)
                }
            case .listOffsets: return eventLoop.makeSucceededFuture(try answer(ListOffsetsRequest.self, header, &body, listOffsets))
            case .createTopics: return eventLoop.makeSucceededFuture(try answer(CreateTopicsRequest.self, header, &body, createTopics))
            case .deleteTopics: return eventLoop.makeSucceededFuture(try answer(DeleteTopicsRequest.self, header, &body, deleteTopics))
            case .createPartitions:
                return eventLoop.makeSucceededFuture(try answer(CreatePartitionsRequest.self, header, &body, createPartitions))
            case .describeConfigs:
                return eventLoop.makeSucceededFuture(try answer(DescribeConfigsRequest.self, header, &body, describeConfigs))
            case .initProducerID: return eventLoop.makeSucceededFuture(try answer(InitProducerIdRequest.self, header, &body, initProducerID))
            case .findCoordinator: return eventLoop.makeSucceededFuture(try answer(FindCoordinatorRequest.self, header, &body, findCoordinator))
            case .joinGroup:
                let request = try JoinGroupRequest(from: &body, version: header.apiVersion)
                return groups.join(request, version: header.apiVersion, clientID: header.clientID ?? "", clientHost: clientHost, on: eventLoop)
                    .map { self.encode($0, header) }
            case .syncGroup:
                let request = try SyncGroupRequest(from: &body, version: header.apiVersion)
                return groups.sync(request, on: eventLoop).map { self.encode($0, header) }
            case .heartbeat: return eventLoop.makeSucceededFuture(try answer(HeartbeatRequest.self, header, &body) { request, _ in groups.heartbeat(request) })
            case .leaveGroup: return eventLoop.makeSucceededFuture(try answer(LeaveGroupRequest.self, header, &body) { request, _ in groups.leave(request) })
            case .offsetCommit: return eventLoop.makeSucceededFuture(try answer(OffsetCommitRequest.self, header, &body, offsetCommit))
            case .offsetFetch: return eventLoop.makeSucceededFuture(try answer(OffsetFetchRequest.self, header, &body, offsetFetch))
            case .listGroups: return eventLoop.makeSucceededFuture(try answer(ListGroupsRequest.self, header, &body, listGroups))
            case .describeGroups: return eventLoop.makeSucceededFuture(try answer(DescribeGroupsRequest.self, header, &body, describeGroups))
            }
        } catch {
            // A body that cannot be read gets INVALID_REQUEST where the response has a place for
            // one error; other requests end the connection, as Kafka ends it for any of them.
            if let rejection = rejection(of: api, header) { return eventLoop.makeSucceededFuture(rejection) }
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

    /// The response frame: size prefix, header and body. `capacity` sizes the buffer up front, so
    /// large fetches are not copied while it grows.
    func encode<Response: KafkaResponse>(_ response: Response, _ header: KafkaRequestHeader, capacity: Int = 256) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: capacity)
        buffer.writeInteger(Int32(0))
        let api = Response.api
        KafkaResponseHeader(correlationID: header.correlationID).write(
            to: &buffer, headerVersion: api.responseHeaderVersion(for: header.apiVersion))
        response.write(to: &buffer, version: header.apiVersion)
        return Self.sealed(buffer)
    }

    /// Sets the size prefix of a frame built with a placeholder in front.
    private static func sealed(_ frame: ByteBuffer) -> ByteBuffer {
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
        return Self.sealed(buffer)
    }
}
