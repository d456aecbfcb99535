import SluiceCore

/// `information_schema.schemata`: the schemas, `pg_catalog` and `information_schema` first, then
/// the user schemas by oid, with their owners. Tools that list schemas the standard way read it.
enum InformationSchemaSchemata: SystemTable {
    static let schema = SystemSchema.informationSchema
    static let name = "schemata"
    static let columns: [(String, DataType)] = [("catalog_name", .varchar), ("schema_name", .varchar), ("schema_owner", .varchar)]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        let catalog = context.catalog
        return (["pg_catalog", "information_schema"] + catalog.schemas.sorted { $0.value < $1.value }.map(\.key)).map {
            [.string(context.session.database), .string($0), .string(context.ownerName(catalog.schemaAccess($0)))]
        }
    }
}
