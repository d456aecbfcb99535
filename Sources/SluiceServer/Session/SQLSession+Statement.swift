import SluiceCore
import SluicePGWire
import SluicePlanner
import SluiceSQL

extension SQLSession {
    /// Binds and runs a statement parsed elsewhere (the ksqlDB door's statements, which another
    /// dialect's parser built into the same AST): the same binder and handlers as SQL text.
    ///
    /// The statement's `sourceText` is what the catalog keeps as a definition, so it must be
    /// Postgres-dialect text; a translated statement carries its own printing.
    package func execute(_ statement: Statement) async throws(SluiceError) -> PGStatementResult {
        var session = info
        session.zone = zone
        var binder = Binder(catalog: database.catalog, session: session, parameterTypes: [], parameterValues: [])
        binder.optimizer = database.optimizer(foldingIn: evaluationContext(statementTimestamp: 0))
        binder.externalRelations = fileScans
        let planned = try binder.bind(statement)
        return try await run(planned)
    }
}
