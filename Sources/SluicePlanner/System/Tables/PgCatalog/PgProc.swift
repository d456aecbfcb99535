import SluiceCore

/// `pg_catalog.pg_proc`: functions. The SQL functions users created are listed (`prolang` 14,
/// `sql`); Sluice's built-in functions are not. psql's `\df` and GUI clients read it.
enum PgProc: SystemTable {
    static let schema = SystemSchema.pgCatalog
    static let name = "pg_proc"
    static let columns: [(String, DataType)] = [
        ("oid", .int32), ("proname", .varchar), ("pronamespace", .int32), ("prorettype", .int32), ("prokind", .varchar),
        ("proowner", .int32), ("prolang", .int32), ("provolatile", .varchar), ("proisstrict", .boolean), ("proretset", .boolean),
        ("pronargs", .int16), ("proargnames", .list(.varchar)), ("prosrc", .varchar),
    ]

    /// `pg_language.oid` of `sql`.
    static let sqlLanguageOID: Int32 = 14

    static func rows(in context: SystemTableContext) -> [[Value]] {
        context.catalog.functions.map { function in
            let namespace = Int32(context.catalog.schemas[function.schema] ?? Int(SystemCatalog.publicNamespaceOID))
            let volatility = switch function.volatility ?? .volatile {
            case .immutable: "i"
            case .stable: "s"
            case .volatile: "v"
            }
            let names: Value = function.parameterNames.allSatisfy { $0 == nil } ? .null : .list(function.parameterNames.map { .string($0 ?? "") })
            return [
                .int32(Int32(function.id)), .string(function.name), .int32(namespace), .int32(function.returnType.oid), .string("f"),
                .int32(Int32(function.owner)), .int32(sqlLanguageOID), .string(volatility), .bool(function.isStrict), .bool(false),
                .int16(Int16(clamping: function.parameterTypes.count)), names, .string(function.body),
            ]
        }
    }
}
