import CLibPQ
#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif
import SluiceCore

/// One connection to a PostgreSQL server, through libpq (design 0016, step 3).
///
/// Every call blocks its thread until the server answers, as librdkafka's calls do in the Kafka
/// connectors: a connector calls it from its own thread (a sink's committer), never from a
/// fragment's or an event loop's. A connection is used by one thread at a time.
///
/// libpq does the protocol's work that a connector should not redo: SCRAM and MD5 passwords,
/// TLS (`sslmode`), and the COPY sub-protocol. Results come back in text format; callers turn
/// the few they read into their own types.
package final class PostgresConnection: @unchecked Sendable {
    /// libpq's connection (nil once closed); the replication calls beside this file use it.
    var connection: OpaquePointer?
    /// Where it is connected, for messages (`host:port/database`).
    package let endpoint: String

    /// Connects with libpq's keywords (`host`, `port`, `user`, `password`, `dbname`,
    /// `sslmode`, …). A connection that fails is an error with SQLSTATE 28P01 for a refused
    /// password and HV00N for anything else (an unreachable host, a missing database).
    package init(_ settings: PostgresConnectionSettings) throws(SluiceError) {
        endpoint = settings.description
        var keywords = settings.keywords
        // A server that stops answering must not hold the caller for ever: connecting gives up
        // after 10 s, and a connection whose peer went away fails once TCP's keepalives and
        // its user timeout (30 s of unacknowledged data) say so.
        for (key, value) in [("connect_timeout", "10"), ("keepalives", "1"), ("keepalives_idle", "10"),
                             ("keepalives_interval", "5"), ("keepalives_count", "3"), ("tcp_user_timeout", "30000"),
                             ("application_name", "sluice"), ("client_encoding", "UTF8")]
        where !keywords.contains(where: { $0.0 == key }) {
            keywords.append((key, value))
        }
        if case .failure(let error) = LibPQ.loaded { throw error }
        let made: OpaquePointer? = Self.withCStrings(keywords.map(\.0)) { keys in
            Self.withCStrings(keywords.map(\.1)) { values in libpq.PQconnectdbParams(keys, values, 0) }
        }
        guard let made else { throw SluiceError(.outOfMemory, "libpq could not allocate a connection") }
        guard libpq.PQstatus(made) == CONNECTION_OK else {
            let message = Self.trimmed(libpq.PQerrorMessage(made))
            libpq.PQfinish(made)
            let refused = message.contains("password authentication failed") || message.contains("no password supplied")
            throw SluiceError(
                refused ? .invalidPassword : .unableToEstablishConnection,
                "cannot connect to PostgreSQL at \(settings.description): \(message)")
        }
        connection = made
        // Messages the server sends beside results (NOTICEs) are not printed on stderr.
        libpq.PQsetNoticeProcessor(made, { _, _ in }, nil)
    }

    deinit { close() }

    /// Closes the connection (idempotent).
    package func close() {
        if let connection { libpq.PQfinish(connection) }
        connection = nil
    }

    /// Whether the connection is still usable: a failed one (the server restarted, the network
    /// dropped) must be made again.
    package var isUsable: Bool {
        guard let connection else { return false }
        return libpq.PQstatus(connection) == CONNECTION_OK
    }

    /// The server's version as libpq reports it (150004 for 15.4).
    package var serverVersion: Int {
        connection.map { Int(libpq.PQserverVersion($0)) } ?? 0
    }

    /// Runs `sql` (one or more statements, no parameters) and returns the last statement's
    /// result.
    @discardableResult
    package func execute(_ sql: String) throws(SluiceError) -> PostgresResult {
        let connection = try open()
        return try Self.take(libpq.PQexec(connection, sql), on: connection, for: sql)
    }

    /// Runs one statement with `$1`, `$2`, … bound to `parameters` (text, nil for NULL).
    @discardableResult
    package func execute(_ sql: String, _ parameters: [String?]) throws(SluiceError) -> PostgresResult {
        let connection = try open()
        let result = Self.withOptionalCStrings(parameters) { values in
            libpq.PQexecParams(connection, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        }
        return try Self.take(result, on: connection, for: sql)
    }

    /// Runs `COPY … FROM STDIN` and sends what `body` writes as its data; returns the rows the
    /// server took. A failure inside `body` ends the COPY with an error, so the server keeps
    /// nothing of it.
    @discardableResult
    package func copyIn(_ sql: String, _ body: (inout PostgresCopyWriter) throws(SluiceError) -> Void) throws(SluiceError) -> Int {
        let connection = try open()
        guard let started = libpq.PQexec(connection, sql) else { throw lostConnection(connection) }
        let status = libpq.PQresultStatus(started)
        guard status == PGRES_COPY_IN else {
            _ = try Self.take(started, on: connection, for: sql)
            throw SluiceError(.internalError, "PostgreSQL did not start a COPY FROM STDIN for: \(sql)")
        }
        libpq.PQclear(started)
        var writer = PostgresCopyWriter(connection: connection)
        var failure: SluiceError?
        do throws(SluiceError) {
            try body(&writer)
            try writer.flush()
        } catch {
            failure = error
        }
        let ended = failure == nil ? libpq.PQputCopyEnd(connection, nil) : libpq.PQputCopyEnd(connection, "the sender failed")
        guard ended == 1 else { throw failure ?? lostConnection(connection) }
        // The COPY's own result, then the end of the command.
        let rows = Self.finishCopy(on: connection, for: sql)
        if let failure { throw failure }
        return try rows.get()
    }

    /// Runs `COPY … TO STDOUT` and hands `consume` each row's bytes as the server sends them;
    /// returns the rows sent.
    @discardableResult
    package func copyOut(_ sql: String, _ consume: (UnsafeRawBufferPointer) throws(SluiceError) -> Void) throws(SluiceError) -> Int {
        let connection = try open()
        guard let started = libpq.PQexec(connection, sql) else { throw lostConnection(connection) }
        guard libpq.PQresultStatus(started) == PGRES_COPY_OUT else {
            _ = try Self.take(started, on: connection, for: sql)
            throw SluiceError(.internalError, "PostgreSQL did not start a COPY TO STDOUT for: \(sql)")
        }
        libpq.PQclear(started)
        var failure: SluiceError?
        while true {
            var buffer: UnsafeMutablePointer<CChar>?
            let length = libpq.PQgetCopyData(connection, &buffer, 0)
            if length > 0, let buffer {
                if failure == nil {
                    do throws(SluiceError) { try consume(UnsafeRawBufferPointer(start: buffer, count: Int(length))) } catch { failure = error }
                }
                libpq.PQfreemem(buffer)
            } else {
                break
            }
        }
        let rows = Self.finishCopy(on: connection, for: sql)
        if let failure { throw failure }
        return try rows.get()
    }

    // MARK: Helpers

    /// Reads a COPY's results to their end: the rows it moved, or its first error.
    private static func finishCopy(on connection: OpaquePointer, for sql: String) -> Result<Int, SluiceError> {
        var rows = 0
        var error: SluiceError?
        while let result = libpq.PQgetResult(connection) {
            if libpq.PQresultStatus(result) == PGRES_COMMAND_OK {
                rows = Int(String(cString: libpq.PQcmdTuples(result))) ?? 0
                libpq.PQclear(result)
            } else if error == nil {
                do throws(SluiceError) { _ = try take(result, on: connection, for: sql) } catch let failed { error = failed }
            } else {
                libpq.PQclear(result)
            }
        }
        return error.map { .failure($0) } ?? .success(rows)
    }

    func open() throws(SluiceError) -> OpaquePointer {
        guard let connection else { throw SluiceError(.unableToEstablishConnection, "the connection to PostgreSQL at \(endpoint) is closed") }
        return connection
    }

    func lostConnection(_ connection: OpaquePointer) -> SluiceError {
        SluiceError(.unableToEstablishConnection, "the connection to PostgreSQL at \(endpoint) failed: \(Self.trimmed(libpq.PQerrorMessage(connection)))")
    }

    /// `result` as a ``PostgresResult`` (and freed), or its error as a ``SluiceError`` with the
    /// server's SQLSTATE.
    static func take(_ result: OpaquePointer?, on connection: OpaquePointer, for sql: String) throws(SluiceError) -> PostgresResult {
        guard let result else {
            throw SluiceError(.unableToEstablishConnection, "the connection to PostgreSQL failed: \(trimmed(libpq.PQerrorMessage(connection)))")
        }
        defer { libpq.PQclear(result) }
        switch libpq.PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
            return PostgresResult(columns: [], rows: [], commandTag: String(cString: libpq.PQcmdStatus(result)))
        case PGRES_TUPLES_OK, PGRES_SINGLE_TUPLE:
            let columnCount = Int(libpq.PQnfields(result))
            let rowCount = Int(libpq.PQntuples(result))
            let columns = (0 ..< columnCount).map { String(cString: libpq.PQfname(result, Int32($0))) }
            var rows: [[String?]] = []
            rows.reserveCapacity(rowCount)
            for row in 0 ..< rowCount {
                rows.append((0 ..< columnCount).map { column in
                    libpq.PQgetisnull(result, Int32(row), Int32(column)) == 1 ? nil : String(cString: libpq.PQgetvalue(result, Int32(row), Int32(column)))
                })
            }
            return PostgresResult(columns: columns, rows: rows, commandTag: String(cString: libpq.PQcmdStatus(result)))
        default:
            let state = libpq.PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let primary = libpq.PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
            let detail = libpq.PQresultErrorField(result, Int32(UInt8(ascii: "D"))).map { String(cString: $0) }
            let message = primary ?? trimmed(libpq.PQresultErrorMessage(result))
            // A lost connection has no SQLSTATE: it is the outside system being unreachable.
            let code = state.map(SQLState.init) ?? .unableToEstablishConnection
            throw SluiceError(code, "PostgreSQL: \(message.isEmpty ? trimmed(libpq.PQerrorMessage(connection)) : message)", detail: detail)
        }
    }

    static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "" }
        var text = String(cString: message)
        while let last = text.last, last.isWhitespace { text.removeLast() }
        return text
    }

    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer { copies.forEach { free($0) } }
        var pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) }
        pointers.append(nil)
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }

    private static func withOptionalCStrings<R>(_ strings: [String?], _ body: (UnsafePointer<UnsafePointer<CChar>?>?) -> R) -> R {
        let copies = strings.map { $0.map { strdup($0) } ?? nil }
        defer { copies.forEach { free($0) } }
        let pointers: [UnsafePointer<CChar>?] = copies.map { $0.map { UnsafePointer($0) } }
        return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
    }
}

