import NIOCore
import SluiceCore
import SluiceHTTP
import SluiceNet
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

/// TLS for every port, from one certificate (OpenSSL, through ``TLSHandler``): the SQL port
/// (SSLRequest answered `S`), the HTTP ports (dashboard, metrics, Iceberg catalog: HTTPS only)
/// and the broker's SSL listener.
struct ServerTLS: Sendable {
    let context: TLSContext
    let requiredOnLoopback: Bool

    /// Loads and checks the files; a clear error names the one that is wrong.
    init(_ settings: TLSSettings) throws(SluiceError) {
        context = try TLSContext.server(certificateChainFile: settings.certificatePath, privateKeyFile: settings.keyPath)
        requiredOnLoopback = settings.requiredOnLoopback
    }

    /// The SQL port's TLS: a handler per connection that asks for it.
    var sql: PGTLS {
        let context = context
        return PGTLS(requiredOnLoopback: requiredOnLoopback, requiredOnOther: true) { TLSHandler(context: context) }
    }

    /// A TLS handler for one broker connection on its SSL listener.
    func handler() -> TLSHandler {
        TLSHandler(context: context)
    }
}
