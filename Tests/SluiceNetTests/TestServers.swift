import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import SluiceCore
import SluiceNet
import Synchronization

/// A certificate authority and a server certificate for `localhost` and 127.0.0.1, made by the
/// `openssl` command (as a user would make them) in a fresh directory.
struct TestCertificates {
    let directory: String
    var caFile: String { "\(directory)/ca.pem" }
    var certificateFile: String { "\(directory)/server.pem" }
    var keyFile: String { "\(directory)/server.key" }

    /// One set per test process, made on first use.
    static func make() throws -> TestCertificates { try shared.get() }

    private static let shared: Result<TestCertificates, any Error> = Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sluice-net-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.pem", "-days", "2", "-subj", "/CN=Sluice test CA"], in: directory)
        try openssl(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=localhost"], in: directory)
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(toFile: "\(directory)/san.ext", atomically: true, encoding: .utf8)
        try openssl(["x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial", "-out", "server.pem",
                     "-days", "2", "-extfile", "san.ext"], in: directory)
        return TestCertificates(directory: directory)
    }

    /// Runs `openssl` and waits with waitpid: Foundation's Process waits through Dispatch, whose
    /// threads the tests' cooperative pool (two on this machine) may all be blocked in.
    private static func openssl(_ arguments: [String], in directory: String) throws {
        let command = "cd '\(directory)' && exec openssl " + arguments.map { "'\($0)'" }.joined(separator: " ")
        let words: [String] = ["sh", "-c", command]
        let argv = words.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var pid: pid_t = 0
        guard posix_spawnp(&pid, "sh", &actions, nil, argv, environ) == 0 else {
            throw SluiceError(.internalError, "could not run openssl")
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        guard status == 0 else { throw SluiceError(.internalError, "openssl \(arguments.joined(separator: " ")) failed") }
    }
}

/// A small HTTP/1.1 server on a loopback port for the client's tests: it answers each request
/// with what `respond` returns (nil: no answer at all), and counts the connections it accepted.
final class TestHTTPServer: Sendable {
    struct Request: Sendable {
        var method: String
        var uri: String
        var headers: [(String, String)]
        var body: [UInt8]
    }

    let channel: any Channel
    var port: Int { channel.localAddress!.port! }

    init(tls: TLSContext? = nil, respond: @escaping @Sendable (Request) -> (status: Int, headers: [(String, String)], body: [UInt8])?) async throws {
        let box = CounterBox()
        channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                box.count.add(1, ordering: .relaxed)
                return channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(TLSHandler(context: tls)) }
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    try channel.pipeline.syncOperations.addHandler(Responder(respond: respond))
                }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        counterBox = box
    }

    private let counterBox: CounterBox
    var accepted: Int { counterBox.count.load(ordering: .relaxed) }

    func stop() async throws { try await channel.close() }

    final class CounterBox: Sendable { let count = Atomic(0) }

    final class Responder: ChannelInboundHandler {
        typealias InboundIn = NIOHTTP1.HTTPServerRequestPart
        typealias OutboundOut = NIOHTTP1.HTTPServerResponsePart
        let respond: @Sendable (Request) -> (status: Int, headers: [(String, String)], body: [UInt8])?
        var request: Request?

        init(respond: @escaping @Sendable (Request) -> (status: Int, headers: [(String, String)], body: [UInt8])?) {
            self.respond = respond
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            switch unwrapInboundIn(data) {
            case .head(let head):
                request = Request(method: head.method.rawValue, uri: head.uri, headers: head.headers.map { ($0.name, $0.value) }, body: [])
            case .body(let buffer):
                request?.body += Array(buffer: buffer)
            case .end:
                guard let request, let answer = respond(request) else { return }
                var headers = NIOHTTP1.HTTPHeaders(answer.headers)
                if !headers.contains(name: "Content-Length") { headers.add(name: "Content-Length", value: String(answer.body.count)) }
                context.write(wrapOutboundOut(.head(NIOHTTP1.HTTPResponseHead(version: .http1_1, status: .init(statusCode: answer.status), headers: headers))), promise: nil)
                if request.method != "HEAD" {
                    context.write(wrapOutboundOut(.body(.byteBuffer(context.channel.allocator.buffer(bytes: answer.body)))), promise: nil)
                }
                context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
            }
        }
    }
}
