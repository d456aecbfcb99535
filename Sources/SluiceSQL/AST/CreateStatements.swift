import SluiceCore

/// `CREATE TABLE [IF NOT EXISTS] t (…) [APPEND ONLY] [ON CONFLICT …] [WITH (…)] [FORMAT … ENCODE …]` or
/// `CREATE TABLE t [(columns)] AS query`.
package struct CreateTable: Hashable, Sendable {
    package var name: ObjectName
    package var ifNotExists: Bool
    package var columns: [ColumnDefinition]
    package var constraints: [TableConstraint]
    package var watermarks: [WatermarkDefinition]
    /// RisingWave's `APPEND ONLY`.
    package var isAppendOnly: Bool
    /// RisingWave's `ON CONFLICT DO NOTHING | DO UPDATE FULL | DO UPDATE IF NOT NULL` (and the
    /// older `IGNORE`, `OVERWRITE`); nil when not given.
    package var onConflict: ConflictBehavior?
    /// `ON CONFLICT DO UPDATE … WITH VERSION COLUMN(c)` (RisingWave 2.x): a row replaces the
    /// stored row of its key only if its `c` is not older; nil when not given.
    package var versionColumn: String?
    package var options: [WithOption]
    package var format: FormatEncode?
    /// `AS query`; `columns` then hold only names given in parentheses, typed `unknown`.
    package var query: Query?
    /// A webhook table's `VALIDATE [SECRET name] AS expression` (RisingWave's): the check every
    /// request must pass.
    package var validate: WebhookValidation?
    /// `INCLUDE timestamp [AS name]` and the like: a message's metadata as columns.
    package var includes: [IncludeColumn] = []
    /// RisingWave's `FROM source TABLE 'schema.table'`: a table fed by one upstream table of a
    /// CDC source (`CREATE SOURCE … WITH (connector = 'postgres-cdc', …)`).
    package var cdcTable: CDCTableReference?
    /// `(*)`: the columns (and primary key) are the upstream table's, taken at CREATE.
    package var takesUpstreamColumns = false

    package init(
        name: ObjectName, ifNotExists: Bool = false, columns: [ColumnDefinition] = [], constraints: [TableConstraint] = [],
        watermarks: [WatermarkDefinition] = [], isAppendOnly: Bool = false, options: [WithOption] = [],
        format: FormatEncode? = nil, query: Query? = nil
    ) {
        self.name = name
        self.ifNotExists = ifNotExists
        self.columns = columns
        self.constraints = constraints
        self.watermarks = watermarks
        self.isAppendOnly = isAppendOnly
        self.options = options
        self.format = format
        self.query = query
    }
}

/// `FROM source TABLE 'upstream'` of a CREATE TABLE.
package struct CDCTableReference: Hashable, Sendable {
    package var source: ObjectName
    /// The upstream table as written (`public.orders`, `orders`).
    package var upstream: String

    package init(source: ObjectName, upstream: String) {
        self.source = source
        self.upstream = upstream
    }
}

/// `name type [constraints…]`, or a generated column `name [type] AS expr`.
package struct ColumnDefinition: Hashable, Sendable {
    package var name: String
    /// nil for a Flink/RisingWave computed column without a type (`c AS a + 1`).
    package var type: TypeName?
    package var constraints: [ColumnConstraint]
    package var position: SourcePosition

    package init(name: String, type: TypeName?, constraints: [ColumnConstraint] = [], at position: SourcePosition = .none) {
        self.name = name
        self.type = type
        self.constraints = constraints
        self.position = position
    }
}

package enum ColumnConstraint: Hashable, Sendable {
    case notNull
    case null
    case primaryKey
    case unique
    case defaultValue(Expression)
    /// `AS expr`: a generated (computed) column.
    case generated(Expression)
    /// Flink's `METADATA [FROM 'key'] [VIRTUAL]`: a message's metadata (the key, or the
    /// column's own name); Flink sessions make it an `INCLUDE`.
    case metadata(String?)
}

package enum TableConstraint: Hashable, Sendable {
    /// `[CONSTRAINT name] PRIMARY KEY (a, b) [NOT ENFORCED]`.
    case primaryKey([String], name: String?)
    case unique([String], name: String?)
}

/// `WATERMARK FOR column AS expression`.
package struct WatermarkDefinition: Hashable, Sendable {
    package var column: String
    package var expression: Expression

    package init(column: String, expression: Expression) {
        self.column = column
        self.expression = expression
    }
}

/// One `key = value` of a `WITH (…)` or `FORMAT … ENCODE … (…)` list.
package struct WithOption: Hashable, Sendable {
    /// The key with dotted parts joined (`properties.bootstrap.server`); quoted keys verbatim.
    package var key: String
    package var value: OptionValue
    package var position: SourcePosition

    package init(key: String, value: OptionValue, at position: SourcePosition = .none) {
        self.key = key
        self.value = value
        self.position = position
    }
}

package enum OptionValue: Hashable, Sendable {
    case string(String)
    /// A number as written, sign included.
    case number(String)
    /// A bare word such as `true`, `latest`, `earliest`, lower-cased.
    case word(String)
    /// `secret name`, RisingWave's reference to a stored secret.
    case secret(ObjectName)

    /// The value as text, for options that take text.
    package var text: String {
        switch self {
        case .string(let text), .number(let text), .word(let text): text
        case .secret(let name): name.description
        }
    }
}

