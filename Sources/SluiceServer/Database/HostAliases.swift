#if canImport(Glibc)
import Glibc
#endif
import SluiceCore
import SluiceDataflow

/// `sluice serve --host-alias name:port=host:port`: addresses the pipelines users bring name
/// (`kafka-broker:29092`, `polaris:8181` from a docker-compose file) mapped onto reachable ones,
/// usually this process's own broker and catalog. Every connector option that holds an address
/// is rewritten when its source or sink is made, so the statements run as written and a later
/// start may map them elsewhere.
///
/// At CREATE, an address whose host does not resolve is refused with the flag that maps it.
package struct HostAliases: Sendable {
    package var aliases: [(from: String, to: String)]
    /// This process's broker and catalog addresses, for the hint.
    package var brokerAddress: String?
    package var catalogAddress: String?

    package init(aliases: [(from: String, to: String)] = [], brokerAddress: String? = nil, catalogAddress: String? = nil) {
        self.aliases = aliases
        self.brokerAddress = brokerAddress
        self.catalogAddress = catalogAddress
    }

    /// `name:port=host:port`, as the flag takes it.
    package static func parse(_ text: String) throws(SluiceError) -> (from: String, to: String) {
        let parts = text.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, Self.splitAddress(parts[0]) != nil, Self.splitAddress(parts[1]) != nil else {
            throw SluiceError(.invalidParameterValue, "--host-alias takes name:port=host:port (kafka-broker:29092=127.0.0.1:9092), not '\(text)'")
        }
        return (parts[0].lowercased(), parts[1])
    }

    /// The options whose values hold addresses: Kafka's brokers, Iceberg catalogs, PostgreSQL hosts.
    static let addressKeys: Set<String> = [
        "properties.bootstrap.server", "properties.bootstrap.servers", "catalog.uri", "catalog.oauth2_server_uri", "schema.registry",
    ]

    /// `value` with each aliased `name:port` replaced (in a list of brokers, or in a URL's authority).
    package func rewrite(_ value: String) -> String {
        guard !aliases.isEmpty else { return value }
        var result = value
        for alias in aliases {
            var searched = result.startIndex
            while let found = result.range(of: alias.from, options: [.caseInsensitive], range: searched ..< result.endIndex) {
                let before = found.lowerBound == result.startIndex ? nil : result[result.index(before: found.lowerBound)]
                let after = found.upperBound == result.endIndex ? nil : result[found.upperBound]
                let boundaryBefore = before == nil || before == "/" || before == "," || before == "@" || before == " "
                let boundaryAfter = after == nil || after == "/" || after == "," || after == "?" || after == " "
                if boundaryBefore && boundaryAfter {
                    result.replaceSubrange(found, with: alias.to)
                    searched = result.index(found.lowerBound, offsetBy: alias.to.count)
                } else {
                    searched = found.upperBound
                }
            }
        }
        return result
    }

    /// `options` with their addresses rewritten.
    package func rewrite(options: [String: String]) -> [String: String] {
        guard !aliases.isEmpty else { return options }
        var rewritten = options
        for (key, value) in options where Self.addressKeys.contains(key) || key == "hostname" { rewritten[key] = rewrite(value) }
        return rewritten
    }

    /// Refuses an address option whose host does not resolve, naming the flag.
    package func checkResolves(_ options: [String: String]) throws(SluiceError) {
        for key in Self.addressKeys.sorted() {
            guard let value = options[key] else { continue }
            for address in value.split(separator: ",") {
                var authority = Substring(address.trimmingCharacters(in: .whitespaces))
                if let scheme = authority.range(of: "://") { authority = authority[scheme.upperBound...] }
                authority = authority.prefix { $0 != "/" && $0 != "?" }
                if let at = authority.lastIndex(of: "@") { authority = authority[authority.index(after: at)...] }
                guard let (host, port) = Self.splitAddress(String(authority)), !Self.resolves(host) else { continue }
                let target = key.hasPrefix("properties.bootstrap") ? brokerAddress : key.hasPrefix("catalog.") ? catalogAddress : nil
                let example = "--host-alias \(host):\(port)=\(target ?? "HOST:PORT")"
                throw SluiceError(
                    SQLState("08001"), "host \"\(host)\" in \(key) '\(value)' does not resolve",
                    hint: target == nil ? "Map it to a reachable address with sluice serve \(example)."
                        : "To reach this process's own \(key.hasPrefix("catalog.") ? "Iceberg catalog" : "broker") under that name, start sluice serve with \(example).")
            }
        }
    }

    static func splitAddress(_ text: String) -> (host: String, port: Int)? {
        guard let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]), port > 0, port < 65536 else { return nil }
        let host = String(text[..<colon])
        return host.isEmpty ? nil : (host, port)
    }

    static func resolves(_ host: String) -> Bool {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var found: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, nil, &hints, &found)
        if let found { freeaddrinfo(found) }
        return status == 0
    }
}

/// A connector kit whose sources and sinks see their addresses through ``HostAliases``.
struct HostAliasingConnectors: ConnectorKit {
    let inner: any ConnectorKit
    let aliases: HostAliases

    func makeSource(_ description: SourceDescription, validate: Bool) throws(SluiceError) -> any SourceConnector {
        var description = description
        description.options = aliases.rewrite(options: description.options)
        description.formatOptions = aliases.rewrite(options: description.formatOptions)
        if validate { try aliases.checkResolves(description.options.merging(description.formatOptions) { first, _ in first }) }
        return try inner.makeSource(description, validate: validate)
    }

    func makeSink(_ description: SinkDescription, validate: Bool) throws(SluiceError) -> any StreamSink {
        var description = description
        description.options = aliases.rewrite(options: description.options)
        if validate { try aliases.checkResolves(description.options) }
        return try inner.makeSink(description, validate: validate)
    }
}
