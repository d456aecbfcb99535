import SluiceCore
import SluiceSQL

/// The kinds of relation the catalog holds, with the names SHOW and `pg_class.relkind` use.
package enum RelationKind: String, Sendable, Equatable, Codable {
    case table
    case materializedView = "materialized view"
    case view
    case source
    case sink

    /// `pg_class.relkind`: r table, m materialized view, v view; sources show as tables.
    package var relkind: String {
        switch self {
        case .table, .source, .sink: "r"
        case .materializedView: "m"
        case .view: "v"
        }
    }
}

/// One column of a relation.
package struct CatalogColumn: Sendable, Equatable, Codable {
    package var name: String
    package var type: DataType
    package var isNullable: Bool
    /// `DEFAULT expr` as SQL text, bound again where an INSERT or UPDATE uses it (nil: NULL).
    package var defaultExpression: String?
    /// A source's generated column, `name [type] AS expr`, as SQL text over the source's other
    /// columns: computed as each chunk of rows arrives, never read from the input (nil: a column
    /// the connector decodes).
    package var generatedExpression: String?

    package init(name: String, type: DataType, isNullable: Bool = true) {
        self.name = name
        self.type = type
        self.isNullable = isNullable
    }
}

/// A relation in the catalog: a table, view, materialized view, source or sink.
package struct RelationDefinition: Sendable, Equatable, Codable {
    /// Unique for the life of the data directory; also the relation's `pg_class.oid`.
    package var id: Int
    package var schema: String
    package var name: String
    package var kind: RelationKind
    package var columns: [CatalogColumn]
    /// Indexes of the primary-key columns.
    package var primaryKey: [Int]
    /// The statement that created it, replayed at startup.
    package var definition: String
    /// Ids of the relations this one reads, and of the SQL functions it inlines (``FunctionDefinition``).
    package var dependencies: [Int]
    /// For a source, or a table a connector feeds: the connector and format.
    package var connector: ConnectorSpec?
    /// For a materialized view: a hash of the stream plan its state was made by. A start that
    /// plans the view differently (a newer optimizer) cannot use that state and rebuilds it.
    package var planFingerprint: String?
    /// For a materialized view or sink: its stream plan as ``StreamPlan/storedText`` (base64 of
    /// a versioned binary encoding), run again at start without binding `definition`; nil when
    /// the plan holds what cannot be stored, and in files written before plans were stored.
    package var storedPlan: String?
    /// For a table: its secondary indexes (nil in files written before there were any).
    package var indexes: [IndexDefinition]?
    /// For a source: its `WATERMARK FOR column AS expression`, if it has one.
    package var watermark: WatermarkSpec?
    /// For a table: `APPEND ONLY` (RisingWave's), rows only ever inserted, so views over it run
    /// the cheaper operators; UPDATE and DELETE are refused (nil: false).
    package var appendOnly: Bool?
    /// For a table with a primary key: what an insert of a key it holds does (nil: overwrite).
    package var onConflict: ConflictBehavior?
    /// For a table with `ON CONFLICT DO UPDATE … WITH VERSION COLUMN(c)`: `c`'s index. A row
    /// replaces the stored row of its key only if its version is not older (nil: no version).
    package var versionColumn: Int?
    /// For a source or an APPEND ONLY table: `dedup.key` and `dedup.window`, the events it
    /// drops as repeats of one seen within the window (nil: none dropped).
    package var dedup: DedupSpec?
    /// For a sink: a UUID given at CREATE and written into every commit it makes (an Iceberg
    /// snapshot's summary), by which a commit repeated after a crash is recognised.
    package var sinkID: String?
    /// Its owner and the privileges granted on it (nil: made before there were owners, `root`'s;
    /// read it as ``accessControl``).
    package var access: ObjectAccess?

    /// Whether rows are only ever added: a source's, or an APPEND ONLY table's.
    package var isAppendOnly: Bool { kind == .source || appendOnly == true }

    /// The table's secondary indexes.
    package var indexList: [IndexDefinition] { indexes ?? [] }

    package init(
        id: Int, schema: String = "public", name: String, kind: RelationKind, columns: [CatalogColumn],
        primaryKey: [Int] = [], definition: String, dependencies: [Int] = [], connector: ConnectorSpec? = nil
    ) {
        self.id = id
        self.schema = schema
        self.name = name
        self.kind = kind
        self.columns = columns
        self.primaryKey = primaryKey
        self.definition = definition
        self.dependencies = dependencies
        self.connector = connector
    }

    /// Whether the rows are told apart by a hidden row id (`_row_id`, after the columns): a
    /// table without a primary key.
    package var hasRowIDs: Bool { kind == .table && primaryKey.isEmpty }

    /// The index of the column named `name`, if any.
    package func columnIndex(named name: String) -> Int? {
        columns.firstIndex { $0.name == name }
    }
}

