import SluiceCore

/// `rw_catalog.rw_materialized_views`: RisingWave's list of materialized views, those the
/// session's user may see, with definitions (secrets masked). RisingWave's tools and scripts
/// written for it read it.
enum RwMaterializedViews: SystemTable {
    static let schema = SystemSchema.rwCatalog
    static let name = "rw_materialized_views"
    static let columns: [(String, DataType)] = [
        ("id", .int32), ("name", .varchar), ("schema_id", .int32), ("owner", .int32), ("definition", .varchar),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        context.visibleRelations.filter { $0.kind == .materializedView }.map {
            [
                .int32(Int32($0.id)), .string($0.name), .int32(context.namespaceOID(of: $0)), .int32(Int32($0.accessControl.owner)),
                .string($0.maskedDefinition),
            ]
        }
    }
}
