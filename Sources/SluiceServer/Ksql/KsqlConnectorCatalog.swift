import SluiceCore
import SluicePlanner

/// The relations a ksqlDB connector is made of, found by name: nothing is kept beside the
/// catalog, so connectors come back with it after a restart. Connector `c`'s relations are
/// `ksql_connector__c__<part>`:
/// - a Debezium Postgres source: `cdc` (the `postgres-cdc` source), `table_<n>` (a table of each
///   captured table) and `sink_<n>` (its `FORMAT DEBEZIUM` Kafka sink);
/// - a JDBC sink: `topic_<n>` (a Kafka source or table reading a topic) and `sink_<n>` (its
///   `jdbc` sink).
struct KsqlConnectorCatalog {
    static let prefix = "ksql_connector__"

    struct Connector {
        var name: String
        var isSource: Bool
        /// Sinks first, then tables, then sources: the order to drop them in.
        var relations: [RelationDefinition]
        /// The topics it writes (a source) or reads (a sink).
        var topics: [String]

        var className: String { isSource ? KsqlConnectorClass.debeziumPostgres : KsqlConnectorClass.jdbcSink }
        var displayName: String { KsqlJSON.columnName(name) }
    }

    let catalog: Catalog

    static func relationName(_ connector: String, _ part: String) -> String { "\(prefix)\(connector)__\(part)" }

    /// The connector and part a relation name belongs to.
    static func parse(_ relationName: String) -> (connector: String, part: String)? {
        guard relationName.hasPrefix(prefix) else { return nil }
        let rest = relationName.dropFirst(prefix.count)
        guard let separator = rest.ranges(of: "__").last else { return nil }
        return (String(rest[..<separator.lowerBound]), String(rest[separator.upperBound...]))
    }

    var connectors: [Connector] {
        let relations = catalog.visibleRelations(to: catalog.role(named: "root")).filter { $0.schema == "public" }
        var byName: [String: [RelationDefinition]] = [:]
        for relation in relations {
            if let (connector, _) = Self.parse(relation.name) { byName[connector, default: []].append(relation) }
        }
        return byName.keys.sorted().map { name in
            let members = byName[name]!.sorted { Self.dropRank($0) < Self.dropRank($1) || Self.dropRank($0) == Self.dropRank($1) && $0.name < $1.name }
            let isSource = members.contains { Self.parse($0.name)?.part == "cdc" }
            let topics = members.filter { isSource ? $0.kind == .sink : Self.parse($0.name)?.part.hasPrefix("topic_") == true }
                .compactMap { $0.connector?.options["topic"] }
            return Connector(name: name, isSource: isSource, relations: members, topics: topics)
        }
    }

    /// The connector `name` names: as written, else the one whose name differs only in case
    /// (ksqlDB shows names upper-cased, and a quoted `"PG_ORDERS"` should find `pg_orders`).
    func connector(named name: String) -> Connector? {
        let all = connectors
        return all.first { $0.name == name } ?? all.first { $0.name.lowercased() == name.lowercased() }
    }

    /// Why `connector` is not carrying changes through, from its sources' and sinks' statuses
    /// (`sluice_sources`, `sluice_sinks`): nil while every part runs.
    func trouble(of connector: Connector) -> String? {
        let ids = Set(connector.relations.map(\.id))
        let reader = catalog.systemReader
        for source in reader.sources where ids.contains(source.relationID) {
            if source.status.hasPrefix("retrying") || source.status.hasPrefix("stopped") { return source.status }
        }
        for sink in reader.sinks where ids.contains(sink.relationID) && sink.state == "retrying" {
            return "retrying: \(sink.lastError ?? "the last commit failed")"
        }
        return nil
    }

    private static func dropRank(_ relation: RelationDefinition) -> Int {
        switch relation.kind {
        case .sink: 0
        case .materializedView, .view: 1
        case .table: 2
        default: 3
        }
    }
}
