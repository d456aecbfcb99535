import SluiceCore
import SluicePGWire
import SluicePlanner

/// Routes a bound statement to the handler that carries it out: one line per statement, as
/// RisingWave's `handler/mod.rs` does. Each handler, one file in this folder, holds its
/// statement's checks, its catalog change and its runtime effect; what a restart replays of it
/// is the handler's `apply`. A new statement is a new file here and one line in this switch.
enum StatementHandlers {
    /// Carries out `planned` for `session` and returns what the client is sent.
    static func run(_ planned: PlannedStatement, in session: SQLSession) async throws(SluiceError) -> PGStatementResult {
        switch planned {
        case .query(let plan, let columns): return try QueryHandler.run(plan, columns: columns, in: session)
        case .insert(let table, let source, let returning): return try await InsertHandler.run(source, into: table, returning: returning, in: session)
        case .update(let table, let filter, let assignments, let subqueries, let returning):
            return try await UpdateHandler.run(table, filter: filter, assignments: assignments, subqueries: subqueries, returning: returning, in: session)
        case .delete(let table, let filter, let subqueries, let returning):
            return try await DeleteHandler.run(table, filter: filter, subqueries: subqueries, returning: returning, in: session)
        case .createTable(let relation, let populate): return try await CreateTableHandler.run(relation, populate: populate, in: session)
        case .createMaterializedView(let relation, let plan): return try await CreateMaterializedViewHandler.run(relation, plan: plan, in: session)
        case .createSink(let relation, let plan): return try await CreateSinkHandler.run(relation, plan: plan, in: session)
        case .createView(let relation, let replacing): return try CreateViewHandler.run(relation, replacing: replacing, in: session)
        case .createSource(let relation): return try await CreateSourceHandler.run(relation, in: session)
        case .drop(let relations): return try DropHandler.run(relations, in: session)
        case .createIndex(let table, let index): return try CreateIndexHandler.run(index, on: table, in: session)
        case .dropIndexes(let doomed): return try DropIndexHandler.run(doomed, in: session)
        case .createSchema(let name, let oid, let owner): return try CreateSchemaHandler.run(name, oid: oid, owner: owner, in: session)
        case .dropSchemas(let names, let relations): return try DropSchemaHandler.run(names, relations: relations, in: session)
        case .createRole(let role, let password): return try CreateRoleHandler.run(role, password: password, in: session)
        case .alterRole(let name, let role, let password): return try AlterRoleHandler.run(name, to: role, password: password, in: session)
        case .dropRoles(let names, let notices): return try DropRoleHandler.run(names, notices: notices, in: session)
        case .createSecret(let name, let value): return try CreateSecretHandler.run(name, value: value, in: session)
        case .dropSecrets(let names): return try DropSecretHandler.run(names, in: session)
        case .createFunction(let function, let replacing): return try CreateFunctionHandler.run(function, replacing: replacing, in: session)
        case .dropFunctions(let functions, let relations): return try DropFunctionHandler.run(functions, relations: relations, in: session)
        case .grant(let changes, let isRevoke, let notices): return try GrantHandler.run(changes, isRevoke: isRevoke, notices: notices, in: session)
        case .grantRoles(let changes, let isRevoke, let notices): return try GrantHandler.runRoles(changes, isRevoke: isRevoke, notices: notices, in: session)
        case .nothing(let tag, let notice): return nothing(tag: tag, notice: notice)
        case .explain(let lines): return ExplainHandler.run(lines)
        case .copyFrom(let table, let columns, let options): return try CopyHandler.runFrom(table, columns: columns, options: options, in: session)
        case .copyTo(let plan, let columns, let options, _): return try CopyHandler.runTo(plan, columns: columns, options: options, in: session)
        case .utility(.set(let name, let value)): return try SetHandler.run(name, to: value, in: session)
        case .utility(.reset(let name)): return try SetHandler.runReset(name, in: session)
        case .utility(.show(let name)): return try ShowHandler.run(name, in: session)
        case .utility(.showAll): return ShowHandler.runAll(in: session)
        case .utility(.showList(let kind)): return ShowHandler.runList(kind, in: session)
        case .utility(.describe(let relation)): return DescribeHandler.run(relation)
        case .utility(.begin): return TransactionHandler.runBegin(in: session)
        case .utility(.commit): return TransactionHandler.runEnd("COMMIT", in: session)
        case .utility(.rollback): return TransactionHandler.runEnd("ROLLBACK", in: session)
        case .utility(.savepoint(let tag)): return TransactionHandler.runSavepoint(tag)
        case .utility(.flush): return await FlushHandler.run(in: session)
        case .utility(.checkpoint): return try await CheckpointHandler.run(in: session)
        case .utility(.discard): return DiscardHandler.run(in: session)
        case .utility(.deallocate): return DiscardHandler.runDeallocate()
        case .utility(.catalog(let statement)): return try await CatalogHandler.run(statement, in: session)
        }
    }

    /// A statement with nothing to do (IF NOT EXISTS of a relation that exists, a COMMENT):
    /// its tag, and its notice if it has one.
    private static func nothing(tag: String, notice: String?) -> PGStatementResult {
        PGStatementResult(commandTag: tag, notices: notice.map { [SluiceError(.successfulCompletion, $0)] } ?? [])
    }
}
