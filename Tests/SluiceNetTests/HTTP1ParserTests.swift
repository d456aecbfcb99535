import NIOCore
import SluiceCore
import SluiceNet
import Testing

/// The HTTP/1.1 parser (RFC 9112): heads, bodies by length, chunks and the close, the answers
/// that have none, the messages it must refuse, and the same events whatever way the bytes are
/// split. (Its server and client run against real peers in the server's and the client's tests:
/// NIO's own HTTP server, curl, Python's clients, `ab`, pyiceberg.)
@Suite struct HTTP1ParserTests {
    /// One event as text, to compare runs.
    static func describe(_ event: HTTP1Parser.Event) -> String {
        switch event {
        case .requestHead(let head):
            return "request \(head.method) \(head.uri) \(head.version) [\(head.headers)] keepAlive=\(head.isKeepAlive)"
        case .responseHead(let head):
            return "response \(head.status.code) \(head.version) [\(head.headers)]"
        case .body(let buffer):
            return "body " + String(buffer: buffer)
        case .end:
            return "end"
        }
    }

    /// The events of `bytes` fed in pieces of `piece` bytes (0: whole), bodies joined, then the
    /// close; or the error.
    static func events(
        _ bytes: [UInt8], kind: HTTP1Parser.Kind, piece: Int = 0, heads: [Bool] = []
    ) -> Result<[String], HTTP1ParseError> {
        var parser = HTTP1Parser(kind: kind, maximumHeadBytes: 1024)
        for isHead in heads { parser.requestSent(isHead: isHead) }
        var buffer = ByteBuffer()
        var out: [String] = []
        func add(_ event: HTTP1Parser.Event) {
            let text = describe(event)
            if text.hasPrefix("body "), let last = out.last, last.hasPrefix("body ") {
                out[out.count - 1] = last + text.dropFirst(5)
            } else {
                out.append(text)
            }
        }
        let size = piece == 0 ? max(1, bytes.count) : piece
        do throws(HTTP1ParseError) {
            var offset = 0
            while offset < bytes.count {
                buffer.writeBytes(bytes[offset ..< min(bytes.count, offset + size)])
                offset += size
                while let event = try parser.next(&buffer) { add(event) }
            }
            while let event = try parser.finish(&buffer) {
                add(event)
                if case .end = event { break }
            }
            return .success(out)
        } catch {
            return .failure(error)
        }
    }

    static func request(_ text: String, piece: Int = 0) -> Result<[String], HTTP1ParseError> {
        events(Array(text.utf8), kind: .request, piece: piece)
    }

    @Test func requestsByLengthChunksAndNone() throws {
        let text = "GET /a?b=1 HTTP/1.1\r\nHost: x\r\n\r\n"
            + "POST /p HTTP/1.1\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello"
            + "\r\n"  // a stray CRLF between messages is read past
            + "PUT /c HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n5;ext=1\r\nhello\r\nA\r\n, world!!!\r\n0\r\nTrailer: t\r\n\r\n"
            + "GET /old HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"
            + "GET /bye HTTP/1.1\r\nConnection: Close\r\n\r\n"
        let expected = [
            "request GET /a?b=1 HTTP/1.1 [Host: x] keepAlive=true", "end",
            "request POST /p HTTP/1.1 [Content-Length: 5; Content-Type: text/plain] keepAlive=true", "body hello", "end",
            "request PUT /c HTTP/1.1 [Transfer-Encoding: gzip, chunked] keepAlive=true", "body hello, world!!!", "end",
            "request GET /old HTTP/1.0 [Connection: keep-alive] keepAlive=true", "end",
            "request GET /bye HTTP/1.1 [Connection: Close] keepAlive=false", "end",
        ]
        // Whole, and split at every size down to one byte at a time: the same events.
        for piece in [0, 1, 2, 3, 5, 7, 64] {
            #expect(try Self.request(text, piece: piece).get() == expected, "pieces of \(piece)")
        }
        // HTTP/1.0 closes by default.
        #expect(try Self.request("GET / HTTP/1.0\r\n\r\n").get() == ["request GET / HTTP/1.0 [] keepAlive=false", "end"])
        // Field values lose their surrounding spaces, keep inner ones; names keep their case.
        #expect(try Self.request("GET / HTTP/1.1\r\nX-A:  one two \t\r\n\r\n").get().first == "request GET / HTTP/1.1 [X-A: one two] keepAlive=true")
    }