/// A result's rows in text format (nil for NULL), and its command tag (`INSERT 0 5`).
package struct PostgresResult: Sendable {
    package var columns: [String]
    package var rows: [[String?]]
    package var commandTag: String
}

/// What ``PostgresConnection/copyIn(_:_:)`` hands its body: a buffer of COPY data, sent to the
/// server in pieces of about 256 KiB.
package struct PostgresCopyWriter {
    fileprivate let connection: OpaquePointer
    private var buffer: [UInt8] = []
    private static let pieceSize = 256 << 10

    fileprivate init(connection: OpaquePointer) {
        self.connection = connection
        buffer.reserveCapacity(Self.pieceSize + (64 << 10))
    }

    /// Appends `bytes` (whole rows of the COPY's format) and sends the buffer once it is big.
    package mutating func write(_ bytes: UnsafeRawBufferPointer) throws(SluiceError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.pieceSize { try flush() }
    }

    /// Sends `bytes` (whole rows) at once, after what the buffer holds: no copy into the buffer.
    package mutating func send(_ bytes: UnsafeRawBufferPointer) throws(SluiceError) {
        try flush()
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        guard libpq.PQputCopyData(connection, base.assumingMemoryBound(to: CChar.self), Int32(bytes.count)) == 1 else {
            throw SluiceError(.unableToEstablishConnection, "sending COPY data to PostgreSQL failed: \(String(cString: libpq.PQerrorMessage(connection)))")
        }
    }

    /// Sends what the buffer holds.
    package mutating func flush() throws(SluiceError) {
        guard !buffer.isEmpty else { return }
        let sent = buffer.withUnsafeBytes { bytes in
            libpq.PQputCopyData(connection, bytes.baseAddress!.assumingMemoryBound(to: CChar.self), Int32(bytes.count))
        }
        guard sent == 1 else {
            throw SluiceError(.unableToEstablishConnection, "sending COPY data to PostgreSQL failed: \(String(cString: libpq.PQerrorMessage(connection)))")
        }
        buffer.removeAll(keepingCapacity: true)
    }
}

