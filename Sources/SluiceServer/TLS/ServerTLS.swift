import HummingbirdCore
import HummingbirdTLS
import NIOCore
import NIOSSL
import SluiceCore
import SluicePGWire

/// The server's certificate chain and key (`--tls-cert`, `--tls-key`, PEM files).
package struct TLSSettings: Sendable {
    package var certificatePath: String
    package var keyPath: String
    /// Whether SQL clients on a loopback address must use TLS too; clients on other addresses
    /// always must once the server has a certificate.
    package var requiredOnLoopback = false

    package init(certificatePath: String, keyPath: String) {
        self.certificatePath = certificatePath
        self.keyPath = keyPath
    }
}

/// TLS for every port, from one certificate: the SQL port (SSLRequest answered `S`), the HTTP
/// ports (dashboard, metrics, Iceberg catalog: HTTPS only) and the broker's SSL listener.
struct ServerTLS: Sendable {
    let configuration: TLSConfiguration
    let context: NIOSSLContext
    let requiredOnLoopback: Bool

    /// Loads and checks the files; a clear error names the one that is wrong.
    init(_ settings: TLSSettings) throws(SluiceError) {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMFile(settings.certificatePath)
        } catch {
            throw SluiceError(.invalidParameterValue, "could not read the TLS certificate \(settings.certificatePath): \(error)")
        }
        guard !chain.isEmpty else { throw SluiceError(.invalidParameterValue, "\(settings.certificatePath) holds no PEM certificate") }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(file: settings.keyPath, format: .pem)
        } catch {
            throw SluiceError(.invalidParameterValue, "could not read the TLS private key \(settings.keyPath): \(error)")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        do {
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            throw SluiceError(.invalidParameterValue, "the TLS certificate and key do not make a usable TLS context (do they match?): \(error)")
        }
        self.configuration = configuration
        self.requiredOnLoopback = settings.requiredOnLoopback
    }

    /// The SQL port's TLS: a handler per connection that asks for it.
    var sql: PGTLS {
        let context = context
        return PGTLS(requiredOnLoopback: requiredOnLoopback, requiredOnOther: true) { NIOSSLServerHandler(context: context) }
    }

    /// HTTPS for a Hummingbird server.
    func http() throws(SluiceError) -> HTTPServerBuilder {
        do {
            return try .tls(.http1(), tlsConfiguration: configuration)
        } catch {
            throw SluiceError(.invalidParameterValue, "could not set up HTTPS: \(error)")
        }
    }

    /// A TLS handler for one broker connection on its SSL listener.
    func handler() -> NIOSSLServerHandler {
        NIOSSLServerHandler(context: context)
    }
}
