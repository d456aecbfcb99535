import SluiceCore

extension SystemCatalog {
    /// A type as `information_schema.columns.data_type` names it: the SQL standard's name, with
    /// no modifiers, and `ARRAY` for arrays.
    static func informationSchemaTypeName(_ type: DataType) -> String {
        if case .list = type { return "ARRAY" }
        return formatType(oid: type.oid, modifier: -1) ?? (type.sqlName.split(separator: "(").first.map(String.init) ?? "")
    }

    /// `atttypmod`: numeric(p,s) packs ((p << 16) | s) + 4, as Postgres does; -1 otherwise.
    static func typeModifier(_ type: DataType) -> Int32 {
        if case .decimal(let precision?, let scale) = type { return Int32((precision << 16) | (scale ?? 0)) + 4 }
        return -1
    }

    static func udtName(_ type: DataType) -> String {
        builtinTypes.first { $0.oid == type.oid }?.name ?? "unknown"
    }

    struct BuiltinType {
        var oid: Int32
        var name: String
        var length: Int16
        var category: String
        var element: Int32 = 0
        var array: Int32 = 0
    }

    static let builtinTypes: [BuiltinType] = [
        BuiltinType(oid: 16, name: "bool", length: 1, category: "B", array: 1000),
        BuiltinType(oid: 17, name: "bytea", length: -1, category: "U", array: 1001),
        BuiltinType(oid: 18, name: "char", length: 1, category: "S"),
        BuiltinType(oid: 19, name: "name", length: 64, category: "S"),
        BuiltinType(oid: 20, name: "int8", length: 8, category: "N", array: 1016),
        BuiltinType(oid: 21, name: "int2", length: 2, category: "N", array: 1005),
        BuiltinType(oid: 23, name: "int4", length: 4, category: "N", array: 1007),
        BuiltinType(oid: 25, name: "text", length: -1, category: "S", array: 1009),
        BuiltinType(oid: 26, name: "oid", length: 4, category: "N"),
        BuiltinType(oid: 114, name: "json", length: -1, category: "U"),
        BuiltinType(oid: 700, name: "float4", length: 4, category: "N", array: 1021),
        BuiltinType(oid: 701, name: "float8", length: 8, category: "N", array: 1022),
        BuiltinType(oid: 1043, name: "varchar", length: -1, category: "S", array: 1015),
        BuiltinType(oid: 1082, name: "date", length: 4, category: "D", array: 1182),
        BuiltinType(oid: 1083, name: "time", length: 8, category: "D", array: 1183),
        BuiltinType(oid: 1114, name: "timestamp", length: 8, category: "D", array: 1115),
        BuiltinType(oid: 1184, name: "timestamptz", length: 8, category: "D", array: 1185),
        BuiltinType(oid: 1186, name: "interval", length: 16, category: "T", array: 1187),
        BuiltinType(oid: 1700, name: "numeric", length: -1, category: "N", array: 1231),
        BuiltinType(oid: 3802, name: "jsonb", length: -1, category: "U", array: 3807),
        BuiltinType(oid: 2249, name: "record", length: -1, category: "P"),
    ]

    /// The name `format_type` gives a type OID and modifier.
    static func formatType(oid: Int32, modifier: Int32) -> String? {
        switch oid {
        case 16: return "boolean"
        case 17: return "bytea"
        case 20: return "bigint"
        case 21: return "smallint"
        case 23: return "integer"
        case 25: return "text"
        case 26: return "oid"
        case 700: return "real"
        case 701: return "double precision"
        case 1043: return "character varying"
        case 1082: return "date"
        case 1083: return "time without time zone"
        case 1114: return "timestamp without time zone"
        case 1184: return "timestamp with time zone"
        case 1186: return "interval"
        case 1700:
            if modifier >= 4 {
                let packed = modifier - 4
                return "numeric(\(packed >> 16),\(packed & 0xFFFF))"
            }
            return "numeric"
        case 3802: return "jsonb"
        case 114: return "json"
        case 2249: return "record"
        default: return builtinTypes.first { $0.oid == oid }?.name
        }
    }
}
