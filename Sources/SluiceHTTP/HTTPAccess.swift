import NIOPosix
import SluiceAuth
import SluiceCore
import SluiceNet
import Synchronization

/// Who may use an HTTP server (the dashboard, the schema registry): everyone (its listener's
/// clients are trusted, as `--auth trust`), or the catalog's users by HTTP Basic
/// authentication with their SQL passwords (checked against the SCRAM verifiers). Under `auto`
/// (a loopback listener's default) a role without a password is trusted: a request without
/// credentials is `root`'s while `root` has no password. ``AuthenticationMiddleware`` asks it
/// for every request.
package final class HTTPAccess: Sendable {
    package let users: (any UserDirectory)?
    /// Whether roles without a password get in without one (`auto`).
    let trustsPasswordless: Bool
    /// Counts refused logins, for `/metrics`.
    let failures = Atomic<Int>(0)
    /// Recently checked credentials (a hash of them), so that a dashboard's requests do not each
    /// pay a PBKDF2 run: entries live ``cacheSeconds``.
    private let verified = Mutex<[[UInt8]: (user: String, superuser: Bool, until: ContinuousClock.Instant)]>([:])
    static let cacheSeconds = 60

    /// Everyone, as `root`.
    package static let trusted = HTTPAccess(users: nil)

    package init(users: (any UserDirectory)?, trustsPasswordless: Bool = false) {
        self.users = users
        self.trustsPasswordless = trustsPasswordless
    }

    /// Who a request comes from: `root` when everyone is trusted, else its Basic credentials'
    /// user; nil when they are missing or wrong.
    package func user(of request: HTTPServerRequest) async -> HTTPUser? {
        guard let users else { return HTTPUser(name: "root", superuser: true) }
        guard let header = request.headers.first(name: "authorization") else {
            guard trustsPasswordless, case .allowed(nil, let superuser) = users.login("root") else { return nil }
            return HTTPUser(name: "root", superuser: superuser)
        }
        guard header.lowercased().hasPrefix("basic "),
              let decoded = Base64.decode(header.dropFirst(6).trimmingCharacters(in: .whitespaces)),
              let text = String(validating: decoded, as: UTF8.self), let colon = text.firstIndex(of: ":")
        else { return nil }
        let name = String(text[..<colon])
        let password = String(text[text.index(after: colon)...])
        let key = SHA256.hash(Array(text.utf8))
        let now = ContinuousClock.now
        if let cached = verified.withLock({ $0[key] }), cached.until > now { return HTTPUser(name: cached.user, superuser: cached.superuser) }
        guard case .allowed(let verifier, let superuser) = users.login(name) else { return await refused() }
        if verifier == nil, trustsPasswordless { return HTTPUser(name: name, superuser: superuser) }
        // PBKDF2 takes milliseconds: on the thread pool, not the event loop that serves others.
        guard let verifier, (try? await NIOThreadPool.singleton.runIfActive({ verifier.matches(password: password) })) == true else {
            return await refused()
        }
        verified.withLock { entries in
            if entries.count > 1_000 { entries.removeAll() }
            entries[key] = (name, superuser, now + .seconds(Self.cacheSeconds))
        }
        return HTTPUser(name: name, superuser: superuser)
    }

    /// Counts a refused login, after a pause: a failed guess costs time, as on the SQL port.
    private func refused() async -> HTTPUser? {
        failures.add(1, ordering: .relaxed)
        try? await Task.sleep(for: .milliseconds(250))
        return nil
    }

    package var failedLogins: Int { failures.load(ordering: .relaxed) }

    /// The answer to a request without valid credentials: 401 with the Basic challenge.
    package static let challenge: HTTPServerResponse = {
        var headers = HTTPHeaders()
        headers.add(name: "www-authenticate", value: "Basic realm=\"sluice\", charset=\"UTF-8\"")
        return HTTPServerResponse(
            status: .unauthorized, contentType: "text/plain; charset=utf-8", bytes: Array("log in with a Sluice user and password\n".utf8),
            headers: headers)
    }()
}
