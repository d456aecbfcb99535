import SluiceCore

/// `rw_catalog.rw_sinks`: RisingWave's list of sinks, those the session's user may see, with
/// connector, `APPEND_ONLY` or `UPSERT`, and definitions (secrets masked). RisingWave's tools and
/// scripts written for it read it.
enum RwSinks: SystemTable {
    static let schema = SystemSchema.rwCatalog
    static let name = "rw_sinks"
    static let columns: [(String, DataType)] = [
        ("id", .int32), ("name", .varchar), ("schema_id", .int32), ("owner", .int32), ("connector", .varchar),
        ("sink_type", .varchar), ("definition", .varchar),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        context.visibleRelations.filter { $0.kind == .sink }.map {
            [
                .int32(Int32($0.id)), .string($0.name), .int32(context.namespaceOID(of: $0)), .int32(Int32($0.accessControl.owner)),
                .string($0.connector?.connector ?? ""), .string($0.appendOnly == false ? "UPSERT" : "APPEND_ONLY"), .string($0.maskedDefinition),
            ]
        }
    }
}