    @Test func malformedRequestsAreRefused() {
        let cases: [(String, HTTP1ParseError)] = [
            ("GARBAGE\r\n\r\n", .invalidStartLine),
            ("GET  / HTTP/1.1\r\n\r\n", .invalidStartLine),
            ("GET / HTTP/1.1 extra\r\n\r\n", .invalidStartLine),
            ("G(T / HTTP/1.1\r\n\r\n", .invalidStartLine),
            ("GET /\u{01} HTTP/1.1\r\n\r\n", .invalidStartLine),
            ("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", .unsupportedVersion),
            ("GET / HTTP/1.1\r\nHost : x\r\n\r\n", .invalidHeaderField),
            ("GET / HTTP/1.1\r\nA: 1\r\n folded\r\n\r\n", .invalidHeaderField),
            ("GET / HTTP/1.1\r\nNoColon\r\n\r\n", .invalidHeaderField),
            ("GET / HTTP/1.1\r\n: empty\r\n\r\n", .invalidHeaderField),
            ("GET / HTTP/1.1\r\nA: b\u{00}c\r\n\r\n", .invalidHeaderField),
            ("GET / HTTP/1.1\nHost: x\n\n\r\n\r\n", .invalidStartLine),
            ("POST / HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello", .invalidContentLength),
            ("POST / HTTP/1.1\r\nContent-Length: -1\r\n\r\n", .invalidContentLength),
            ("POST / HTTP/1.1\r\nContent-Length: 0x10\r\n\r\n", .invalidContentLength),
            ("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999999\r\n\r\n", .invalidContentLength),
            ("POST / HTTP/1.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", .invalidContentLength),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", .unsupportedTransferEncoding),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n", .invalidChunk),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabcX\r\n", .invalidChunk),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n1000000000000000\r\n", .invalidChunk),
            ("POST / HTTP/1.1\r\nContent-Length: 10\r\n\r\nshort", .truncated),
        ]
        for (text, error) in cases {
            #expect(Self.request(text) == .failure(error), "\(text.debugDescription)")
            #expect(Self.request(text, piece: 1) == .failure(error), "\(text.debugDescription), a byte at a time")
        }
        // A head past the bound, with or without its end in sight.
        let long = "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 2000)
        #expect(Self.request(long) == .failure(.headTooLarge(limit: 1024)))
        #expect(Self.request(long + "\r\n\r\n") == .failure(.headTooLarge(limit: 1024)))
    }

    @Test func answersWithAndWithoutBodies() throws {
        func response(_ text: String, heads: [Bool] = [], piece: Int = 0) -> Result<[String], HTTP1ParseError> {
            Self.events(Array(text.utf8), kind: .response, piece: piece, heads: heads)
        }
        for piece in [0, 1, 4] {
            // 100 Continue is dropped; the answer to a HEAD has no body whatever its length says;
            // 204 and 304 have none; chunks; and a body without a length runs to the close.
            let text = "HTTP/1.1 100 Continue\r\n\r\n"
                + "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n"
                + "HTTP/1.1 204 No Content\r\n\r\n"
                + "HTTP/1.1 304 Not Modified\r\nContent-Length: 7\r\n\r\n"
                + "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nab\r\n0\r\n\r\n"
                + "HTTP/1.0 200 OK\r\n\r\nto the end"
            #expect(try response(text, heads: [true, false, false, false, false], piece: piece).get() == [
                "response 200 HTTP/1.1 [Content-Length: 12]", "end",
                "response 204 HTTP/1.1 []", "end",
                "response 304 HTTP/1.1 [Content-Length: 7]", "end",
                "response 201 HTTP/1.1 [Transfer-Encoding: chunked]", "body ab", "end",
                "response 200 HTTP/1.0 []", "body to the end", "end",
            ], "pieces of \(piece)")
        }
        #expect(try response("HTTP/1.1 404 \r\nContent-Length: 2\r\n\r\nno").get() == ["response 404 HTTP/1.1 [Content-Length: 2]", "body no", "end"])
        #expect(response("HTTP/1.1 2000 OK\r\n\r\n") == .failure(.invalidStartLine))
        #expect(response("ICY 200 OK\r\n\r\n") == .failure(.invalidStartLine))
        #expect(response("HTTP/1.1 200 OK\r\nContent-Length: 9\r\n\r\ncut") == .failure(.truncated))
    }

    /// Valid messages mangled at random, fed in random pieces: never a crash or a hang, each
    /// run parses or throws, and the same bytes give the same outcome however they are split.
    @Test func randomBytesAreParsedOrRefused() {
        var generator = SplitMix64(seed: 9112)
        let seeds = [
            "POST /p?q HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhelloGET / HTTP/1.1\r\n\r\n",
            "PUT /c HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n5;x\r\nhello\r\n0\r\nT: 1\r\n\r\n",
            "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\nHTTP/1.0 200 OK\r\n\r\nrest",
        ]
        for round in 0 ..< 1500 {
            let seed = seeds[round % seeds.count]
            var bytes = Array(seed.utf8)
            for _ in 0 ... Int(generator.next() % 6) {
                let index = Int(generator.next() % UInt64(bytes.count))
                switch generator.next() % 4 {
                case 0: bytes[index] = UInt8(truncatingIfNeeded: generator.next())
                case 1: bytes.remove(at: index)
                case 2: bytes.insert(contentsOf: [UInt8](repeating: bytes[index], count: Int(generator.next() % 40) + 1), at: index)
                default: bytes.insert(UInt8(truncatingIfNeeded: generator.next()), at: index)
                }
                if bytes.isEmpty { bytes = [0x0D] }
            }
            let kind: HTTP1Parser.Kind = seed.hasPrefix("HTTP/") ? .response : .request
            let whole = Self.events(bytes, kind: kind)
            let split = Self.events(bytes, kind: kind, piece: Int(generator.next() % 9) + 1)
            #expect(whole == split, "round \(round): \(String(decoding: bytes, as: UTF8.self).debugDescription)")
        }
    }
}
