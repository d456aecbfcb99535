import SluiceAuth
import SluiceHTTP
import SluicePGWire

extension HTTPAccess {
    /// The access an HTTP listener gives whose clients log in as the SQL port's would by `method`.
    package static func `for`(_ method: PGAuthMethod, users: any UserDirectory) -> HTTPAccess {
        switch method {
        case .trust: .trusted
        case .auto: HTTPAccess(users: users, trustsPasswordless: true)
        case .password, .scram: HTTPAccess(users: users)
        }
    }
}
