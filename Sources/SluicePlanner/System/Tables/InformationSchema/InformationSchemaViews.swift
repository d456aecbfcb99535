import SluiceCore

/// `information_schema.views`: the views and materialized views the session's user may see, with
/// their definitions (secrets masked). Tools that list views the standard way read it.
enum InformationSchemaViews: SystemTable {
    static let schema = SystemSchema.informationSchema
    static let name = "views"
    static let columns: [(String, DataType)] = [
        ("table_catalog", .varchar), ("table_schema", .varchar), ("table_name", .varchar), ("view_definition", .varchar),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        context.visibleRelations.filter { $0.kind == .view || $0.kind == .materializedView }.map {
            [.string(context.session.database), .string($0.schema), .string($0.name), .string($0.maskedDefinition)]
        }
    }
}
