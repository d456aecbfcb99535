import SluiceCore

/// The connectors a database builds its sources and sinks with, by a relation's `connector`
/// option; `validate` asks one to check its options and reach its outside system (at CREATE,
/// not at a restart). Sluice's own are `SluiceConnectors`' `BuiltInConnectors`, handed to the
/// server by what starts it, so that the server compiles beside the connectors, not after them.
package protocol ConnectorKit: Sendable {
    func makeSource(_ description: SourceDescription, validate: Bool) throws(SluiceError) -> any SourceConnector
    func makeSink(_ description: SinkDescription, validate: Bool) throws(SluiceError) -> any StreamSink
}

/// A table's connector fed by the server's own requests (a webhook table's): it turns one
/// request's body into the table's rows.
package protocol RequestRowDecoder: Sendable {
    /// The header (lowercased) whose value keys a request, so that a retried one adds nothing.
    var idempotencyHeader: String? { get }
    func rows(_ body: UnsafeRawBufferPointer, idempotencyKey: String?) throws(SluiceError) -> Chunk
}

/// A source whose outside system lists the tables it can feed (a Postgres CDC source, for
/// `FOR ALL TABLES`): those it can, and those it cannot for want of a primary key.
package protocol UpstreamTableListing {
    func upstreamTables() throws(SluiceError) -> (tables: [(schema: String, name: String)], keyless: [String])
}
