import SluiceCore

/// `rw_catalog.rw_sources`: RisingWave's list of sources, those the session's user may see:
/// sources, and tables with a connector, with connector, format and encoding and their
/// definitions (secrets masked). RisingWave's tools and scripts written for it read it.
enum RwSources: SystemTable {
    static let schema = SystemSchema.rwCatalog
    static let name = "rw_sources"
    static let columns: [(String, DataType)] = [
        ("id", .int32), ("name", .varchar), ("schema_id", .int32), ("owner", .int32), ("connector", .varchar),
        ("format", .varchar), ("row_encode", .varchar), ("definition", .varchar),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        context.visibleRelations.filter { $0.kind == .source || ($0.kind == .table && $0.connector != nil) }.map {
            [
                .int32(Int32($0.id)), .string($0.name), .int32(context.namespaceOID(of: $0)), .int32(Int32($0.accessControl.owner)),
                .string($0.connector?.connector.uppercased() ?? ""), .string($0.connector?.format ?? ""),
                .string($0.connector?.encode ?? ""), .string($0.maskedDefinition),
            ]
        }
    }
}
