import SluiceAuth
import SluiceCore
import SluicePlanner

extension RolePassword {
    /// The SCRAM-SHA-256 verifier of `password`, with a fresh salt and Postgres's iterations.
    static func derived(from password: String) -> RolePassword {
        let verifier = SCRAMVerifier(password: password)
        return RolePassword(salt: verifier.salt, iterations: verifier.iterations, storedKey: verifier.storedKey, serverKey: verifier.serverKey)
    }

    var verifier: SCRAMVerifier {
        SCRAMVerifier(salt: salt, iterations: iterations, storedKey: storedKey, serverKey: serverKey)
    }
}

/// The users of the SQL endpoint and of the Kafka broker: the catalog's roles, looked up at
/// each login, so CREATE, ALTER and DROP ROLE take effect at the next one.
struct CatalogUsers: UserDirectory {
    let catalog: Catalog

    func login(_ user: String) -> UserLogin {
        guard let role = catalog.role(named: user) else { return .unknown }
        guard role.canLogin else { return .notPermitted }
        return .allowed(verifier: role.password?.verifier, superuser: role.superuser)
    }
}
