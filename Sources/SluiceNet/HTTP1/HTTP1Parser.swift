import NIOCore

/// Why bytes are not an HTTP/1.1 message: a server answers 400 (431 for ``headTooLarge``) and
/// closes; a client fails the request.
package enum HTTP1ParseError: Error, Sendable, Equatable, CustomStringConvertible {
    case headTooLarge(limit: Int)
    case invalidStartLine
    case unsupportedVersion
    case invalidHeaderField
    /// Conflicting or malformed `Content-Length`, or one beside `Transfer-Encoding`.
    case invalidContentLength
    /// A `Transfer-Encoding` whose last coding is not `chunked`.
    case unsupportedTransferEncoding
    case invalidChunk
    /// The connection closed in the middle of a message.
    case truncated

    package var description: String {
        switch self {
        case .headTooLarge(let limit): "the message's head is longer than \(limit) bytes"
        case .invalidStartLine: "a malformed request or status line"
        case .unsupportedVersion: "an HTTP version other than 1.0 or 1.1"
        case .invalidHeaderField: "a malformed header field"
        case .invalidContentLength: "a malformed or conflicting Content-Length"
        case .unsupportedTransferEncoding: "a Transfer-Encoding other than chunked"
        case .invalidChunk: "a malformed chunk"
        case .truncated: "the connection closed in the middle of a message"
        }
    }
}

