import SluiceCore

/// `pg_catalog.pg_settings`: the settings every session starts with (``SessionDefaults``), by
/// name. pgjdbc and SQLAlchemy read it at connect; `SHOW ALL` shows the same values.
enum PgSettings: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_settings"
    static let columns: [(String, DataType)] = [
        ("name", .varchar), ("setting", .varchar), ("unit", .varchar), ("category", .varchar), ("short_desc", .varchar),
        ("context", .varchar), ("vartype", .varchar), ("source", .varchar), ("boot_val", .varchar), ("reset_val", .varchar),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        SessionDefaults.values.sorted { $0.0 < $1.0 }.map { setting in
            [
                .string(setting.0), .string(setting.1), .null, .string(""), .string(""), .string("user"), .string("string"),
                .string("default"), .string(setting.1), .string(setting.1),
            ]
        }
    }
}
