/// One parsed SQL statement, with the text it was parsed from.
///
/// Equality ignores `sourceText` and `position`, so a reprinted statement equals the original.
package struct Statement: Hashable, Sendable {
    package var kind: Kind
    /// The statement's own text, without the terminating `;` and surrounding whitespace.
    package var sourceText: String {
        get { text.value }
        set { text.value = newValue }
    }
    private var text: IgnoredText
    package var position: SourcePosition

    package init(_ kind: Kind, sourceText: String = "", at position: SourcePosition = .none) {
        self.kind = kind
        self.text = IgnoredText(sourceText)
        self.position = position
    }

    /// The statement kinds.
    package indirect enum Kind: Hashable, Sendable {
        /// `SELECT`, `VALUES`, `WITH …`, `(SELECT …) UNION …`, `TABLE`-free queries.
        case query(Query)
        case insert(Insert)
        case update(Update)
        case delete(Delete)
        /// `COPY … FROM …` / `COPY … TO …`.
        case copy(Copy)
        case createTable(CreateTable)
        /// `CREATE [MATERIALIZED] VIEW`.
        case createView(CreateView)
        case createSource(CreateSource)
        case createSink(CreateSink)
        case createIndex(CreateIndex)
        case createSchema(ObjectName, ifNotExists: Bool)
        case createDatabase(ObjectName, ifNotExists: Bool)
        case drop(Drop)
        case show(Show)
        case setVariable(SetVariable)
        /// `SET TRANSACTION …` / `SET SESSION CHARACTERISTICS AS TRANSACTION …`: the mode words.
        case setTransaction([String])
        /// `RESET name`; `RESET ALL` has name `all`.
        case reset(String)
        /// `DESCRIBE t` / `DESC t`.
        case describe(ObjectName)
        case explain(Explain)
        /// `FLUSH`.
        case flush
        /// `CHECKPOINT` (PostgreSQL's): writes a checkpoint now.
        case checkpoint
        /// `BEGIN` / `START TRANSACTION` with its modes as words (`read only`, `isolation level …`).
        case begin([String])
        /// `COMMIT` / `END`.
        case commit
        /// `ROLLBACK` / `ABORT`.
        case rollback
        /// `SAVEPOINT name`, `RELEASE [SAVEPOINT] name`, `ROLLBACK TO [SAVEPOINT] name`.
        case savepoint(SavepointAction, name: String)
        /// `DISCARD ALL|PLANS|SEQUENCES|TEMP`: the word, lower case.
        case discard(String)
        /// `DEALLOCATE [PREPARE] name`; nil for `ALL`.
        case deallocate(String?)
        /// `COMMENT ON TABLE|COLUMN|… name IS 'text'|NULL`.
        case comment(Comment)
        /// `ALTER …`, parsed only up to the object kind; the binder reports it as not supported.
        case alter(objectType: String, name: ObjectName?)
        /// `CREATE ROLE|USER`.
        case createRole(CreateRole)
        /// `CREATE SECRET [IF NOT EXISTS] name [WITH (backend = 'meta')] AS 'value'` (RisingWave's).
        case createSecret(name: ObjectName, ifNotExists: Bool, options: [WithOption], value: String)
        /// `CREATE [OR REPLACE] FUNCTION … LANGUAGE SQL …`.
        case createFunction(CreateFunction)
        /// `DROP FUNCTION [IF EXISTS] name [(argtypes)], … [CASCADE|RESTRICT]`.
        case dropFunction(DropFunction)
        /// `ALTER ROLE|USER`.
        case alterRole(AlterRole)
        /// `DROP ROLE|USER [IF EXISTS] name, …`.
        case dropRoles(names: [String], ifExists: Bool)
        /// `GRANT` or `REVOKE` of privileges.
        case grant(Grant)
        /// `GRANT` or `REVOKE` of membership in roles.
        case grantRole(GrantRole)
        /// Flink's catalog statements: `CREATE|DROP CATALOG`, `USE [CATALOG]`, `SHOW CATALOGS`, …
        case catalog(CatalogStatement)
    }
}

/// `INSERT INTO t [(columns)] {query | DEFAULT VALUES} [RETURNING …]`.
package struct Insert: Hashable, Sendable {
    package var table: ObjectName
    package var columns: [String]
    /// The rows: a `VALUES` query or any other query; nil for `DEFAULT VALUES`.
    package var source: Query?
    package var returning: [SelectItem]

    package init(table: ObjectName, columns: [String] = [], source: Query?, returning: [SelectItem] = []) {
        self.table = table
        self.columns = columns
        self.source = source
        self.returning = returning
    }
}

/// `UPDATE t [AS a] SET c = e, … [FROM …] [WHERE …] [RETURNING …]`.
package struct Update: Hashable, Sendable {
    package var table: ObjectName
    package var alias: String?
    package var assignments: [Assignment]
    package var from: [TableReference]
    package var filter: Expression?
    package var returning: [SelectItem]

    package init(
        table: ObjectName, alias: String? = nil, assignments: [Assignment], from: [TableReference] = [],
        filter: Expression? = nil, returning: [SelectItem] = []
    ) {
        self.table = table
        self.alias = alias
        self.assignments = assignments
        self.from = from
        self.filter = filter
        self.returning = returning
    }
}

/// `column = value` of an UPDATE; `value` may be `.defaultValue`.
package struct Assignment: Hashable, Sendable {
    package var column: String
    package var value: Expression
    package var position: SourcePosition

    package init(column: String, value: Expression, at position: SourcePosition = .none) {
        self.column = column
        self.value = value
        self.position = position
    }
}

/// `DELETE FROM t [AS a] [USING …] [WHERE …] [RETURNING …]`.
package struct Delete: Hashable, Sendable {
    package var table: ObjectName
    package var alias: String?
    package var using: [TableReference]
    package var filter: Expression?
    package var returning: [SelectItem]

    package init(
        table: ObjectName, alias: String? = nil, using: [TableReference] = [], filter: Expression? = nil,
        returning: [SelectItem] = []
    ) {
        self.table = table
        self.alias = alias
        self.using = using
        self.filter = filter
        self.returning = returning
    }
}

/// What a savepoint statement does.
package enum SavepointAction: String, Hashable, Sendable {
    case define = "SAVEPOINT"
    case release = "RELEASE SAVEPOINT"
    case rollbackTo = "ROLLBACK TO SAVEPOINT"
}
