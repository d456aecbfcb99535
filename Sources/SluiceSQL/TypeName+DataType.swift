import SluiceCore

extension TypeName {
    /// The Sluice data type this name denotes.
    ///
    /// Names are matched without a `pg_catalog` qualifier. Postgres catalog types such as
    /// `regclass` and `oid` have no ``SluiceCore/DataType``; binders that support them look at
    /// ``simpleName`` first.
    /// - Throws: `42704 type "…" does not exist` at the type's position.
    package func resolvedDataType() throws(SluiceError) -> DataType {
        var dataType = try resolvedBaseType()
        for _ in 0..<arrayDimensions { dataType = .list(dataType) }
        return dataType
    }

    private func resolvedBaseType() throws(SluiceError) -> DataType {
        switch base {
        case .structure(let fields):
            var resolved: [StructField] = []
            for field in fields { resolved.append(StructField(name: field.name, type: try field.type.resolvedDataType())) }
            return .structure(resolved)
        case .named(let name):
            guard name.parts.count == 1 || (name.parts.count == 2 && name.parts[0] == "pg_catalog") else { throw unknownType(name) }
            switch name.name {
            case "boolean", "bool": return .boolean
            case "smallint", "int2", "tinyint": return .int16
            case "int", "integer", "int4": return .int32
            case "bigint", "int8": return .int64
            case "real", "float4": return .float32
            case "double precision", "float8", "double": return .float64
            case "float":
                if let precision = modifiers.first, precision <= 24 { return .float32 }
                return .float64
            case "numeric", "decimal", "dec":
                return .decimal(precision: modifiers.first, scale: modifiers.count > 1 ? modifiers[1] : (modifiers.isEmpty ? nil : 0))
            case "varchar", "text", "string", "char", "character", "character varying", "bpchar", "name":
                return .varchar
            case "date": return .date
            case "time": return .time
            case "timestamp": return .timestamp
            case "timestamptz", "timestamp with time zone": return .timestamptz
            case "interval": return .interval
            case "jsonb", "json": return .jsonb
            case "bytea", "bytes", "varbinary", "binary": return .bytea
            default: throw unknownType(name)
            }
        }
    }

    private func unknownType(_ name: ObjectName) -> SluiceError {
        SluiceError(.undefinedObject, "type \"\(name.parts.joined(separator: "."))\" does not exist", position: position.errorPosition)
    }
}
