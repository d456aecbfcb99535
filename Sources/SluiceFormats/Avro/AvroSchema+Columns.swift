import SluiceCore

extension AvroSchema {
    /// The columns a record schema's fields make (a source created without its columns listed):
    /// each field's name and the type ``columnType`` gives.
    /// - Throws: `datatypeMismatch` for a schema that is not a record, `featureNotSupported`
    ///   for a field of a type no column takes.
    package func columns() throws(SluiceError) -> [(name: String, type: DataType)] {
        guard case .record(let name, let fields) = kind else {
            throw SluiceError(.datatypeMismatch, "the Avro schema is \(typeName), not a record, so it has no columns")
        }
        var columns: [(name: String, type: DataType)] = []
        for field in fields {
            do throws(SluiceError) {
                columns.append((field.name, try field.type.columnType()))
            } catch {
                throw SluiceError(error.code, "field \(field.name) of Avro record \(name): \(error.message)", hint: "List the source's columns to leave it out.")
            }
        }
        return columns
    }

    /// The column type that holds this schema's values, as RisingWave maps Avro: `int` as
    /// `integer`, `long` as `bigint`, `float` as `real`, `double` as `double precision`,
    /// `string` and `enum` as `varchar`, `bytes` and `fixed` as `bytea`, `boolean`, a record as a
    /// struct, an array as a list, `["null", T]` as T's type; logical types `date`, `time-*`,
    /// `timestamp-*` (as `timestamptz`), `local-timestamp-*` (as `timestamp`), `decimal` (as
    /// `numeric(p, s)`) and `uuid` (as `varchar`).
    package func columnType() throws(SluiceError) -> DataType {
        switch (kind, logicalType) {
        case (.int, .date?): return .date
        case (.int, .timeMillis?), (.long, .timeMicros?): return .time
        case (.long, .timestampMillis?), (.long, .timestampMicros?): return .timestamptz
        case (.long, .localTimestampMillis?), (.long, .localTimestampMicros?): return .timestamp
        case (.bytes, .decimal(let precision, let scale)?), (.fixed, .decimal(let precision, let scale)?):
            return precision <= 38 ? .decimal(precision: precision, scale: scale) : .numeric
        case (.fixed(_, 16), .uuid?): return .varchar
        default: break
        }
        switch kind {
        case .boolean: return .boolean
        case .int: return .int32
        case .long: return .int64
        case .float: return .float32
        case .double: return .float64
        case .string, .enumeration: return .varchar
        case .bytes, .fixed: return .bytea
        case .record(_, let fields):
            var structFields: [StructField] = []
            for field in fields { structFields.append(StructField(name: field.name, type: try field.type.columnType())) }
            return .structure(structFields)
        case .array(let items): return .list(try items.columnType())
        case .union(let branches):
            let others = branches.filter { $0.kind != .null }
            guard others.count == 1 else { throw SluiceError(.featureNotSupported, "a union of \(others.count) types other than null has no column type") }
            return try others[0].columnType()
        case .map: throw SluiceError(.featureNotSupported, "an Avro map has no column type yet")
        case .null: throw SluiceError(.featureNotSupported, "a field that is always null has no column type")
        case .reference(let name): throw SluiceError(.featureNotSupported, "the recursive Avro type \(name) has no column type")
        }
    }
}
