import SluiceCore
import SluiceFormats

// Iceberg spec: Appendix A, "Avro" — how each type is written in Avro — applied to the
// partition tuple of a manifest entry (`data_file.partition`, field 102).

extension IcebergPartitionSpec {
    /// The partition type as a manifest stores it: per spec field, in order, its name, its
    /// partition field id and the Avro schema of its result type, optional (`["null", T]`)
    /// because every transform maps null to null and `void` maps everything to null.
    ///
    /// The schemas are those Java and pyiceberg write, so manifests read alike in either:
    /// `{"type": "int", "logicalType": "date"}` for a date, `timestamp-micros` with
    /// `adjust-to-utc`, decimals as `fixed` named `decimal_P_S` of the fewest bytes that
    /// hold the precision, uuids as `fixed` 16 named `uuid_fixed`.
    ///
    /// One exception: when two fields would define the same fixed name (say identity and
    /// truncate of one decimal column), the later one is named `<name>_<field id>`. Java
    /// writes the repeat as a bare name reference, which pyiceberg 0.12 cannot resolve
    /// ("Type not recognized: decimal_9_2"), and pyiceberg writes the definition twice, which
    /// Java's Avro parser rejects; distinct names read in both, and Iceberg readers match
    /// fields by id, not by type name.
    /// - Throws: `42703` for a field whose source column is not in `schema`, `0A000` for a
    ///   transform that does not apply to its source type.
    package func manifestPartitionType(for schema: IcebergSchema) throws(SluiceError) -> [IcebergManifestPartitionField] {
        var result: [IcebergManifestPartitionField] = []
        var fixedNames: Set<String> = []
        for field in try partitionType(for: schema).fields {
            var type = try IcebergPartitionSchemas.avroSchema(of: field.type)
            if case .fixed(let name, let size) = type.kind, !fixedNames.insert(name).inserted {
                type.kind = .fixed(name: "\(name)_\(field.id)", size: size)
            }
            result.append(IcebergManifestPartitionField(name: field.name, fieldID: field.id, type: .optional(type)))
        }
        return result
    }
}

/// The Avro schemas of partition values (spec, Appendix A).
package enum IcebergPartitionSchemas {
    /// The Avro schema of a primitive Iceberg type, not optional.
    /// - Throws: `0A000` for a nested type (no transform yields one).
    package static func avroSchema(of type: IcebergType) throws(SluiceError) -> AvroSchema {
        switch type {
        case .boolean: return .boolean
        case .int: return .int
        case .long: return .long
        case .float: return .float
        case .double: return .double
        case .date: return AvroSchema(.int, logicalType: .date)
        case .time: return AvroSchema(.long, logicalType: .timeMicros)
        case .timestamp, .timestamptz:
            let isAdjustedToUTC: Bool
            if case .timestamptz = type { isAdjustedToUTC = true } else { isAdjustedToUTC = false }
            return AvroSchema(.long, logicalType: .timestampMicros, properties: [JSONDocument.Member("adjust-to-utc", .bool(isAdjustedToUTC))])
        case .string: return .string
        case .binary: return .bytes
        case .uuid: return AvroSchema(.fixed(name: "uuid_fixed", size: 16), logicalType: .uuid)
        case .fixed(let length): return AvroSchema(.fixed(name: "fixed_\(length)", size: length))
        case .decimal(let precision, let scale):
            return AvroSchema(.fixed(name: "decimal_\(precision)_\(scale)", size: decimalByteCount(precision: precision)),
                              logicalType: .decimal(precision: precision, scale: scale))
        case .structure, .list, .map:
            throw SluiceError(.featureNotSupported, "a partition field cannot have a nested type")
        }
    }

    /// The fewest bytes whose two's complement holds every unscaled value of `precision`
    /// digits: the smallest `n` with `2^(8n-1) >= 10^precision` (Java's
    /// `TypeUtil.decimalRequiredBytes`): 1 byte for 2 digits, 4 for 9, 8 for 18, 16 for 38.
    package static func decimalByteCount(precision: Int) -> Int {
        var byteCount = 1
        // Exact in UInt128 up to 38 digits: compare 10^p with 2^(8n-1).
        var power: UInt128 = 1
        for _ in 0 ..< min(max(precision, 0), 38) { power *= 10 }
        while byteCount < 16, (UInt128(1) << UInt128(8 * byteCount - 1)) < power { byteCount += 1 }
        return byteCount
    }
}
