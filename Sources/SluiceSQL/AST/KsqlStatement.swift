import SluiceCore

/// One statement of ksqlDB's SQL (``SQLParser/parseKsql(_:)``), for the ksqlDB door.
///
/// The parts that are plain SQL (column definitions, WITH options, queries, expressions) are the
/// same AST nodes the Postgres dialect builds, so the one binder and executor run them; the
/// statement shapes ksqlDB has and Postgres does not (streams, push queries, TERMINATE, PRINT)
/// are named here and carried out by the ksqlDB door over the same handlers.
package struct KsqlStatement: Hashable, Sendable {
    package var kind: Kind
    /// The statement's own text, without the terminating `;`.
    package var sourceText: String {
        get { text.value }
        set { text.value = newValue }
    }
    private var text: IgnoredText

    package init(_ kind: Kind, sourceText: String = "") {
        self.kind = kind
        self.text = IgnoredText(sourceText)
    }

    package indirect enum Kind: Hashable, Sendable {
        /// `CREATE STREAM|TABLE [IF NOT EXISTS] name (columns) WITH (…)`.
        case create(KsqlCreate)
        /// `CREATE STREAM|TABLE name [WITH (…)] AS SELECT …`.
        case createAsSelect(KsqlCreateAsSelect)
        /// `INSERT INTO name SELECT …`.
        case insertInto(ObjectName, Query)
        /// `SELECT …` with `EMIT CHANGES` (a push query) or without (a pull query).
        case select(Query, emitChanges: Bool)
        /// `SHOW|LIST STREAMS|TABLES|QUERIES|TOPICS|PROPERTIES [EXTENDED]`.
        case list(KsqlListing)
        /// `DESCRIBE [EXTENDED] name`.
        case describe(ObjectName, extended: Bool)
        /// `DROP STREAM|TABLE [IF EXISTS] name [DELETE TOPIC]`.
        case drop(isTable: Bool, name: ObjectName, ifExists: Bool, deleteTopic: Bool)
        /// `TERMINATE query_id` (`TERMINATE ALL`: nil).
        case terminate(String?)
        /// `PRINT topic [FROM BEGINNING] [LIMIT n]`.
        case print(topic: String, fromBeginning: Bool, limit: Int?)
        /// `SET 'property' = 'value'`.
        case setProperty(String, String)
        /// `UNSET 'property'`.
        case unsetProperty(String)
        /// `CREATE SOURCE|SINK CONNECTOR [IF NOT EXISTS] name WITH ('key' = 'value', …)`.
        case createConnector(KsqlCreateConnector)
        /// `SHOW|LIST [SOURCE|SINK] CONNECTORS` (nil: both kinds).
        case listConnectors(isSource: Bool?)
        /// `DESCRIBE CONNECTOR name`.
        case describeConnector(String)
        /// `DROP CONNECTOR [IF EXISTS] name`.
        case dropConnector(String, ifExists: Bool)
    }
}

/// What `SHOW`/`LIST` lists.
package enum KsqlListing: String, Hashable, Sendable {
    case streams = "STREAMS"
    case tables = "TABLES"
    case queries = "QUERIES"
    case topics = "TOPICS"
    case properties = "PROPERTIES"
}

/// `CREATE STREAM|TABLE [IF NOT EXISTS] name (columns) WITH (options)`: a stream (a source over
/// a topic) or a table (with a primary key, its rows kept in the state store).
package struct KsqlCreate: Hashable, Sendable {
    package var isTable: Bool
    package var name: ObjectName
    package var ifNotExists: Bool
    package var orReplace: Bool
    /// The columns; a `KEY` or `PRIMARY KEY` column has `.primaryKey` among its constraints.
    package var columns: [ColumnDefinition]
    /// `WITH (KAFKA_TOPIC = …, VALUE_FORMAT = …, …)`, keys upper-cased as ksqlDB spells them.
    package var options: [WithOption]

    package init(isTable: Bool, name: ObjectName, ifNotExists: Bool = false, orReplace: Bool = false, columns: [ColumnDefinition], options: [WithOption]) {
        self.isTable = isTable
        self.name = name
        self.ifNotExists = ifNotExists
        self.orReplace = orReplace
        self.columns = columns
        self.options = options
    }

    /// The option `key` (upper case), if given.
    package func option(_ key: String) -> OptionValue? {
        options.first { $0.key == key }?.value
    }
}

/// `CREATE STREAM|TABLE name [WITH (options)] AS query [EMIT CHANGES]`.
package struct KsqlCreateAsSelect: Hashable, Sendable {
    package var isTable: Bool
    package var name: ObjectName
    package var ifNotExists: Bool
    package var orReplace: Bool
    /// Keys upper-cased (`KAFKA_TOPIC`, `VALUE_FORMAT`, `PARTITIONS`, …).
    package var options: [WithOption]
    package var query: Query
    /// The query's text, for the catalog's definition and SHOW QUERIES.
    package var queryText: String {
        get { storedQueryText.value }
        set { storedQueryText.value = newValue }
    }
    private var storedQueryText: IgnoredText

    package init(isTable: Bool, name: ObjectName, ifNotExists: Bool = false, orReplace: Bool = false, options: [WithOption], query: Query, queryText: String = "") {
        self.isTable = isTable
        self.name = name
        self.ifNotExists = ifNotExists
        self.orReplace = orReplace
        self.options = options
        self.query = query
        self.storedQueryText = IgnoredText(queryText)
    }

    /// The option `key` (upper case), if given.
    package func option(_ key: String) -> OptionValue? {
        options.first { $0.key == key }?.value
    }
}

/// `CREATE SOURCE|SINK CONNECTOR [IF NOT EXISTS] name WITH ('connector.class' = '…', …)`: a
/// Kafka Connect connector's configuration, its keys as written (Kafka Connect's keys are
/// case-sensitive: `connection.url`, `table.include.list`).
package struct KsqlCreateConnector: Hashable, Sendable {
    /// `CREATE SOURCE CONNECTOR` (true) or `CREATE SINK CONNECTOR`.
    package var isSource: Bool
    /// Folded to lower case unless quoted, as other names are.
    package var name: String
    /// `IF NOT EXISTS`: an existing connector of the name is a warning, not an error.
    package var ifNotExists: Bool
    /// The `WITH` properties in order, keys as written.
    package var properties: [WithOption]

    package init(isSource: Bool, name: String, ifNotExists: Bool = false, properties: [WithOption]) {
        self.isSource = isSource
        self.name = name
        self.ifNotExists = ifNotExists
        self.properties = properties
    }
}
