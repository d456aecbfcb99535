import SluiceCore
@testable import SluiceFormats

/// Shared helpers of the Parquet tests: a schema of every type and rows of known values.
enum ParquetTestSupport {
    static let point = DataType.structure([StructField(name: "x", type: .int32), StructField(name: "label", type: .varchar)])

    static let schema: [ParquetColumnSchema] = [
        ParquetColumnSchema(name: "b", type: .boolean, fieldID: 1),
        ParquetColumnSchema(name: "i16", type: .int16, fieldID: 2),
        ParquetColumnSchema(name: "i32", type: .int32, nullable: false, fieldID: 3),
        ParquetColumnSchema(name: "i64", type: .int64, fieldID: 4),
        ParquetColumnSchema(name: "f32", type: .float32, fieldID: 5),
        ParquetColumnSchema(name: "f64", type: .float64, fieldID: 6),
        ParquetColumnSchema(name: "d9", type: .decimal(precision: 9, scale: 2), fieldID: 7),
        ParquetColumnSchema(name: "d18", type: .decimal(precision: 18, scale: 4), fieldID: 8),
        ParquetColumnSchema(name: "d38", type: .decimal(precision: 38, scale: 10), fieldID: 9),
        ParquetColumnSchema(name: "s", type: .varchar, fieldID: 10),
        ParquetColumnSchema(name: "j", type: .jsonb, fieldID: 11),
        ParquetColumnSchema(name: "by", type: .bytea, fieldID: 12),
        ParquetColumnSchema(name: "dt", type: .date, fieldID: 13),
        ParquetColumnSchema(name: "tm", type: .time, fieldID: 14),
        ParquetColumnSchema(name: "ts", type: .timestamp, fieldID: 15),
        ParquetColumnSchema(name: "tstz", type: .timestamptz, fieldID: 16),
        ParquetColumnSchema(name: "pt", type: point, nullable: true, fieldID: 17, children: [
            ParquetColumnSchema(name: "x", type: .int32, fieldID: 18), ParquetColumnSchema(name: "label", type: .varchar, fieldID: 19),
        ]),
        ParquetColumnSchema(name: "tags", type: .list(.varchar), nullable: true, fieldID: 20, children: [
            ParquetColumnSchema(name: "element", type: .varchar, fieldID: 21),
        ]),
        ParquetColumnSchema(name: "pts", type: .list(point), fieldID: 22),
        ParquetColumnSchema(name: "nested", type: .list(.list(.int64)), fieldID: 23),
    ]

    /// Row `row`'s values: nulls at every level, empty strings and lists, negative numbers.
    static func row(_ row: Int) -> [Value] {
        let isNull = row % 7 == 3
        return [
            isNull ? .null : .bool(row % 3 == 0),
            isNull ? .null : .int16(Int16(row % 30000) - 15000),
            .int32(Int32(row) * 7 - 10000),
            isNull ? .null : .int64(Int64(row) * 1_000_000_007 - 5),
            isNull ? .null : .float32(Float(row) / 4),
            isNull ? .null : .float64(Double(row) * -1.5),
            isNull ? .null : .decimal(Decimal(mantissa: Int128(row * 101 - 5000), scale: 2)),
            isNull ? .null : .decimal(Decimal(mantissa: Int128(row) * 123_456_789 - 77, scale: 4)),
            isNull ? .null : .decimal(Decimal(mantissa: Int128(row) * 10_000_000_000_000_000_000_000 - 3, scale: 10)),
            isNull ? .null : .string(row % 5 == 0 ? "" : "str-\(row % 50)-é"),
            isNull ? .null : .jsonb("{\"a\": \(row)}"),
            isNull ? .null : .bytea(row % 9 == 0 ? [] : [UInt8(row % 256), 0, 255]),
            isNull ? .null : .date(Int32(row) - 1000),
            isNull ? .null : .time(Int64(row) * 1_000_123),
            isNull ? .null : .timestamp(Int64(row) * 3_600_000_123 - 1_000_000),
            isNull ? .null : .timestamptz(1_700_000_000_000_000 + Int64(row) * 1_000),
            row % 5 == 1 ? .null : .structure([row % 4 == 0 ? .null : .int32(Int32(row)), .string("p\(row % 3)")]),
            row % 6 == 2 ? .null : .list((0 ..< row % 4).map { $0 == 1 ? .null : .string("t\($0)") }),
            .list((0 ..< row % 3).map { k in k == 1 && row % 2 == 0 ? .null : .structure([.int32(Int32(k)), .null]) }),
            row % 8 == 5 ? .null : .list((0 ..< row % 3).map { k in k == 0 && row % 4 == 1 ? .null : .list((0 ..< k).map { .int64(Int64($0 * row)) }) }),
        ]
    }

    static func chunk(_ rows: Range<Int>, schema: [ParquetColumnSchema] = schema, row: (Int) -> [Value] = row) -> Chunk {
        let values = rows.map(row)
        return Chunk(columns: schema.indices.map { column in Column(type: schema[column].type, values: values.map { $0[column] }) })
    }

    /// Writes `chunks` and returns the file's bytes and summary.
    static func write(_ chunks: [Chunk], schema: [ParquetColumnSchema] = schema, options: ParquetWriterOptions) throws(SluiceError) -> ([UInt8], ParquetFileSummary) {
        let writer = try ParquetWriter(schema: schema, options: options)
        var bytes: [UInt8] = []
        for chunk in chunks {
            try writer.write(chunk)
            bytes += writer.takeOutput()
        }
        let (tail, summary) = try writer.finish()
        return (bytes + tail, summary)
    }

    /// Every row of every row group.
    static func readAll(_ bytes: [UInt8], columns: [Int]? = nil) throws(SluiceError) -> [[Value]] {
        let reader = try ParquetReader(input: ParquetBytesInput(bytes))
        var rows: [[Value]] = []
        for index in reader.rowGroups.indices { rows += try reader.readRowGroup(index, columns: columns).rows }
        return rows
    }
}
