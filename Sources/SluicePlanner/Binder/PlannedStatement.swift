import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

/// A column of a query result, as RowDescription shows it.
package struct OutputColumn: Sendable, Equatable {
    package var name: String
    package var type: DataType
    /// The relation and column it comes from, when it is a plain column reference.
    package var tableID: Int = 0
    package var columnNumber: Int = 0
    /// The type OID to describe it with, when not its type's (PostgreSQL's vector types, whose
    /// values the plan gives as text).
    package var typeOID: Int32?

    package init(name: String, type: DataType, tableID: Int = 0, columnNumber: Int = 0) {
        self.name = name
        self.type = type
        self.tableID = tableID
        self.columnNumber = columnNumber
    }
}

/// What a statement does, after binding: plans for the executor, or catalog and session changes
/// for the server to carry out.
/// `RETURNING` of an INSERT, UPDATE or DELETE: expressions over the rows the statement changed
/// (in the table's column order: the new rows of an INSERT or UPDATE, the removed rows of a
/// DELETE), and the columns of the rows it returns.
package struct DMLReturning: Sendable {
    package var expressions: [ScalarExpr]
    package var columns: [OutputColumn]
}

package enum PlannedStatement: Sendable {
    case query(BatchPlan, columns: [OutputColumn])
    /// Rows of `source` (in the table's column order and types) go into the table.
    case insert(table: RelationDefinition, source: BatchPlan, returning: DMLReturning?)
    /// Rows matching `filter` get `assignments` (column index → new value over the old row).
    /// Column `table.columns.count + i` of those expressions is the value of `subqueries[i]`,
    /// computed once before the rows are changed.
    case update(table: RelationDefinition, filter: ScalarExpr?, assignments: [Int: ScalarExpr], subqueries: [DMLSubquery], returning: DMLReturning?)
    case delete(table: RelationDefinition, filter: ScalarExpr?, subqueries: [DMLSubquery], returning: DMLReturning?)
    /// A new table; with `populate`, filled from that plan (CREATE TABLE AS).
    case createTable(RelationDefinition, populate: BatchPlan?)
    /// A new materialized view, maintained by `plan` (its dependencies are the relations the
    /// plan scans).
    case createMaterializedView(RelationDefinition, plan: StreamPlan)
    /// A new sink, fed by `plan` (its dependencies are the relations the plan scans); the
    /// connector and its options are in `relation.connector`.
    case createSink(RelationDefinition, plan: StreamPlan)
    /// A new view (`replacing` the view of that name, for CREATE OR REPLACE VIEW).
    case createView(RelationDefinition, replacing: RelationDefinition?)
    /// A source, or a table a connector feeds (`relation.kind` says which; `relation.connector`
    /// holds the connector).
    case createSource(RelationDefinition)
    /// Relations to drop, dependents first.
    case drop([RelationDefinition])
    /// A new secondary index of `table`, built from its rows.
    case createIndex(table: RelationDefinition, index: IndexDefinition)
    /// Indexes to drop, each with its table.
    case dropIndexes([(table: RelationDefinition, index: IndexDefinition)])
    /// A new schema and its `pg_namespace` oid.
    case createSchema(String, oid: Int, owner: Int)
    /// Schemas to drop, after the relations in them (dependents first).
    case dropSchemas([String], relations: [RelationDefinition])
    /// A new role; `password` in clear text, for the server to derive its verifier from.
    case createRole(RoleDefinition, password: String?)
    /// Role `name` becomes `role` (its attributes, and its name after RENAME TO).
    case alterRole(name: String, role: RoleDefinition, password: RolePasswordChange)
    /// Roles to drop.
    case dropRoles([String], notices: [String])
    /// A new secret and its value.
    case createSecret(String, value: String)
    /// Secrets to drop.
    case dropSecrets([String])
    /// A new SQL function, or one put in place of the function with its id (`replacing`).
    case createFunction(FunctionDefinition, replacing: Bool)
    /// SQL functions to drop, and (CASCADE) the relations that use them, dependents first.
    case dropFunctions([FunctionDefinition], relations: [RelationDefinition])
    /// GRANT or REVOKE: objects' new owners-and-grants, for the server to store.
    case grant([AccessChange], isRevoke: Bool, notices: [String])
    /// GRANT or REVOKE of roles: members' new memberships, for the server to store.
    case grantRoles([(member: String, memberships: [RoleMembership])], isRevoke: Bool, notices: [String])
    /// A statement with nothing to do, and an optional notice to send (e.g. IF NOT EXISTS hit).
    case nothing(tag: String, notice: String?)
    /// Session and utility statements the server answers itself.
    case utility(UtilityStatement)
    case explain(lines: [String])
    /// `COPY table FROM STDIN`: client rows go into `columns` of `table` (table column indices,
    /// in the order the rows hold them; other columns are NULL), read as `options` say.
    case copyFrom(table: RelationDefinition, columns: [Int], options: [CopyOption])
    /// `COPY … TO STDOUT`: the rows of `plan` go to the client as `options` say. `relationName`
    /// is the table's name, or nil for a query.
    case copyTo(BatchPlan, columns: [OutputColumn], options: [CopyOption], relationName: String?)
}

/// Statements about the session or the catalog that the server executes directly.
package enum UtilityStatement: Sendable, Equatable {
    case set(name: String, value: String?)
    case reset(name: String)
    case show(name: String)
    case showAll
    case showList(kind: String)
    case describe(RelationDefinition)
    case begin
    case commit
    case rollback
    /// SAVEPOINT, RELEASE SAVEPOINT or ROLLBACK TO SAVEPOINT (its command tag).
    case savepoint(String)
    case flush
    case checkpoint
    case discard
    case deallocate(String?)
    /// Flink's catalog statements, run against the session's catalogs.
    case catalog(CatalogStatement)
}

/// An uncorrelated subquery inside UPDATE or DELETE, run once before the rows change.
package struct DMLSubquery: Sendable {
    package var plan: BatchPlan
    package var kind: ApplyKind
    package var type: DataType
}

/// What `ALTER ROLE` does to a role's password.
package enum RolePasswordChange: Sendable, Equatable {
    case keep
    case remove
    /// Set to this, in clear text (the server derives the verifier).
    case set(String)
}
