import SluiceCore
import SluiceFormats

/// Turns a column as a data file stores it into the column the table's current schema
/// describes (Iceberg spec: "Schema Evolution"): allowed type promotions (`int`→`long`,
/// `float`→`double`, decimal precision widening), nested struct fields found by field id
/// (missing ones null), and `uuid` bytes as their text form.
enum IcebergColumnConformer {
    /// `column`, read from a file whose schema for it is `fileSchema`, as a column of `type`.
    /// - Throws: `42804` when the file's type cannot be read as `type`.
    static func conform(_ column: Column, fileSchema: ParquetColumnSchema, to type: IcebergType, path: String) throws(SluiceError) -> Column {
        let target = try type.sluiceType()
        switch (type, column.storage) {
        case (.structure(let structType), .structure(let children, let count)):
            var conformed: [Column] = []
            for field in structType.fields {
                let fieldType = try field.type.sluiceType()
                guard let childIndex = fileSchema.children.firstIndex(where: { $0.fieldID.map(Int.init) == field.id }),
                      childIndex < children.count else {
                    conformed.append(Column.nulls(of: fieldType, count: count))
                    continue
                }
                conformed.append(try conform(children[childIndex], fileSchema: fileSchema.children[childIndex], to: field.type, path: path))
            }
            return Column(type: target, storage: .structure(conformed, count: count), validity: column.validity)
        case (.list(let listType), .list(let offsets, let elements)):
            guard let elementSchema = fileSchema.children.first else { throw mismatch(column.type, target, fileSchema.name, path) }
            let conformed = try conform(elements, fileSchema: elementSchema, to: listType.element, path: path)
            return Column(type: target, storage: .list(offsets: offsets, elements: conformed), validity: column.validity)
        case (.uuid, .bytes(let bytes)) where column.type == .bytea:
            return Column(type: .varchar, storage: .bytes(uuidText(bytes)), validity: column.validity)
        default:
            break
        }
        if column.type == target { return column }
        switch (column.type, target, column.storage) {
        case (.int16, .int32, .int16(let values)):
            return Column(type: target, storage: .int32(values.map { Int32($0) }), validity: column.validity)
        case (.int16, .int64, .int16(let values)):
            return Column(type: target, storage: .int64(values.map { Int64($0) }), validity: column.validity)
        case (.int32, .int64, .int32(let values)):
            return Column(type: target, storage: .int64(values.map { Int64($0) }), validity: column.validity)
        case (.float32, .float64, .float32(let values)):
            return Column(type: target, storage: .float64(values.map { Double($0) }), validity: column.validity)
        case (.decimal(let fromPrecision?, let fromScale?), .decimal(let toPrecision?, let toScale?), _)
            where fromScale == toScale && fromPrecision <= toPrecision:
            var relabeled = column
            relabeled.type = target
            return relabeled
        case (.timestamp, .timestamptz, _), (.timestamptz, .timestamp, _), (.jsonb, .varchar, _):
            // The same microseconds (or text) under the table's type.
            var relabeled = column
            relabeled.type = target
            return relabeled
        default:
            throw mismatch(column.type, target, fileSchema.name, path)
        }
    }

    private static func mismatch(_ found: DataType, _ expected: DataType, _ name: String, _ path: String) -> SluiceError {
        SluiceError(.datatypeMismatch, "column \"\(name)\" of data file \"\(path)\" has type \(found.sqlName), which cannot be read as \(expected.sqlName)")
    }

    /// 16-byte uuids as `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`; other lengths as hex.
    private static func uuidText(_ bytes: VarBytes) -> VarBytes {
        let digits = Array("0123456789abcdef".utf8)
        var result = VarBytes()
        result.reserveCapacity(rows: bytes.count, bytes: bytes.count * 36)
        var text: [UInt8] = []
        text.reserveCapacity(36)
        for row in 0 ..< bytes.count {
            text.removeAll(keepingCapacity: true)
            let range = bytes.byteRange(at: row)
            for (offset, index) in range.enumerated() {
                if range.count == 16, offset == 4 || offset == 6 || offset == 8 || offset == 10 { text.append(UInt8(ascii: "-")) }
                let byte = bytes.data[index]
                text.append(digits[Int(byte >> 4)])
                text.append(digits[Int(byte & 0x0F)])
            }
            result.append(text)
        }
        return result
    }
}
