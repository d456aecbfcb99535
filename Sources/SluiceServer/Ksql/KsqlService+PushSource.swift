import SluiceCore
import SluicePlanner
import SluiceSQL

extension KsqlService {
    /// A push query over one Kafka stream reads it from its own offset reset (ksqlDB's
    /// `auto.offset.reset`, `latest` unless the request says `earliest`), not from where the
    /// stream's source started: the query is rewritten to read a source of its own over the same
    /// topic, with the stream's columns, format and options and the query's start. Nil when the
    /// query reads something else (a view, a table, a join), which it then reads as it is.
    func privateSource(for query: Query, named name: String, reset: String) -> (query: Query, source: CreateSource)? {
        guard case .select(var select) = query.body, select.from.count == 1,
              case .table(let relationName, let alias, let position) = select.from[0],
              relationName.qualifier.isEmpty || relationName.qualifier == ["public"],
              let relation = database.catalog.relation(named: relationName.name), relation.kind == .source,
              let connector = relation.connector, connector.options["connector"] == "kafka", connector.includes?.isEmpty ?? true
        else { return nil }
        var columns: [ColumnDefinition] = []
        for column in relation.columns {
            guard column.generatedExpression == nil, let type = try? SQLParser.parseTypeName(column.type.sqlName) else { return nil }
            columns.append(ColumnDefinition(name: column.name, type: type))
        }
        var options = connector.options.filter { !$0.key.hasPrefix("scan.startup.") }.sorted { $0.key < $1.key }
            .map { WithOption(key: $0.key, value: .string($0.value)) }
        options.append(WithOption(key: "scan.startup.mode", value: .string(reset)))
        let formatOptions = connector.formatOptions.sorted { $0.key < $1.key }.map { WithOption(key: $0.key, value: .string($0.value)) }
        let source = CreateSource(
            name: ObjectName(name), columns: columns, options: options,
            format: FormatEncode(format: connector.format, encode: connector.encode, options: formatOptions))
        // Column references qualified by the stream's name still resolve.
        select.from = [.table(ObjectName(name), alias: alias ?? TableAlias(name: relationName.name), position: position)]
        var rewritten = query
        rewritten.body = .select(select)
        return (rewritten, source)
    }

    /// The offset reset a request asks for (`latest` unless it says otherwise).
    static func offsetReset(_ properties: [String: String]) -> String {
        let reset = (properties["ksql.streams.auto.offset.reset"] ?? properties["auto.offset.reset"] ?? "latest").lowercased()
        return reset == "earliest" ? "earliest" : "latest"
    }
}