/// Where and as whom to connect: libpq's keywords, in order.
package struct PostgresConnectionSettings: Sendable, CustomStringConvertible {
    /// One host, or several separated by commas (libpq tries them in order).
    package var host: String
    /// The port, or one per host separated by commas.
    package var port: String
    package var database: String
    package var user: String
    package var password: String?
    /// libpq's `sslmode` (`disable`, `prefer`, `require`, `verify-ca`, `verify-full`).
    package var sslMode: String?
    /// Other libpq keywords (`sslrootcert`, `options`).
    package var extra: [(String, String)] = []
    /// A walsender connection for logical replication (`replication = database`): it takes
    /// replication commands (`CREATE_REPLICATION_SLOT`, `START_REPLICATION`) beside SQL.
    package var replication = false

    package init(host: String, port: String = "5432", database: String, user: String, password: String? = nil, sslMode: String? = nil) {
        self.host = host
        self.port = port
        self.database = database
        self.user = user
        self.password = password
        self.sslMode = sslMode
    }

    var keywords: [(String, String)] {
        var list = [("host", host), ("port", port), ("dbname", database), ("user", user)]
        if let password { list.append(("password", password)) }
        if let sslMode { list.append(("sslmode", sslMode)) }
        if replication { list.append(("replication", "database")) }
        return list + extra
    }

    package var description: String { "\(host):\(port)/\(database)" }
}

extension PostgresConnection {
    /// `name` as a quoted SQL identifier (`"a""b"` for `a"b`).
    package static func quoted(_ name: String) -> String {
        "\"" + name.replacingAll("\"", with: "\"\"") + "\""
    }
}

extension String {
    fileprivate func replacingAll(_ target: Character, with replacement: String) -> String {
        var out = ""
        out.reserveCapacity(count)
        for character in self {
            if character == target { out += replacement } else { out.append(character) }
        }
        return out
    }
}
