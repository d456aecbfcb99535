/// Who a connection's requests run as: a user who authenticated with SASL, or the anonymous
/// principal of a connection that needed no authentication.
package struct KafkaPrincipal: Sendable, Hashable, CustomStringConvertible {
    /// The user name; nil for the anonymous principal.
    package var user: String?
    /// Whether the user is a superuser (the catalog's SUPERUSER roles; Kafka's `super.users`).
    package var isSuperuser: Bool

    package init(user: String?, isSuperuser: Bool = false) {
        self.user = user
        self.isSuperuser = isSuperuser
    }

    /// The principal of a client that did not authenticate where authentication is optional:
    /// trusted, as every client was before the broker had users.
    package static let anonymous = KafkaPrincipal(user: nil)

    /// Whether the principal may do everything without asking the authorizer: superusers, and
    /// the anonymous principal (which only exists where authentication is optional).
    package var isTrusted: Bool { user == nil || isSuperuser }

    /// Kafka's form, as ACLs name principals: `User:alice`; `User:ANONYMOUS` for the anonymous one.
    package var description: String { "User:\(user ?? "ANONYMOUS")" }
}
