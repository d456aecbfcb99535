#if canImport(Glibc)
import Glibc
#endif
import CLibPQ
import SluiceCore

/// The streaming replication protocol's calls on a connection made with `replication =
/// database` (``PostgresConnectionSettings/replication``): the COPY BOTH stream that
/// `START_REPLICATION` opens, read a message at a time without blocking past a timeout, and the
/// standby's messages written back on it.
extension PostgresConnection {
    /// What ``receive(timeout:_:)`` got.
    package enum Received {
        /// One CopyData message of the stream (an XLogData or a keepalive), handed to the body.
        case message
        /// Nothing within the timeout.
        case idle
        /// The server ended the stream.
        case ended
    }

    /// Runs a replication command (`START_REPLICATION …`) that opens a COPY BOTH stream.
    package func startStreaming(_ command: String) throws(SluiceError) {
        let connection = try open()
        guard let result = libpq.PQexec(connection, command) else { throw lostConnection(connection) }
        guard libpq.PQresultStatus(result) == PGRES_COPY_BOTH else {
            _ = try Self.take(result, on: connection, for: command)
            throw SluiceError(.internalError, "PostgreSQL did not start streaming for: \(command)")
        }
        libpq.PQclear(result)
    }

    /// The next message of the stream, waiting at most `timeout` for one: `body` reads it in
    /// libpq's buffer, valid only during the call (no copy per message).
    package func receive(timeout: Duration, _ body: (UnsafeRawBufferPointer) throws(SluiceError) -> Void) throws(SluiceError) -> Received {
        let connection = try open()
        var buffer: UnsafeMutablePointer<CChar>?
        var length = libpq.PQgetCopyData(connection, &buffer, 1)
        if length == 0 {
            // Nothing buffered: wait for the socket, then read what came.
            var descriptor = pollfd(fd: libpq.PQsocket(connection), events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(clamping: timeout.components.seconds * 1000 + timeout.components.attoseconds / 1_000_000_000_000_000)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0 && errno != EINTR { throw lostConnection(connection) }
            if ready <= 0 { return .idle }
            guard libpq.PQconsumeInput(connection) == 1 else { throw lostConnection(connection) }
            length = libpq.PQgetCopyData(connection, &buffer, 1)
        }
        if length > 0, let buffer {
            defer { libpq.PQfreemem(buffer) }
            try body(UnsafeRawBufferPointer(start: buffer, count: Int(length)))
            return .message
        }
        if length == 0 { return .idle }
        if length == -1 {
            // The stream ended: its command's result says how.
            while let result = libpq.PQgetResult(connection) {
                let status = libpq.PQresultStatus(result)
                if status != PGRES_COMMAND_OK && status != PGRES_COPY_OUT && status != PGRES_COPY_BOTH {
                    _ = try Self.take(result, on: connection, for: "START_REPLICATION")
                }
                libpq.PQclear(result)
            }
            return .ended
        }
        throw lostConnection(connection)
    }

    /// Sends one CopyData message on the stream (a standby status update) and flushes it.
    package func sendStreamMessage(_ bytes: [UInt8]) throws(SluiceError) {
        let connection = try open()
        let sent = bytes.withUnsafeBytes { raw in
            libpq.PQputCopyData(connection, raw.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(raw.count))
        }
        guard sent == 1, libpq.PQflush(connection) == 0 else { throw lostConnection(connection) }
    }
}

/// A WAL position (`pg_lsn`): 64 bits, written `XXXXXXXX/XXXXXXXX` in hexadecimal.
package struct LSN: Comparable, Hashable, Sendable, CustomStringConvertible {
    package var value: UInt64

    package init(_ value: UInt64) {
        self.value = value
    }

    /// Reads `16/B374D848`; nil for anything else.
    package init?(_ text: String) {
        let parts = text.split(separator: "/")
        guard parts.count == 2, parts.allSatisfy({ (1 ... 8).contains($0.count) }),
            let high = UInt64(parts[0], radix: 16), let low = UInt64(parts[1], radix: 16)
        else { return nil }
        value = high << 32 | low
    }

    package var description: String {
        String(value >> 32, radix: 16, uppercase: true) + "/" + String(value & 0xFFFF_FFFF, radix: 16, uppercase: true)
    }

    package static func < (lhs: LSN, rhs: LSN) -> Bool { lhs.value < rhs.value }
}
