import Testing
import SluiceCore
@testable import SluiceFormats

@Suite("Parquet writer and reader: round trips")
struct ParquetRoundTripTests {
    @Test(arguments: ParquetCompression.allCases)
    func everyTypeRoundTripsWithEachCodec(_ compression: ParquetCompression) throws {
        let chunks = stride(from: 0, to: 3000, by: 700).map { ParquetTestSupport.chunk($0 ..< min($0 + 700, 3000)) }
        let options = ParquetWriterOptions(compression: compression, rowGroupBytes: 40_000, pageBytes: 2048)
        let (bytes, summary) = try ParquetTestSupport.write(chunks, options: options)
        let reader = try ParquetReader(input: ParquetBytesInput(bytes))
        #expect(reader.rowGroups.count > 1)
        #expect(summary.rowGroupCount == reader.rowGroups.count)
        #expect(summary.fileSize == Int64(bytes.count))
        #expect(reader.rowCount == 3000)
        #expect(reader.schema == ParquetTestSupport.schema)
        let rows = try ParquetTestSupport.readAll(bytes)
        #expect(rows.count == 3000)
        for (index, row) in rows.enumerated() where row != ParquetTestSupport.row(index) {
            Issue.record("row \(index): \(row) != \(ParquetTestSupport.row(index))")
            break
        }
    }

    /// Flat columns stream a page at a time (``ParquetReader/readRowGroup(_:columns:from:chunkRows:each:)``);
    /// nested ones are decoded whole and sliced. Either way the chunks hold the rows written,
    /// from the row asked for, in chunks that cross page boundaries anywhere.
    @Test(arguments: [(ParquetCompression.zstd, true), (.snappy, false), (.uncompressed, true)])
    func rowGroupsStreamInChunksFromAnyRow(_ compression: ParquetCompression, dictionary: Bool) throws {
        let chunks = stride(from: 0, to: 3000, by: 700).map { ParquetTestSupport.chunk($0 ..< min($0 + 700, 3000)) }
        let options = ParquetWriterOptions(compression: compression, rowGroupBytes: 60_000, pageBytes: 1500, dictionaryEnabled: dictionary)
        let (bytes, _) = try ParquetTestSupport.write(chunks, options: options)
        let reader = try ParquetReader(input: ParquetBytesInput(bytes))
        #expect(reader.rowGroups.count > 1)
        for (columns, chunkRows, skip) in [(Array(0 ..< 16), 333, 0), (Array(0 ..< 16), 1, 7), ([15, 9, 0], 1024, 250), (nil, 97, 41)] as [([Int]?, Int, Int)] {
            var first = 0
            for group in reader.rowGroups.indices {
                let rows = Int(reader.rowGroups[group].rowCount)
                var streamed: [[Value]] = []
                try reader.readRowGroup(group, columns: columns, from: skip, chunkRows: chunkRows) { chunk in
                    #expect(chunk.count <= chunkRows && chunk.count > 0)
                    streamed += chunk.rows
                    return true
                }
                let expected = (first + min(skip, rows) ..< first + rows).map { row in
                    let values = ParquetTestSupport.row(row)
                    return columns.map { $0.map { values[$0] } } ?? values
                }
                #expect(streamed == expected, "group \(group), columns \(String(describing: columns)), chunks of \(chunkRows) from \(skip)")
                first += rows
            }
        }
    }

    /// A column without NULLs in its first pages and with them later: the pages before the
    /// first NULL keep no levels, and the chunks that span both still place every NULL.
    @Test func nullsThatAppearOnlyInLaterPagesArePlaced() throws {
        let schema = [ParquetColumnSchema(name: "v", type: .int64), ParquetColumnSchema(name: "s", type: .varchar)]
        let row = { (row: Int) -> [Value] in
            row >= 2100 && row % 3 == 0 ? [.null, .null] : [.int64(Int64(row)), .string("s\(row % 40)")]
        }
        let chunk = ParquetTestSupport.chunk(0 ..< 3000, schema: schema, row: row)
        let (bytes, _) = try ParquetTestSupport.write([chunk], schema: schema, options: ParquetWriterOptions(pageBytes: 2048))
        #expect(try ParquetTestSupport.readAll(bytes) == (0 ..< 3000).map(row))
        let reader = try ParquetReader(input: ParquetBytesInput(bytes))
        var streamed: [[Value]] = []
        try reader.readRowGroup(0, chunkRows: 1000) { chunk in
            streamed += chunk.rows
            return true
        }
        #expect(streamed == (0 ..< 3000).map(row))
        // `each` returning false stops the group.
        var calls = 0
        try reader.readRowGroup(0, chunkRows: 100) { _ in
            calls += 1
            return calls < 3
        }
        #expect(calls == 3)
    }

    @Test func plainEncodingWithoutDictionaryRoundTrips() throws {
        let options = ParquetWriterOptions(compression: .snappy, pageBytes: 1024, dictionaryEnabled: false)
        let (bytes, _) = try ParquetTestSupport.write([ParquetTestSupport.chunk(0 ..< 1500)], options: options)
        let rows = try ParquetTestSupport.readAll(bytes)
        #expect(rows == (0 ..< 1500).map(ParquetTestSupport.row))
    }

