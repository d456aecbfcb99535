import SluiceCore
import SluicePlanner

/// The ksqlDB door's view of the catalog: which relations are ksqlDB streams and tables, which
/// sinks are its persistent queries. Nothing is kept beside the catalog: a stream is a Kafka
/// source or an append-only view, a table a Kafka table or a view with a key, a query a Kafka
/// sink (its id is the sink's name upper-cased: `CSAS_MATCHES` is sink `csas_matches`).
struct KsqlCatalog {
    let catalog: Catalog

    /// A stream or table as ksqlDB lists it.
    struct Object {
        var relation: RelationDefinition
        var isTable: Bool
        var topic: String
        var valueFormat: String

        var name: String { KsqlJSON.columnName(relation.name) }
        var typeName: String { isTable ? "TABLE" : "STREAM" }
    }

    /// A persistent query: a Kafka sink.
    struct Query {
        var sink: RelationDefinition
        var topic: String
        /// The stream or table it writes (its input view for `CREATE … AS SELECT`).
        var target: RelationDefinition?

        var id: String { sink.name.uppercased() }

        /// What SHOW QUERIES shows: a CSAS/CTAS query as the `CREATE STREAM|TABLE … AS SELECT`
        /// its view was made from, any other as its sink's definition.
        var statement: String {
            guard let target, target.kind == .materializedView, sink.name == KsqlCatalog.sinkName(forView: target.name, isTable: sink.name.hasPrefix("ctas_")) else {
                return sink.definition
            }
            let prefix = "CREATE MATERIALIZED VIEW "
            guard target.definition.uppercased().hasPrefix(prefix) else { return target.definition }
            return (sink.name.hasPrefix("ctas_") ? "CREATE TABLE " : "CREATE STREAM ") + target.definition.dropFirst(prefix.count)
        }
    }

    private var relations: [RelationDefinition] {
        catalog.visibleRelations(to: catalog.role(named: "root")).filter { $0.schema == "public" }
    }

    /// The sinks of ksqlDB's `CREATE STREAM|TABLE … AS SELECT` are named after their view.
    static func sinkName(forView view: String, isTable: Bool) -> String { (isTable ? "ctas_" : "csas_") + view }

    var objects: [Object] {
        let all = relations
        let sinks = all.filter { $0.kind == .sink }
        return all.compactMap { relation in object(relation, sinks: sinks) }.sorted { $0.relation.name < $1.relation.name }
    }

    func object(named name: String) -> Object? {
        let all = relations
        guard let relation = all.first(where: { $0.name == name && $0.kind != .sink && $0.kind != .view }) else { return nil }
        return object(relation, sinks: all.filter { $0.kind == .sink })
    }

    private func object(_ relation: RelationDefinition, sinks: [RelationDefinition]) -> Object? {
        // A push query's private source is its own, not a stream of the user's.
        if relation.name.hasPrefix(KsqlPushQueries.namePrefix) { return nil }
        // Nor are the parts of a connector (CREATE SOURCE|SINK CONNECTOR).
        if relation.name.hasPrefix(KsqlConnectorCatalog.prefix) { return nil }
        switch relation.kind {
        case .source, .table:
            guard let connector = relation.connector, connector.options["connector"] == "kafka", let topic = connector.options["topic"] else { return nil }
            return Object(relation: relation, isTable: relation.kind == .table, topic: topic, valueFormat: Self.valueFormat(connector.encode))
        case .materializedView:
            let stream = sinks.first { $0.name == Self.sinkName(forView: relation.name, isTable: false) }
            let table = sinks.first { $0.name == Self.sinkName(forView: relation.name, isTable: true) }
            let sink = stream ?? table
            // (Once its sink is dropped by TERMINATE, the topic ksqlDB would have named it.)
            let topic = sink?.connector?.options["topic"] ?? KsqlJSON.columnName(relation.name)
            // Without its sink (after TERMINATE): a view keyed by a hidden row id is a stream.
            let keyedByRowID = relation.primaryKey.allSatisfy { relation.columns[$0].name.hasPrefix("_") }
            let isTable = table != nil || (stream == nil && !keyedByRowID)
            return Object(relation: relation, isTable: isTable, topic: topic, valueFormat: Self.valueFormat(sink?.connector?.encode ?? "JSON"))
        default:
            return nil
        }
    }

    var queries: [Query] {
        let all = relations
        return all.filter {
            $0.kind == .sink && $0.connector?.options["connector"] == "kafka" && !$0.name.hasPrefix(KsqlPushQueries.namePrefix)
                && !$0.name.hasPrefix(KsqlConnectorCatalog.prefix)
        }
            .sorted { $0.id < $1.id }
            .map { sink in
                let topic = sink.connector?.options["topic"] ?? ""
                // A CSAS sink reads its view; an INSERT INTO's writes the topic of a stream.
                var target = all.first { sink.dependencies.contains($0.id) && sink.name == Self.sinkName(forView: $0.name, isTable: false) }
                target = target ?? all.first { sink.dependencies.contains($0.id) && sink.name == Self.sinkName(forView: $0.name, isTable: true) }
                target = target ?? all.first { $0.kind != .sink && $0.connector?.options["topic"] == topic }
                return Query(sink: sink, topic: topic, target: target)
            }
    }

    /// The queries that read `relation`: sinks over it, and the sinks of views over it (a
    /// `CREATE STREAM … AS SELECT` is its view and its sink).
    func queries(reading relation: RelationDefinition) -> [Query] {
        queries.filter { query in
            if query.target?.id == relation.id { return false }
            if query.sink.dependencies.contains(relation.id) { return true }
            guard let target = query.target, query.sink.dependencies.contains(target.id) else { return false }
            return target.dependencies.contains(relation.id)
        }
    }

    /// The queries that write `relation`.
    func queries(writing relation: RelationDefinition) -> [Query] {
        queries.filter { $0.target?.id == relation.id }
    }

    static func valueFormat(_ encode: String) -> String {
        switch encode {
        case "CSV": "DELIMITED"
        default: encode
        }
    }
}