/// `FORMAT PLAIN ENCODE JSON [( … )]`; format and encode are upper-cased.
package struct FormatEncode: Hashable, Sendable {
    package var format: String
    package var encode: String
    package var options: [WithOption]
    /// `KEY ENCODE z` (a sink's message keys), upper-cased; nil when not written.
    package var keyEncode: String?

    package init(format: String, encode: String, options: [WithOption] = [], keyEncode: String? = nil) {
        self.format = format
        self.encode = encode
        self.options = options
        self.keyEncode = keyEncode
    }
}

/// `CREATE [OR REPLACE] [MATERIALIZED] VIEW [IF NOT EXISTS] v [(columns)] [WITH (…)] AS query
/// [EMIT ON WINDOW CLOSE]`.
package struct CreateView: Hashable, Sendable {
    package var name: ObjectName
    package var isMaterialized: Bool
    package var ifNotExists: Bool
    package var orReplace: Bool
    package var columns: [String]
    package var options: [WithOption]
    package var query: Query
    /// The query's source text, for storing the definition.
    package var queryText: String {
        get { storedQueryText.value }
        set { storedQueryText.value = newValue }
    }
    private var storedQueryText: IgnoredText
    package var emitOnWindowClose: Bool

    package init(
        name: ObjectName, isMaterialized: Bool, ifNotExists: Bool = false, orReplace: Bool = false, columns: [String] = [],
        options: [WithOption] = [], query: Query, queryText: String = "", emitOnWindowClose: Bool = false
    ) {
        self.name = name
        self.isMaterialized = isMaterialized
        self.ifNotExists = ifNotExists
        self.orReplace = orReplace
        self.columns = columns
        self.options = options
        self.query = query
        self.storedQueryText = IgnoredText(queryText)
        self.emitOnWindowClose = emitOnWindowClose
    }
}

/// Text kept beside a node that never makes two nodes unequal.
package struct IgnoredText: Hashable, Sendable {
    package var value: String
    package init(_ value: String) { self.value = value }
    package static func == (lhs: IgnoredText, rhs: IgnoredText) -> Bool { true }
    package func hash(into hasher: inout Hasher) {}
}

/// `CREATE SOURCE [IF NOT EXISTS] s [(columns…)] [INCLUDE …] WITH (…) FORMAT … ENCODE … [(…)]`.
package struct CreateSource: Hashable, Sendable {
    package var name: ObjectName
    package var ifNotExists: Bool
    package var columns: [ColumnDefinition]
    package var constraints: [TableConstraint]
    package var watermarks: [WatermarkDefinition]
    /// `INCLUDE timestamp [AS name]` and the like: a message's metadata as columns.
    package var includes: [IncludeColumn] = []
    /// Materialize's `FOR ALL TABLES` after a CDC source's options: a table for each upstream
    /// table, made with the source.
    package var forAllTables = false
    package var options: [WithOption]
    package var format: FormatEncode?

    package init(
        name: ObjectName, ifNotExists: Bool = false, columns: [ColumnDefinition] = [], constraints: [TableConstraint] = [],
        watermarks: [WatermarkDefinition] = [], options: [WithOption] = [], format: FormatEncode? = nil
    ) {
        self.name = name
        self.ifNotExists = ifNotExists
        self.columns = columns
        self.constraints = constraints
        self.watermarks = watermarks
        self.options = options
        self.format = format
    }
}

/// `CREATE SINK [IF NOT EXISTS] s {FROM relation | AS query} WITH (…) [FORMAT … ENCODE … [(…)]]`.
package struct CreateSink: Hashable, Sendable {
    package enum Input: Hashable, Sendable {
        case relation(ObjectName)
        case query(Query)
    }

    package var name: ObjectName
    package var ifNotExists: Bool
    package var input: Input
    package var options: [WithOption]
    package var format: FormatEncode?

    package init(name: ObjectName, ifNotExists: Bool = false, input: Input, options: [WithOption] = [], format: FormatEncode? = nil) {
        self.name = name
        self.ifNotExists = ifNotExists
        self.input = input
        self.options = options
        self.format = format
    }
}

/// `CREATE [UNIQUE] INDEX [IF NOT EXISTS] [name] ON t (keys) [INCLUDE (…)] [DISTRIBUTED BY (…)]`.
package struct CreateIndex: Hashable, Sendable {
    package var name: ObjectName?
    package var table: ObjectName
    package var isUnique: Bool
    package var ifNotExists: Bool
    package var keys: [OrderByItem]
    package var include: [String]
    package var distributedBy: [Expression]

    package init(
        name: ObjectName?, table: ObjectName, isUnique: Bool = false, ifNotExists: Bool = false, keys: [OrderByItem],
        include: [String] = [], distributedBy: [Expression] = []
    ) {
        self.name = name
        self.table = table
        self.isUnique = isUnique
        self.ifNotExists = ifNotExists
        self.keys = keys
        self.include = include
        self.distributedBy = distributedBy
    }
}

/// `VALIDATE [SECRET name] AS expression` of a webhook table.
package struct WebhookValidation: Hashable, Sendable {
    /// The secret the expression may name (`CREATE SECRET`), nil for `VALIDATE AS`.
    package var secret: String?
    package var expression: Expression

    package init(secret: String?, expression: Expression) {
        self.secret = secret
        self.expression = expression
    }
}

/// RisingWave's `INCLUDE kind [AS name]` of a source or table: a column of each message's
/// metadata (`timestamp`, `partition`, `offset`, `key`, `payload`).
package struct IncludeColumn: Hashable, Sendable {
    package var kind: String
    package var alias: String?

    package init(kind: String, alias: String?) {
        self.kind = kind
        self.alias = alias
    }
}