/// A secondary index of a table (`CREATE INDEX`): the table's rows kept sorted by `keys`, for
/// point and range lookups.
package struct IndexDefinition: Sendable, Equatable, Codable {
    /// A key column: its index in the table's columns and its order.
    package typealias Key = SortKey

    /// From the catalog's ids: also the index's `pg_class.oid`.
    package var id: Int
    package var name: String
    package var keys: [Key]
    /// The columns named in `INCLUDE (…)` (the index keeps every column of the row in any case,
    /// as RisingWave's does without INCLUDE).
    package var include: [Int]

    package init(id: Int, name: String, keys: [Key], include: [Int] = []) {
        self.id = id
        self.name = name
        self.keys = keys
        self.include = include
    }

    /// `CREATE INDEX name ON schema.table USING btree (key …)`, as `pg_get_indexdef` and
    /// `pg_indexes.indexdef` show it.
    package func definition(on table: RelationDefinition) -> String {
        let keys = keys.map { key in
            var text = quoteIdentifierIfNeeded(table.columns[key.column].name)
            if key.descending { text += " DESC" }
            if key.nullsFirst != key.descending { text += key.nullsFirst ? " NULLS FIRST" : " NULLS LAST" }
            return text
        }
        var text = "CREATE INDEX \(quoteIdentifierIfNeeded(name)) ON \(table.schema).\(quoteIdentifierIfNeeded(table.name)) USING btree (\(keys.joined(separator: ", ")))"
        if !include.isEmpty { text += " INCLUDE (\(include.map { quoteIdentifierIfNeeded(table.columns[$0].name) }.joined(separator: ", ")))" }
        return text
    }
}

/// A source's watermark, `WATERMARK FOR column AS expression`: after each chunk of rows, the
/// source's event time has reached the largest value of `expression` over its rows so far, and
/// a later row whose `column` is below it is late: dropped and counted.
package struct WatermarkSpec: Sendable, Equatable, Codable {
    /// The index of the time column in the source's columns.
    package var column: Int
    /// The expression, as SQL text over the source's columns (bound again at each start).
    package var expression: String

    package init(column: Int, expression: String) {
        self.column = column
        self.expression = expression
    }
}

/// The connector and format a source, or a table fed by a connector, was created with:
/// `WITH (connector = 'kafka', topic = …) FORMAT PLAIN ENCODE JSON`. The engine keeps them as
/// written; the server's connectors check them at CREATE and run them.
package struct ConnectorSpec: Sendable, Equatable, Codable {
    /// The `WITH` options, keys as written (`properties.bootstrap.server`), values as text.
    package var options: [String: String]
    /// `PLAIN`, `UPSERT`, … upper-cased.
    package var format: String
    /// `JSON`, … upper-cased.
    package var encode: String
    /// The options after `ENCODE …`.
    package var formatOptions: [String: String]
    /// A source's start positions as resolved at CREATE (partition → offset), so that after a
    /// restart it starts where it first did; nil when not resolved.
    package var startPositions: [Int32: Int64]?
    /// A webhook table's `VALIDATE`: the secret it names and the expression, as SQL text.
    package var validation: WebhookValidationSpec?
    /// `INCLUDE kind AS column`: which columns hold each message's metadata.
    package var includes: [IncludeSpec]?
    /// A CDC source's `FOR ALL TABLES`: the statement makes a table of each upstream table.
    package var forAllTables: Bool?
    /// A connector-fed CREATE TABLE that lists no columns: its PRIMARY KEY by name, resolved
    /// against the columns the connector says (then cleared).
    package var primaryKeyNames: [String]?
    /// The secrets the options name (`password = SECRET name`), whose values `options` hold;
    /// nil for none.
    package var secretNames: [String]?

    package init(options: [String: String], format: String, encode: String, formatOptions: [String: String] = [:]) {
        self.options = options
        self.format = format
        self.encode = encode
        self.formatOptions = formatOptions
    }

    /// The `connector` option, lower-cased.
    package var connector: String { options["connector"]?.lowercased() ?? "" }
}

/// A webhook table's `VALIDATE [SECRET name] AS expression`, kept as written.
package struct WebhookValidationSpec: Sendable, Equatable, Codable {
    package var secret: String?
    package var expression: String

    package init(secret: String?, expression: String) {
        self.secret = secret
        self.expression = expression
    }
}

/// One `INCLUDE kind AS column` of a source or table.
package struct IncludeSpec: Sendable, Equatable, Codable {
    package var kind: String
    package var column: String

    package init(kind: String, column: String) {
        self.kind = kind
        self.column = column
    }
}
