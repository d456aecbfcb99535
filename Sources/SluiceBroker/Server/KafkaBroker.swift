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
    private let channel = Mutex<(any Channel)?>(nil)
    private let boundPort: Mutex<Int>

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
    }

    /// Stops accepting connections and syncs every log.
    package func shutdown() async {
        let channel = self.channel.withLock { current in
            defer { current = nil }
            return current
        }
        try? await channel?.close()
        for name in topics.names {
            for log in topics.logs(of: name) { try? log.sync() }
        }
    }

    /// Answers one request frame: the response bytes (without the size prefix), nil when the
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
                return fetch(request, version: header.apiVersion, on: eventLoop).map { self.encode($0, header) }
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
            return eventLoop.makeFailedFuture(error)
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

    func encode<Response: KafkaResponse>(_ response: Response, _ header: KafkaRequestHeader) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: 256)
        let api = Response.api
        KafkaResponseHeader(correlationID: header.correlationID).write(
            to: &buffer, headerVersion: api.responseHeaderVersion(for: header.apiVersion))
        response.write(to: &buffer, version: header.apiVersion)
        return buffer
    }

    /// The answer to an API or version the broker does not serve. ApiVersions gets a v0
    /// response with UNSUPPORTED_VERSION and the supported ranges (what clients expect, so they
    /// can retry with a version both sides know); anything else a response header and the same
    /// error code, which is where most responses' v0 error code sits.
    private func unsupported(_ header: KafkaRequestHeader) -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: 64)
        KafkaResponseHeader(correlationID: header.correlationID).write(to: &buffer, headerVersion: 0)
        if header.apiKey == KafkaAPI.apiVersions.key {
            ApiVersionsResponse(errorCode: KafkaErrorCode.unsupportedVersion.rawValue, apiKeys: KafkaAPI.allCases.map(ApiVersionsResponse.APIVersionRange.init))
                .write(to: &buffer, version: 0)
        } else {
            buffer.writeInteger(KafkaErrorCode.unsupportedVersion.rawValue)
        }
        return buffer
    }
}
