/// Who sent a request, and on which listener: what handlers need beyond the request itself.
struct RequestContext {
    /// The connection's principal; nil only for the requests served before authentication
    /// (ApiVersions, SaslHandshake, SaslAuthenticate), which need none. A nil principal may do
    /// nothing.
    var principal: KafkaPrincipal?
    /// The index of the listener the request came in on.
    var listenerIndex: Int

    /// The anonymous principal on the first listener: the broker as it was before it had users
    /// (its tests call handlers with it).
    static let trusted = RequestContext(principal: .anonymous, listenerIndex: 0)

    /// Whether the principal may do everything: a superuser, or the anonymous principal.
    var isTrusted: Bool { principal?.isTrusted ?? false }
}

extension KafkaBroker {
    /// Whether the request's principal may perform `operation` on `topic`: trusted principals
    /// always, others as the authorizer says.
    func isAllowed(_ context: RequestContext, _ operation: ACLOperation, topic: String) -> Bool {
        guard let principal = context.principal else { return false }
        return principal.isTrusted || authorizer.allows(principal, operation, topic: topic)
    }
}