    @Test func projectionReadsTheChosenColumnsInOrder() throws {
        let (bytes, _) = try ParquetTestSupport.write([ParquetTestSupport.chunk(0 ..< 50)], options: ParquetWriterOptions())
        let rows = try ParquetTestSupport.readAll(bytes, columns: [18, 9, 2])
        #expect(rows == (0 ..< 50).map { let row = ParquetTestSupport.row($0); return [row[18], row[9], row[2]] })
    }

    @Test func summaryCountsValuesNullsNaNsAndBounds() throws {
        let schema = [
            ParquetColumnSchema(name: "f", type: .float64, fieldID: 7),
            ParquetColumnSchema(name: "s", type: .varchar, fieldID: 8),
            ParquetColumnSchema(name: "l", type: .list(.int32), nullable: true, fieldID: 9, children: [ParquetColumnSchema(name: "element", type: .int32, fieldID: 10)]),
        ]
        let rows: [[Value]] = [
            [.float64(.nan), .string("b"), .list([.int32(5), .null])],
            [.float64(2.5), .null, .null],
            [.null, .string("ab"), .list([])],
            [.float64(-1), .string("\u{e9}"), .list([.int32(-3)])],
        ]
        let chunk = Chunk(columns: schema.indices.map { column in Column(type: schema[column].type, values: rows.map { $0[column] }) })
        let (bytes, summary) = try ParquetTestSupport.write([chunk], schema: schema, options: ParquetWriterOptions())
        #expect(summary.rowCount == 4)
        let float = summary.columns[0], string = summary.columns[1], element = summary.columns[2]
        #expect(float.fieldID == 7 && float.valueCount == 4 && float.nullCount == 1 && float.nanCount == 1)
        #expect(float.min == .float64(-1) && float.max == .float64(2.5))
        // Unsigned byte order: "ab" < "b" < "é" (0xC3 0xA9).
        #expect(string.nullCount == 1 && string.nanCount == nil && string.min == .string("ab") && string.max == .string("\u{e9}"))
        #expect(element.path == ["l", "list", "element"] && element.fieldID == 10)
        // Entries: [5, null], null list, empty list, [-3] → 5 entries, 3 of them without a value.
        #expect(element.valueCount == 5 && element.nullCount == 3 && element.min == .int32(-3) && element.max == .int32(5))
        let reader = try ParquetReader(input: ParquetBytesInput(bytes))
        let chunkInfo = reader.rowGroups[0].columns[1]
        #expect(chunkInfo.min == .string("ab") && chunkInfo.max == .string("\u{e9}") && chunkInfo.nullCount == 1)
        #expect(reader.leafColumns.map(\.fieldID) == [7, 8, 10])
    }

    @Test func writerRefusesWhatParquetCannotHold() {
        #expect(throws: SluiceError.self) { try ParquetWriter(schema: [ParquetColumnSchema(name: "i", type: .interval)]) }
        do {
            _ = try ParquetWriter(schema: [ParquetColumnSchema(name: "n", type: .numeric)])
            Issue.record("unconstrained numeric accepted")
        } catch {
            #expect(error.code == .featureNotSupported)
        }
        do {
            _ = try ParquetWriter(schema: [ParquetColumnSchema(name: "i", type: .interval)])
        } catch {
            #expect(error.code == .featureNotSupported)
        }
    }

    @Test func decimalsAreRescaledAndOverflowIsRefused() throws {
        let schema = [ParquetColumnSchema(name: "d", type: .decimal(precision: 5, scale: 2))]
        let writer = try ParquetWriter(schema: schema)
        try writer.write(Chunk(columns: [Column(type: .decimal(precision: 5, scale: 2), values: [.decimal(Decimal(mantissa: 15, scale: 1)), .decimal(Decimal(Int64(7)))])]))
        let (tail, summary) = try writer.finish()
        #expect(summary.columns[0].min == .decimal(Decimal(mantissa: 150, scale: 2)))
        let rows = try ParquetTestSupport.readAll(writer.takeOutput() + tail)
        #expect(rows.count == 2)
        let overflowing = try ParquetWriter(schema: schema)
        do {
            try overflowing.write(Chunk(columns: [Column(type: .decimal(precision: 5, scale: 2), values: [.decimal(Decimal(Int64(1000)))])]))
            Issue.record("1000 accepted in numeric(5,2)")
        } catch {
            #expect(error.code == .numericValueOutOfRange)
        }
    }

    @Test func nullInRequiredColumnIsRefused() throws {
        let writer = try ParquetWriter(schema: [ParquetColumnSchema(name: "i", type: .int32, nullable: false)])
        do {
            try writer.write(Chunk(columns: [Column(type: .int32, values: [.int32(1), .null])]))
            Issue.record("null accepted")
        } catch {
            #expect(error.code == .notNullViolation)
        }
    }

    @Test func keyValueMetadataAndCreatedByAreKept() throws {
        let options = ParquetWriterOptions(keyValueMetadata: [ParquetKeyValuePair(key: "iceberg.schema", value: "{}"), ParquetKeyValuePair(key: "k", value: nil)])
        let (bytes, _) = try ParquetTestSupport.write([ParquetTestSupport.chunk(0 ..< 3)], options: options)
        let reader = try ParquetReader(input: ParquetBytesInput(bytes))
        #expect(reader.keyValueMetadata == options.keyValueMetadata)
        #expect(reader.createdBy == "sluice")
    }
}