/// Reads HTTP/1.1 messages (RFC 9112) from a connection's bytes as they arrive: each head, then
/// its body's parts as they come, then its end. Requests on a server, responses on a client
/// (which tells it, request by request, whether the answer can have a body: not for HEAD).
///
/// Strict where leniency lets two readers disagree on where a message ends: CRLF line ends,
/// no space before a field's colon, no folded fields, one `Content-Length` value, never both
/// `Content-Length` and `Transfer-Encoding`.
package struct HTTP1Parser: Sendable {
    package enum Kind: Sendable { case request, response }

    package enum Event: Sendable {
        case requestHead(HTTPRequestHead)
        case responseHead(HTTPResponseHead)
        case body(ByteBuffer)
        case end
    }

    private enum State: Sendable {
        case head
        case fixed(remaining: Int)
        case chunkSize
        case chunkData(remaining: Int)
        case chunkDataEnd
        case trailers
        /// A response without a length: its body runs to the connection's close.
        case untilClose
    }

    let kind: Kind
    /// The longest head (start line and fields) read, and the longest chunk-size line or
    /// trailer section.
    let maximumHeadBytes: Int
    private var state = State.head
    /// How far the current head has been searched for its end.
    private var scanned = 0
    /// For a client: whether each request sent and not yet answered was a HEAD, oldest first.
    private var headRequests: [Bool] = []

    package init(kind: Kind, maximumHeadBytes: Int = 64 << 10) {
        self.kind = kind
        self.maximumHeadBytes = maximumHeadBytes
    }

    /// A client records each request it sends, so that the answer to a HEAD is read without
    /// a body.
    package mutating func requestSent(isHead: Bool) {
        headRequests.append(isHead)
    }

    /// The next event from `buffer`'s readable bytes (consuming them), or nil when it needs more.
    package mutating func next(_ buffer: inout ByteBuffer) throws(HTTP1ParseError) -> Event? {
        switch state {
        case .head:
            return try readHead(&buffer)
        case .fixed(let remaining):
            if remaining == 0 {
                state = .head
                return .end
            }
            guard buffer.readableBytes > 0 else { return nil }
            let count = min(remaining, buffer.readableBytes)
            state = .fixed(remaining: remaining - count)
            return .body(buffer.readSlice(length: count)!)
        case .untilClose:
            guard buffer.readableBytes > 0 else { return nil }
            return .body(buffer.readSlice(length: buffer.readableBytes)!)
        case .chunkSize:
            guard let line = try readLine(&buffer) else { return nil }
            let size = try Self.chunkSize(line)
            state = size == 0 ? .trailers : .chunkData(remaining: size)
            return try next(&buffer)
        case .chunkData(let remaining):
            guard buffer.readableBytes > 0 else { return nil }
            let count = min(remaining, buffer.readableBytes)
            state = count == remaining ? .chunkDataEnd : .chunkData(remaining: remaining - count)
            return .body(buffer.readSlice(length: count)!)
        case .chunkDataEnd:
            guard buffer.readableBytes >= 2 else { return nil }
            guard buffer.readInteger(as: UInt16.self) == 0x0D0A else { throw .invalidChunk }
            state = .chunkSize
            return try next(&buffer)
        case .trailers:
            // Trailer fields are read past, not kept.
            guard let line = try readLine(&buffer) else { return nil }
            if line.isEmpty {
                state = .head
                return .end
            }
            return try next(&buffer)
        }
    }

    /// At the connection's close: the end of a body read to the close, nil between messages.
    /// - Throws: ``HTTP1ParseError/truncated`` in the middle of any other message.
    package mutating func finish(_ buffer: inout ByteBuffer) throws(HTTP1ParseError) -> Event? {
        if case .untilClose = state {
            if buffer.readableBytes > 0 { return .body(buffer.readSlice(length: buffer.readableBytes)!) }
            state = .head
            return .end
        }
        if case .head = state, buffer.readableBytes == 0 { return nil }
        throw .truncated
    }

    // MARK: - Heads

    private mutating func readHead(_ buffer: inout ByteBuffer) throws(HTTP1ParseError) -> Event? {
        // Empty lines before a message are read past (RFC 9112 §2.2: some clients send a CRLF
        // after a body).
        while scanned == 0, buffer.readableBytes >= 2, buffer.getInteger(at: buffer.readerIndex, as: UInt16.self) == 0x0D0A {
            buffer.moveReaderIndex(forwardBy: 2)
        }
        guard let length = findHeadEnd(buffer) else {
            if buffer.readableBytes > maximumHeadBytes { throw .headTooLarge(limit: maximumHeadBytes) }
            scanned = max(0, buffer.readableBytes - 3)
            return nil
        }
        scanned = 0
        let bytes = buffer.readBytes(length: length + 4)!
        var lines = Self.lines(bytes[0 ..< length])
        guard !lines.isEmpty else { throw .invalidStartLine }
        let start = lines.removeFirst()
        var headers = HTTPHeaders()
        for line in lines { try Self.field(line, into: &headers) }
        switch kind {
        case .request:
            let (method, uri, version) = try Self.requestLine(start)
            let head = HTTPRequestHead(version: version, method: method, uri: uri, headers: headers)
            state = try Self.requestFraming(headers)
            return .requestHead(head)
        case .response:
            let (version, status) = try Self.statusLine(start)
            // 1xx answers (100 Continue) are dropped: the real answer follows. (101 would
            // switch protocols, which this client never asks for.)
            if status.code >= 100 && status.code < 200 && status.code != 101 { return try readHead(&buffer) }
            let isHead = headRequests.isEmpty ? false : headRequests.removeFirst()
            let head = HTTPResponseHead(version: version, status: status, headers: headers)
            if isHead || status.code < 200 || status.code == 204 || status.code == 304 {
                state = .fixed(remaining: 0)
            } else {
                state = try Self.responseFraming(headers)
            }
            return .responseHead(head)
        }
    }

    /// The offset of the CRLFCRLF that ends the head, searching on from where the last call stopped.
    private func findHeadEnd(_ buffer: ByteBuffer) -> Int? {
        buffer.withUnsafeReadableBytes { bytes -> Int? in
            var index = scanned
            let limit = min(bytes.count, maximumHeadBytes + 4)
            while index + 3 < limit {
                if bytes[index + 3] != 0x0A {
                    index += bytes[index + 3] == 0x0D ? 1 : 4
                    continue
                }
                if bytes[index] == 0x0D && bytes[index + 1] == 0x0A && bytes[index + 2] == 0x0D { return index }
                index += 1
            }
            return nil
        }
    }

    /// The head's lines, split at CRLF (a bare CR or LF inside a line is refused later).
    private static func lines(_ bytes: ArraySlice<UInt8>) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = bytes.startIndex
        var index = bytes.startIndex
        while index < bytes.endIndex {
            if bytes[index] == 0x0D && index + 1 < bytes.endIndex && bytes[index + 1] == 0x0A {
                lines.append(bytes[start ..< index])
                index += 2
                start = index
            } else {
                index += 1
            }
        }
        lines.append(bytes[start ..< bytes.endIndex])
        return lines
    }

    /// RFC 9110's token characters (methods and field names).
    private static func isToken(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a") ... UInt8(ascii: "z"), UInt8(ascii: "A") ... UInt8(ascii: "Z"), UInt8(ascii: "0") ... UInt8(ascii: "9"):
            return true
        default:
            switch byte {
            case UInt8(ascii: "!"), UInt8(ascii: "#"), UInt8(ascii: "$"), UInt8(ascii: "%"), UInt8(ascii: "&"), UInt8(ascii: "'"),
                UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "^"), UInt8(ascii: "_"),
                UInt8(ascii: "`"), UInt8(ascii: "|"), UInt8(ascii: "~"):
                return true
            default:
                return false
            }
        }
    }

    private static func version(_ bytes: ArraySlice<UInt8>) throws(HTTP1ParseError) -> HTTPVersion {
        let text = Array(bytes)
        guard text.count == 8, text[0 ..< 5].elementsEqual("HTTP/".utf8), text[6] == UInt8(ascii: ".") else { throw .invalidStartLine }
        guard text[5] == UInt8(ascii: "1"), text[7] == UInt8(ascii: "0") || text[7] == UInt8(ascii: "1") else { throw .unsupportedVersion }
        return HTTPVersion(major: 1, minor: Int(text[7] - UInt8(ascii: "0")))
    }

    private static func requestLine(_ line: ArraySlice<UInt8>) throws(HTTP1ParseError) -> (HTTPMethod, String, HTTPVersion) {
        let parts = line.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, parts[0].allSatisfy(isToken) else { throw .invalidStartLine }
        // The target: visible ASCII only (no controls, spaces or raw UTF-8).
        guard parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { throw .invalidStartLine }
        let version = try version(parts[2])
        return (HTTPMethod(rawValue: String(decoding: parts[0], as: UTF8.self)), String(decoding: parts[1], as: UTF8.self), version)
    }

    private static func statusLine(_ line: ArraySlice<UInt8>) throws(HTTP1ParseError) -> (HTTPVersion, HTTPResponseStatus) {
        let parts = line.split(separator: UInt8(ascii: " "), maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[1].count == 3, parts[1].allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { throw .invalidStartLine }
        let version = try version(parts[0])
        var code = 0
        for digit in parts[1] { code = code * 10 + Int(digit - 0x30) }
        let reason = parts.count == 3 ? String(decoding: parts[2], as: UTF8.self) : ""
        return (version, HTTPResponseStatus(statusCode: code, reasonPhrase: reason))
    }

    private static func field(_ line: ArraySlice<UInt8>, into headers: inout HTTPHeaders) throws(HTTP1ParseError) {
        guard let colon = line.firstIndex(of: UInt8(ascii: ":")), colon > line.startIndex else { throw .invalidHeaderField }
        let name = line[line.startIndex ..< colon]
        // (A space before the colon, or a line folded onto the one before, is refused.)
        guard name.allSatisfy(isToken) else { throw .invalidHeaderField }
        var value = line[(colon + 1)...]
        while let first = value.first, first == 0x20 || first == 0x09 { value = value.dropFirst() }
        while let last = value.last, last == 0x20 || last == 0x09 { value = value.dropLast() }
        // Field values: visible characters, spaces, tabs and obs-text; no controls (CR, LF, NUL).
        guard value.allSatisfy({ $0 >= 0x20 && $0 != 0x7F || $0 == 0x09 }) else { throw .invalidHeaderField }
        headers.add(name: String(decoding: name, as: UTF8.self), value: String(decoding: value, as: UTF8.self))
    }

    // MARK: - Framing

    private static func requestFraming(_ headers: HTTPHeaders) throws(HTTP1ParseError) -> State {
        if let chunked = try transferChunked(headers) {
            // A request's body has a length or is chunked; nothing else says where it ends.
            guard chunked else { throw .unsupportedTransferEncoding }
            return .chunkSize
        }
        return .fixed(remaining: try contentLength(headers) ?? 0)
    }

    private static func responseFraming(_ headers: HTTPHeaders) throws(HTTP1ParseError) -> State {
        if let chunked = try transferChunked(headers) { return chunked ? .chunkSize : .untilClose }
        if let length = try contentLength(headers) { return .fixed(remaining: length) }
        return .untilClose
    }

    /// Whether the message's last transfer coding is `chunked`; nil without `Transfer-Encoding`.
    private static func transferChunked(_ headers: HTTPHeaders) throws(HTTP1ParseError) -> Bool? {
        let codings = headers["transfer-encoding"].flatMap { $0.split(separator: ",") }.map { $0.trimmingSpaces.lowercased() }
        guard !codings.isEmpty else { return nil }
        if headers.contains(name: "content-length") { throw .invalidContentLength }
        return codings.last == "chunked"
    }

    /// The one `Content-Length` (repeated values must agree), nil without one.
    private static func contentLength(_ headers: HTTPHeaders) throws(HTTP1ParseError) -> Int? {
        var length: Int?
        for value in headers["content-length"] {
            for part in value.split(separator: ",", omittingEmptySubsequences: false) {
                let digits = part.trimmingSpaces
                guard !digits.isEmpty, digits.utf8.count <= 18, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let parsed = Int(digits)
                else { throw .invalidContentLength }
                if let length, length != parsed { throw .invalidContentLength }
                length = parsed
            }
        }
        return length
    }

    // MARK: - Chunks

    /// One CRLF-ended line (a chunk size or a trailer field), nil until it is all there.
    private func readLine(_ buffer: inout ByteBuffer) throws(HTTP1ParseError) -> [UInt8]? {
        let end = buffer.withUnsafeReadableBytes { bytes -> Int? in
            var index = 0
            while index + 1 < bytes.count {
                if bytes[index] == 0x0D && bytes[index + 1] == 0x0A { return index }
                index += 1
            }
            return nil
        }
        guard let end else {
            if buffer.readableBytes > maximumHeadBytes { throw .invalidChunk }
            return nil
        }
        if end > maximumHeadBytes { throw .invalidChunk }
        let line = buffer.readBytes(length: end)!
        buffer.moveReaderIndex(forwardBy: 2)
        return line
    }

    /// A chunk-size line's size (hex, before any `;extension`).
    private static func chunkSize(_ line: [UInt8]) throws(HTTP1ParseError) -> Int {
        var size = 0
        var digits = 0
        for byte in line {
            let value: Int
            switch byte {
            case UInt8(ascii: "0") ... UInt8(ascii: "9"): value = Int(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a") ... UInt8(ascii: "f"): value = Int(byte - UInt8(ascii: "a")) + 10
            case UInt8(ascii: "A") ... UInt8(ascii: "F"): value = Int(byte - UInt8(ascii: "A")) + 10
            case UInt8(ascii: ";"), UInt8(ascii: " "), UInt8(ascii: "\t"):
                guard digits > 0 else { throw .invalidChunk }
                return size
            default:
                throw .invalidChunk
            }
            digits += 1
            // (Fifteen hex digits: far past any body a bound lets through, and no overflow.)
            guard digits <= 15 else { throw .invalidChunk }
            size = size * 16 + value
        }
        guard digits > 0 else { throw .invalidChunk }
        return size
    }
}
