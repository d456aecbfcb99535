import SluiceCore
import SluiceDataflow
import SluicePostgresClient

/// Where a Postgres sink writes: RisingWave's two spellings of it.
/// - `connector = 'jdbc'`: `jdbc.url = 'jdbc:postgresql://host:port/db?user=…&password=…'`,
///   `table.name`, `schema.name` (default `public`), optionally `user` and `password` beside
///   the URL, and `jdbc.query.timeout` (seconds). No JVM: the URL is read here and libpq connects.
/// - `connector = 'postgres'`: `host`, `port` (5432), `user`, `password`, `database`, `table`,
///   `schema` (`public`), `ssl.mode` (`disabled`, `preferred`, `required`, `verify-ca`,
///   `verify-full`) and `ssl.root.cert`.
struct PostgresSinkOptions: Sendable {
    var settings: PostgresConnectionSettings
    var schema: String
    var table: String

    static let jdbcSchema: [ConnectorOption] = [
        .text("jdbc.url", required: true), .text("table.name", required: true), .text("schema.name"), .text("user"), .text("password"),
        .integer("jdbc.query.timeout", 1 ... 86_400), .boolean("jdbc.auto.commit"),
    ]

    static let postgresSchema: [ConnectorOption] = [
        .text("host", required: true), .integer("port", 1 ... 65_535), .text("user", required: true), .text("password"),
        .text("database", required: true), .text("table", required: true), .text("schema"),
        .choice("ssl.mode", ["disabled", "disable", "preferred", "prefer", "required", "require", "verify-ca", "verify-full"]),
        .text("ssl.root.cert"), .integer("max_batch_rows", 1 ... .max),
    ]

    init(_ description: SinkDescription) throws(SluiceError) {
        let options = description.options
        if options["connector"]?.lowercased() == "jdbc" {
            let url = try JDBCURL(options["jdbc.url"] ?? "")
            guard let user = options["user"] ?? url.parameters["user"] else {
                throw SluiceError(
                    .invalidParameterValue, "the jdbc sink needs a user",
                    hint: "Add user = '…' to the options, or ?user=… to jdbc.url.")
            }
            settings = PostgresConnectionSettings(
                host: url.hosts, port: url.ports, database: url.database, user: user,
                password: options["password"] ?? url.parameters["password"], sslMode: url.parameters["sslmode"])
            if let root = url.parameters["sslrootcert"] { settings.extra.append(("sslrootcert", root)) }
            if settings.sslMode == nil, url.parameters["ssl"]?.lowercased() == "true" { settings.sslMode = "require" }
            if let seconds = options["jdbc.query.timeout"] { settings.extra.append(("options", "-c statement_timeout=\(seconds)s")) }
            schema = options["schema.name"] ?? "public"
            table = options["table.name"] ?? ""
        } else {
            settings = PostgresConnectionSettings(
                host: options["host"] ?? "", port: options["port"] ?? "5432", database: options["database"] ?? "",
                user: options["user"] ?? "", password: options["password"],
                sslMode: options["ssl.mode"].map(Self.libpqSSLMode))
            if let root = options["ssl.root.cert"] { settings.extra.append(("sslrootcert", root)) }
            schema = options["schema"] ?? "public"
            table = options["table"] ?? ""
        }
        guard !table.isEmpty else { throw SluiceError(.invalidParameterValue, "the sink needs the name of its PostgreSQL table") }
    }

    /// RisingWave's `ssl.mode` words as libpq's `sslmode`.
    static func libpqSSLMode(_ mode: String) -> String {
        switch mode.lowercased() {
        case "disabled", "disable": "disable"
        case "preferred", "prefer": "prefer"
        case "required", "require": "require"
        default: mode.lowercased()
        }
    }
}

/// A `jdbc:postgresql://host1[:port1][,host2[:port2]…]/database[?key=value&…]` URL, as pgjdbc
/// reads it: hosts and ports (libpq takes comma-separated lists too), the database, and the
/// parameters, percent-decoded.
struct JDBCURL: Equatable {
    var hosts: String
    var ports: String
    var database: String
    var parameters: [String: String]

    init(_ text: String) throws(SluiceError) {
        let prefix = "jdbc:postgresql://"
        guard text.lowercased().hasPrefix(prefix) else {
            let scheme = text.split(separator: "/").first.map(String.init) ?? text
            throw SluiceError(
                .featureNotSupported, "jdbc.url \(scheme.hasPrefix("jdbc:") ? "names \(scheme.dropLast())" : "is not a JDBC URL"); only PostgreSQL URLs are supported",
                hint: "Write jdbc.url = 'jdbc:postgresql://host:5432/database?user=…&password=…'.")
        }
        let rest = text.dropFirst(prefix.count)
        let (address, query) = rest.firstIndex(of: "?").map { (rest[..<$0], rest[rest.index(after: $0)...]) } ?? (rest, "")
        guard let slash = address.firstIndex(of: "/") else {
            throw SluiceError(.invalidParameterValue, "jdbc.url names no database", hint: "Write jdbc:postgresql://host:5432/database.")
        }
        database = try Self.decoded(address[address.index(after: slash)...])
        guard !database.isEmpty else { throw SluiceError(.invalidParameterValue, "jdbc.url names no database") }
        var hostList: [String] = []
        var portList: [String] = []
        for part in address[..<slash].split(separator: ",", omittingEmptySubsequences: false) {
            var host = Substring(part)
            var port: Substring = "5432"
            if host.hasPrefix("["), let close = host.firstIndex(of: "]") {
                // An IPv6 address in brackets, then an optional port.
                let after = host[host.index(after: close)...]
                if after.hasPrefix(":") { port = after.dropFirst() }
                host = host[host.index(after: host.startIndex) ..< close]
            } else if let colon = host.lastIndex(of: ":") {
                port = host[host.index(after: colon)...]
                host = host[..<colon]
            }
            guard !host.isEmpty else { throw SluiceError(.invalidParameterValue, "jdbc.url names no host") }
            guard let number = Int(port), (1 ... 65_535).contains(number) else {
                throw SluiceError(.invalidParameterValue, "jdbc.url has port \"\(port)\", which is not a port number")
            }
            hostList.append(String(host))
            portList.append(String(number))
        }
        hosts = hostList.joined(separator: ",")
        ports = portList.joined(separator: ",")
        parameters = [:]
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let (key, value) = pair.firstIndex(of: "=").map { (pair[..<$0], pair[pair.index(after: $0)...]) } ?? (pair, "")
            parameters[try Self.decoded(key).lowercased()] = try Self.decoded(value)
        }
    }

    /// `text` with `%XX` escapes decoded (and `+` as a space, as in query strings).
    private static func decoded(_ text: Substring) throws(SluiceError) -> String {
        var bytes: [UInt8] = []
        var iterator = Array(text.utf8).makeIterator()
        while let byte = iterator.next() {
            if byte == UInt8(ascii: "%") {
                guard let high = iterator.next().flatMap(HexDigits.value), let low = iterator.next().flatMap(HexDigits.value) else {
                    throw SluiceError(.invalidParameterValue, "jdbc.url has a bad %-escape")
                }
                bytes.append(high << 4 | low)
            } else {
                bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
