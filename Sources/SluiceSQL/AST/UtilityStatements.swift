/// The kinds of objects DROP, SHOW CREATE and COMMENT ON name.
package enum ObjectType: String, Hashable, Sendable {
    case table = "TABLE"
    case view = "VIEW"
    case materializedView = "MATERIALIZED VIEW"
    case source = "SOURCE"
    case sink = "SINK"
    case index = "INDEX"
    case schema = "SCHEMA"
    case database = "DATABASE"
    case column = "COLUMN"
    case function = "FUNCTION"
    case secret = "SECRET"
}

/// `DROP type [IF EXISTS] name, … [CASCADE|RESTRICT]`.
package struct Drop: Hashable, Sendable {
    package var objectType: ObjectType
    package var ifExists: Bool
    package var names: [ObjectName]
    package var cascade: Bool

    package init(objectType: ObjectType, ifExists: Bool = false, names: [ObjectName], cascade: Bool = false) {
        self.objectType = objectType
        self.ifExists = ifExists
        self.names = names
        self.cascade = cascade
    }
}

/// The forms of `SHOW`.
package enum Show: Hashable, Sendable {
    /// Objects a catalog lists, which `SHOW TABLES [FROM schema] [LIKE 'pattern']` and its siblings name.
    package enum Listing: String, Hashable, Sendable {
        case tables = "TABLES"
        case materializedViews = "MATERIALIZED VIEWS"
        case views = "VIEWS"
        case sources = "SOURCES"
        case sinks = "SINKS"
        case indexes = "INDEXES"
        case databases = "DATABASES"
        case schemas = "SCHEMAS"
        case functions = "FUNCTIONS"
    }

    case list(Listing, schema: ObjectName?, like: String?)
    /// `SHOW COLUMNS FROM t`.
    case columns(ObjectName)
    /// `SHOW CREATE {TABLE|VIEW|MATERIALIZED VIEW|SOURCE|SINK|INDEX} name`.
    case create(ObjectType, ObjectName)
    /// `SHOW ALL`.
    case all
    /// `SHOW name`: the parameter name as Postgres spells it (`transaction_isolation`, `timezone`).
    case variable(String)
}

/// `SET [SESSION|LOCAL] name {TO|=} value, … | DEFAULT`, `SET TIME ZONE …`.
package struct SetVariable: Hashable, Sendable {
    package enum Value: Hashable, Sendable {
        case `default`
        /// Each value as text: strings unquoted, numbers as written, words lower-cased.
        case values([String])
    }

    package var name: String
    package var isLocal: Bool
    package var value: Value

    package init(name: String, isLocal: Bool = false, value: Value) {
        self.name = name
        self.isLocal = isLocal
        self.value = value
    }
}

/// `EXPLAIN [ANALYZE] [VERBOSE] [(option [value], …)] statement`.
package struct Explain: Hashable, Sendable {
    package var isAnalyze: Bool
    package var isVerbose: Bool
    /// Parenthesized options, names lower-cased; value nil when only the name was given.
    package var options: [ExplainOption]
    package var statement: Statement

    package init(isAnalyze: Bool = false, isVerbose: Bool = false, options: [ExplainOption] = [], statement: Statement) {
        self.isAnalyze = isAnalyze
        self.isVerbose = isVerbose
        self.options = options
        self.statement = statement
    }
}

package struct ExplainOption: Hashable, Sendable {
    package var name: String
    package var value: String?

    package init(name: String, value: String? = nil) {
        self.name = name
        self.value = value
    }
}

/// `COMMENT ON type name IS 'text' | NULL`.
package struct Comment: Hashable, Sendable {
    package var objectType: ObjectType
    package var name: ObjectName
    /// nil for `IS NULL`, which removes the comment.
    package var text: String?

    package init(objectType: ObjectType, name: ObjectName, text: String?) {
        self.objectType = objectType
        self.name = name
        self.text = text
    }
}

/// A role attribute of `CREATE ROLE|USER` and `ALTER ROLE|USER` (Postgres's).
package enum RoleOption: Hashable, Sendable {
    /// `PASSWORD 'text'`, or `PASSWORD NULL` (nil), with or without `ENCRYPTED`.
    case password(String?)
    case superuser(Bool)
    case createDB(Bool)
    case createRole(Bool)
    case login(Bool)
    case inherit(Bool)
    case replication(Bool)
    case bypassRLS(Bool)
    /// `CONNECTION LIMIT n` (-1: none).
    case connectionLimit(Int)
    /// `VALID UNTIL 'timestamp'`.
    case validUntil(String)
}

/// `CREATE ROLE|USER name [[WITH] option …]`. `CREATE USER` implies `LOGIN`.
package struct CreateRole: Hashable, Sendable {
    package var name: String
    package var isUser: Bool
    package var options: [RoleOption]

    package init(name: String, isUser: Bool, options: [RoleOption]) {
        self.name = name
        self.isUser = isUser
        self.options = options
    }
}

/// `ALTER ROLE|USER name [WITH] option …`, or `ALTER ROLE|USER name RENAME TO new`.
package struct AlterRole: Hashable, Sendable {
    package var name: String
    package var options: [RoleOption]
    package var renameTo: String?

    package init(name: String, options: [RoleOption] = [], renameTo: String? = nil) {
        self.name = name
        self.options = options
        self.renameTo = renameTo
    }
}

/// Flink's catalogs, which a session names in three-part names (`catalog.database.table`):
/// `generic_in_memory` ones hold Sluice's own schemas as their databases; `iceberg` ones name an
/// Iceberg REST catalog (the built-in one or another).
package enum CatalogStatement: Hashable, Sendable {
    /// `CREATE CATALOG [IF NOT EXISTS] c WITH ('type' = …, …)`.
    case create(name: String, ifNotExists: Bool, options: [WithOption])
    /// Flink's `CREATE DATABASE [IF NOT EXISTS] [c.]db`: a schema of Sluice's, or a namespace
    /// of an Iceberg catalog.
    case createDatabase(ObjectName, ifNotExists: Bool)
    /// `DROP CATALOG [IF EXISTS] c`.
    case drop(name: String, ifExists: Bool)
    /// `USE CATALOG c`.
    case useCatalog(String)
    /// `USE db` or `USE c.db`.
    case useDatabase(ObjectName)
    /// `SHOW CATALOGS`.
    case showCatalogs
    /// `SHOW CURRENT CATALOG`.
    case showCurrentCatalog
    /// `SHOW CURRENT DATABASE`.
    case showCurrentDatabase
    /// Flink's `SHOW JOBS`: the jobs that run until stopped (sinks and materialized views).
    case showJobs
    /// Flink's `STOP JOB 'id' [WITH SAVEPOINT] [WITH DRAIN]`: the job ends (its sink or view
    /// is dropped); a savepoint is not taken (Sluice's checkpoints are its state).
    case stopJob(String, savepoint: Bool, drain: Bool)
}
