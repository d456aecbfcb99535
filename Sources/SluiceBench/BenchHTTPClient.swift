#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import SluiceCore
import SluiceNet

/// A keep-alive HTTP/1.1 client over a blocking loopback socket, for benchmarks that time
/// requests from threads of their own: answers are read with our HTTP/1.1 parser (by length,
/// chunked, or to the close), and a body may be handed over as it arrives.
final class BenchHTTPClient {
    private let socket: Int32
    private var parser = HTTP1Parser(kind: .response)
    private var buffer = ByteBuffer()
    private var scratch = [UInt8](repeating: 0, count: 64 << 10)
    private let what: String

    init(port: Int, what: String) throws(SluiceError) {
        self.what = what
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(socket)
            throw SluiceError(.ioError, "could not connect to the \(what)")
        }
        var one: Int32 = 1
        setsockopt(socket, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
    }

    deinit { Glibc.close(socket) }

    /// Sends a request and reads its answer whole: the status and the body.
    func request(_ method: String, _ path: String, body: [UInt8] = [], headers: [(String, String)] = []) throws(SluiceError) -> (status: Int, body: [UInt8]) {
        var received: [UInt8] = []
        let status = try request(method, path, body: body, headers: headers) { received += $0 }
        return (status, received)
    }

    /// Sends a request and hands its body to `onBody` piece by piece as it arrives; the status.
    func request(
        _ method: String, _ path: String, body: [UInt8] = [], headers: [(String, String)] = [], onBody: (ByteBufferView) -> Void
    ) throws(SluiceError) -> Int {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \(body.count)\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        try send(Array(head.utf8) + body)
        parser.requestSent(isHead: method == "HEAD")
        var status = 0
        while true {
            let event: HTTP1Parser.Event?
            do {
                event = try parser.next(&buffer)
            } catch {
                throw SluiceError(.ioError, "the \(what) sent a malformed answer: \(error)")
            }
            switch event {
            case .responseHead(let head)?: status = Int(head.status.code)
            case .body(let piece)?: onBody(piece.readableBytesView)
            case .end?: return status
            case .requestHead?: throw SluiceError(.ioError, "the \(what) sent a request")
            case nil:
                let count = recv(socket, &scratch, scratch.count, 0)
                guard count > 0 else { throw SluiceError(.ioError, "the \(what) closed the connection") }
                buffer.discardReadBytes()
                buffer.writeBytes(scratch[0 ..< count])
            }
        }
    }

    private func send(_ bytes: [UInt8]) throws(SluiceError) {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw SluiceError(.ioError, "could not send to the \(what)") }
            offset += sent
        }
    }
}
