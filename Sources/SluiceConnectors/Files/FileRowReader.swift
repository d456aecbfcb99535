import SluiceCore
import SluiceFormats
import SluiceLakehouse

/// One file found under a file source's root.
struct SourceFile: Sendable, Hashable {
    /// Where FileIO reads it (`file:///…`, `s3://…`).
    var location: String
    /// Its path under the root, `/`-separated: where Hive folders are read from.
    var relativePath: String
    var size: Int
}

/// Reads one file's rows in the source's columns, a chunk of about ``Chunk/preferredSize`` rows
/// at a time: JSON lines, CSV or Parquet, gzip inflated on the way.
///
/// A file's *units* are what its position counts: lines of JSON, records of CSV (not the
/// header), rows of Parquet. A read can start after the first `skip` units, so a source goes on
/// mid-file after a restart. A bad unit (a line that is not a JSON object of the columns, a
/// record with the wrong number of fields or a value its column cannot hold) is handed to
/// `reject` and skipped; a file that cannot be read at all (a damaged Parquet footer, a file
/// gone) throws, and the source records it and goes on with the next file.
///
/// Columns named in the path as Hive folders (`event_type=buy/dt=2026-11-26/…`) take the
/// folder's value for every row of the file; columns neither in the file nor in the path are
/// NULL.
struct FileRowReader {
    let columns: [(name: String, type: DataType)]
    let encoding: FileSourceOptions.Encoding
    let compression: FileSourceOptions.Compression
    let fileIO: any FileIO
    /// Bytes read from storage at a time.
    var blockBytes = 4 << 20
    /// The columns read from Parquet files (nil: all); the others are NULL.
    var wanted: Set<Int>?
    /// Where a Parquet column's next page is decompressed while its current one is decoded
    /// (nil: in turn, on the reading thread).
    var background: (any BackgroundJobs)?

    struct Rejection {
        /// The unit (line, record, row group's first row) it was, 1-based for lines.
        var unit: Int64
        var message: String
        var payload: [UInt8]
    }

    /// The values of the columns the path names (`name=value` folders), by column index.
    func partitionValues(_ relativePath: String) -> [Int: Value] {
        var values: [Int: Value] = [:]
        for component in relativePath.split(separator: "/").dropLast() {
            guard let equals = component.firstIndex(of: "=") else { continue }
            let name = component[..<equals].lowercased()
            let text = Self.unescape(String(component[component.index(after: equals)...]))
            guard let index = columns.firstIndex(where: { $0.name.lowercased() == name }) else { continue }
            if text == "__HIVE_DEFAULT_PARTITION__" {
                values[index] = .null
            } else if case .varchar = columns[index].type {
                values[index] = .string(text)
            } else {
                values[index] = (try? Value(parsingText: text, as: columns[index].type)) ?? .null
            }
        }
        return values
    }

    /// Hive's `%XX` escapes undone.
    static func unescape(_ text: String) -> String {
        guard text.contains("%") else { return text }
        var bytes: [UInt8] = []
        let source = Array(text.utf8)
        var index = 0
        while index < source.count {
            if source[index] == UInt8(ascii: "%"), index + 2 < source.count,
               let high = hexValue(source[index + 1]), let low = hexValue(source[index + 2]) {
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(source[index])
                index += 1
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? { HexDigits.value(byte) }

    /// Reads `file` after its first `skip` units; `each` takes each chunk with the units read
    /// through its last row (rejected ones included).
    func read(
        _ file: SourceFile, skip: Int64, mayMatch: ((Int, IcebergColumnEvidence) -> Bool)? = nil,
        each: (Chunk, Int64) throws(SluiceError) -> Void, reject: (Rejection) -> Void
    ) throws(SluiceError) {
        let constants = partitionValues(file.relativePath)
        switch encoding {
        case .parquet:
            try readParquet(file, skip: skip, constants: constants, mayMatch: mayMatch, each: each)
        case .json:
            var decoder = JSONRowDecoder(columns: columns)
            var builders = decoder.makeBuilders()
            var unit: Int64 = 0
            var carry: [UInt8] = []
            func line(_ bytes: UnsafeRawBufferPointer) throws(SluiceError) {
                unit += 1
                guard unit > skip else { return }
                var body = bytes
                if body.last == 13 { body = UnsafeRawBufferPointer(rebasing: body.dropLast()) }
                guard body.contains(where: { $0 != 32 && $0 != 9 }) else { return }
                do throws(JSONDecodeError) {
                    try decoder.decodeRow(body, into: &builders)
                } catch {
                    reject(Rejection(unit: unit, message: "line \(unit): \(error.message)", payload: Array(body.prefix(256))))
                }
                if builders[0].count >= Chunk.preferredSize {
                    try each(finish(&builders, decoder: decoder, constants: constants), unit)
                }
            }
            try readBytes(file) { (bytes, isLast) throws(SluiceError) in
                var start = 0
                if !carry.isEmpty {
                    guard let newline = bytes.firstIndex(of: 10) else {
                        carry.append(contentsOf: bytes)
                        guard carry.count <= 64 << 20 else { throw SluiceError(.programLimitExceeded, "a line of \(file.relativePath) is longer than 64 MiB") }
                        if isLast { try carry.withRawBytes { (all) throws(SluiceError) in try line(all) } }
                        return
                    }
                    carry.append(contentsOf: bytes[..<newline])
                    try carry.withRawBytes { (all) throws(SluiceError) in try line(all) }
                    carry.removeAll(keepingCapacity: true)
                    start = newline + 1
                }
                var index = start
                while index < bytes.count {
                    if bytes[index] == 10 {
                        try line(UnsafeRawBufferPointer(rebasing: bytes[start ..< index]))
                        start = index + 1
                    }
                    index += 1
                }
                if start < bytes.count {
                    if isLast {
                        try line(UnsafeRawBufferPointer(rebasing: bytes[start...]))
                    } else {
                        carry.append(contentsOf: bytes[start...])
                    }
                }
            }
            if builders[0].count > 0 { try each(finish(&builders, decoder: decoder, constants: constants), unit) }
        case .csv(let options):
            try readCSV(file, options: options, skip: skip, constants: constants, each: each, reject: reject)
        case .yaml:
            try readYAML(file, skip: skip, constants: constants, each: each, reject: reject)
        }
    }

    /// The builders' rows as a chunk, the path's columns filled in.
    private func finish(_ builders: inout [ColumnBuilder], decoder: JSONRowDecoder, constants: [Int: Value]) -> Chunk {
        let count = builders[0].count
        var columns = builders.map { $0.finish() }
        builders = decoder.makeBuilders()
        for (index, value) in constants { columns[index] = Self.constant(value, type: self.columns[index].type, count: count) }
        return Chunk(columns: columns, count: count)
    }

    static func constant(_ value: Value, type: DataType, count: Int) -> Column {
        Column(type: type, repeating: value, count: count)
    }

    // MARK: Bytes

    /// The file's bytes a block at a time, inflated when it is gzip.
    private func readBytes(_ file: SourceFile, _ body: (UnsafeRawBufferPointer, Bool) throws(SluiceError) -> Void) throws(SluiceError) {
        var offset = 0
        var inflater: GzipInflater?
        var decided = compression != .auto
        if compression == .gzip { inflater = GzipInflater() }
        if file.size == 0 {
            try body(UnsafeRawBufferPointer(start: nil, count: 0), true)
            return
        }
        while offset < file.size {
            let end = min(file.size, offset + blockBytes)
            let block = try fileIO.read(file.location, range: offset ..< end)
            guard block.count == end - offset else {
                throw SluiceError(.ioError, "\(file.relativePath) changed while it was read")
            }
            if !decided {
                decided = true
                if GzipInflater.isGzip(block) { inflater = GzipInflater() }
            }
            offset = end
            let isLast = offset >= file.size
            if let inflater {
                // The inflater's pieces: the last one of the last block is the end.
                var pieces: [[UInt8]] = []
                try block.withRawBytes { (raw) throws(SluiceError) in
                    try inflater.feed(raw, isLast: isLast) { (piece) throws(SluiceError) in
                        if let previous = pieces.popLast() { try previous.withRawBytes { (bytes) throws(SluiceError) in try body(bytes, false) } }
                        pieces.append(Array(piece))
                    }
                }
                if let previous = pieces.popLast() {
                    try previous.withRawBytes { (bytes) throws(SluiceError) in try body(bytes, isLast) }
                } else if isLast {
                    try body(UnsafeRawBufferPointer(start: nil, count: 0), true)
                }
            } else {
                try block.withRawBytes { (bytes) throws(SluiceError) in try body(bytes, isLast) }
            }
        }
    }

    // MARK: YAML

    /// The largest YAML file read: a document is read whole.
    static let maximumYAMLBytes = 256 << 20

    private func readYAML(
        _ file: SourceFile, skip: Int64, constants: [Int: Value], each: (Chunk, Int64) throws(SluiceError) -> Void, reject: (Rejection) -> Void
    ) throws(SluiceError) {
        var text: [UInt8] = []
        try readBytes(file) { (bytes, _) throws(SluiceError) in
            text.append(contentsOf: bytes)
            guard text.count <= Self.maximumYAMLBytes else {
                throw SluiceError(.programLimitExceeded, "a YAML file larger than \(Self.maximumYAMLBytes >> 20) MiB is not read")
            }
        }
        var decoder = JSONRowDecoder(columns: columns)
        var builders = decoder.makeBuilders()
        var unit: Int64 = 0
        for row in try YAMLDocuments.rows(text) {
            unit += 1
            guard unit > skip else { continue }
            let problem: String? = row.withUnsafeBytes { bytes in
                do throws(JSONDecodeError) {
                    try decoder.decodeRow(bytes, into: &builders)
                    return nil
                } catch {
                    return error.message
                }
            }
            if let problem { reject(Rejection(unit: unit, message: "row \(unit): \(problem)", payload: Array(row.prefix(256)))) }
            if builders[0].count >= Chunk.preferredSize { try each(finish(&builders, decoder: decoder, constants: constants), unit) }
        }
        if builders[0].count > 0 { try each(finish(&builders, decoder: decoder, constants: constants), unit) }
    }

    // MARK: CSV

    private func readCSV(
        _ file: SourceFile, options: CSVTextOptions, skip: Int64, constants: [Int: Value],
        each: (Chunk, Int64) throws(SluiceError) -> Void, reject: (Rejection) -> Void
    ) throws(SluiceError) {
        var reader = CSVRecordReader(delimiter: options.delimiter, quote: options.quote)
        // Without a header, fields are the columns in order; with one, the columns they name.
        var caster: CSVRowCaster? = options.writesHeader ? nil
            : CSVRowCaster(columns: columns, mapping: columns.indices.map { Optional($0) }, null: options.null, constants: Set(constants.keys))
        var builders = columns.map { ColumnBuilder(type: $0.type, capacity: Chunk.preferredSize) }
        var unit: Int64 = 0
        var failure: SluiceError?
        func flush() throws(SluiceError) {
            let count = builders[0].count
            var built = builders.map { $0.finish() }
            builders = columns.map { ColumnBuilder(type: $0.type, capacity: Chunk.preferredSize) }
            for (index, value) in constants { built[index] = Self.constant(value, type: columns[index].type, count: count) }
            try each(Chunk(columns: built, count: count), unit)
        }
        func take(_ record: CSVRecordReader.Record) {
            guard failure == nil else { return }
            guard caster != nil else {
                // The header: fields by name (a column the file lacks is NULL).
                let mapping = record.fields.map { name in
                    let text = String(decoding: name, as: UTF8.self).lowercased()
                    return columns.firstIndex { $0.name.lowercased() == text }
                }
                caster = CSVRowCaster(columns: columns, mapping: mapping, null: options.null, constants: Set(constants.keys))
                return
            }
            // A blank line is no record.
            if record.fields.count == 1 && record.fields[0].isEmpty && !record.quoted[0] { return }
            unit += 1
            guard unit > skip else { return }
            if let problem = caster!.append(record, to: &builders) {
                reject(Rejection(unit: unit, message: problem, payload: Array(record.raw)))
                return
            }
            if builders[0].count >= Chunk.preferredSize {
                do { try flush() } catch { failure = error }
            }
        }
        try readBytes(file) { (bytes, isLast) throws(SluiceError) in
            reader.feed(bytes, isLast: isLast) { take($0) }
            if let failure { throw failure }
        }
        if builders[0].count > 0 { try flush() }
    }

    // MARK: Parquet

    private func readParquet(
        _ file: SourceFile, skip: Int64, constants: [Int: Value], mayMatch: ((Int, IcebergColumnEvidence) -> Bool)?,
        each: (Chunk, Int64) throws(SluiceError) -> Void
    ) throws(SluiceError) {
        let wanted = self.wanted
        try readParquet(file, skip: skip, constants: constants, mayMatch: mayMatch, reading: { wanted }) { (chunk, _, through) throws(SluiceError) -> Bool in
            try each(chunk, through)
            return true
        }
    }

    /// Reads Parquet `file` after its first `skip` rows, decoding of each row group the columns
    /// `reading` names as the group is reached (nil: all; the others are NULL). `each` takes each
    /// chunk, the columns it holds and the rows read through its last; when it refuses one (a
    /// reader now wants more columns), the group is decoded again with what `reading` says now
    /// and goes on from that chunk.
    func readParquet(
        _ file: SourceFile, skip: Int64, mayMatch: ((Int, IcebergColumnEvidence) -> Bool)? = nil, reading: () -> Set<Int>?,
        each: (Chunk, Set<Int>?, Int64) throws(SluiceError) -> Bool
    ) throws(SluiceError) {
        try readParquet(file, skip: skip, constants: partitionValues(file.relativePath), mayMatch: mayMatch, reading: reading, each: each)
    }

    private func readParquet(
        _ file: SourceFile, skip: Int64, constants: [Int: Value], mayMatch: ((Int, IcebergColumnEvidence) -> Bool)?,
        reading: () -> Set<Int>?, each: (Chunk, Set<Int>?, Int64) throws(SluiceError) -> Bool
    ) throws(SluiceError) {
        let reader = try ParquetReader(input: FileIOParquetInput(fileIO: fileIO, location: file.location, size: file.size))
        // Each source column's top-level column in the file, by name, and its leaf.
        let fileNames = reader.schema.map { $0.name.lowercased() }
        let positionOfColumn: [Int?] = columns.enumerated().map { index, column in
            constants[index] == nil ? fileNames.firstIndex(of: column.name.lowercased()) : nil
        }
        let leafOfColumn: [Int: Int] = Dictionary(uniqueKeysWithValues: positionOfColumn.enumerated().compactMap { source, position in
            position.flatMap { position in reader.leafColumns.firstIndex { $0.path == [reader.schema[position].name] } }.map { (source, $0) }
        })
        var first: Int64 = 0
        for (index, rowGroup) in reader.rowGroups.enumerated() {
            let rows = rowGroup.rowCount
            defer { first += rows }
            guard first + rows > skip else { continue }
            if let mayMatch {
                var keep = true
                for (column, value) in constants where !mayMatch(column, IcebergColumnEvidence(single: value)) { keep = false }
                for (column, leaf) in leafOfColumn where keep {
                    let info = rowGroup.columns[leaf]
                    let evidence = IcebergColumnEvidence(lower: info.min, upper: info.max, valueCount: info.valueCount, nullCount: info.nullCount, nanCount: nil)
                    if !mayMatch(column, evidence) { keep = false }
                }
                if !keep { continue }
            }
            var start = Int(max(0, skip - first))
            while start < Int(rows) {
                // The columns wanted now, decoded; the file's others and those it lacks NULL.
                let wanted = reading()
                var projection: [Int] = []
                var sourceOfProjected: [Int] = []
                for (column, position) in positionOfColumn.enumerated() where wanted?.contains(column) != false {
                    if let position {
                        projection.append(position)
                        sourceOfProjected.append(column)
                    }
                }
                // Per column: where it is among the decoded ones, or a constant (a folder's
                // value, or NULL), made once at a chunk's length and shared.
                var projectedOfColumn: [Int?] = Array(repeating: nil, count: columns.count)
                for (projected, column) in sourceOfProjected.enumerated() { projectedOfColumn[column] = projected }
                var constantColumns: [Column?] = []
                var constantLength = -1
                // Constant columns hold values whatever is wanted.
                let holding = wanted.map { $0.union(constants.keys) }
                func deliver(_ chunk: Chunk) throws(SluiceError) -> Bool {
                    let count = chunk.count
                    if constantLength != count {
                        constantLength = count
                        constantColumns = columns.enumerated().map { index, column in
                            projectedOfColumn[index] == nil ? Self.constant(constants[index] ?? .null, type: column.type, count: count) : nil
                        }
                    }
                    var built: [Column] = []
                    built.reserveCapacity(columns.count)
                    for (index, column) in columns.enumerated() {
                        if let projected = projectedOfColumn[index] {
                            let values = chunk.columns[projected]
                            built.append(values.type == column.type ? values : try IcebergDataWriter.convert(values, to: column.type))
                        } else {
                            built.append(constantColumns[index]!)
                        }
                    }
                    guard try each(Chunk(columns: built, count: count), holding, first + Int64(start + count)) else { return false }
                    start += count
                    return true
                }
                if projection.isEmpty {
                    while start < Int(rows) {
                        guard try deliver(Chunk(columns: [], count: min(Chunk.preferredSize, Int(rows) - start))) else { break }
                    }
                } else {
                    // The group streams, a chunk at a time; a refused chunk is read again, from
                    // where it starts, with the columns wanted then.
                    try reader.readRowGroup(index, columns: projection, from: start, chunkRows: Chunk.preferredSize, background: background, each: deliver)
                }
            }
        }
    }

    /// The columns of the first row group's file, for `CREATE SOURCE t (*)`.
    static func parquetColumns(_ file: SourceFile, fileIO: any FileIO) throws(SluiceError) -> [(name: String, type: DataType)] {
        let reader = try ParquetReader(input: FileIOParquetInput(fileIO: fileIO, location: file.location, size: file.size))
        return reader.schema.map { ($0.name, $0.type) }
    }

    /// The columns a file's first record names, as DuckDB's readers guess them: a CSV header's
    /// names (text), or a JSON line's keys, typed by their values (a whole number bigint, any
    /// other number double precision, true or false boolean, a string text, an object or array
    /// jsonb). Reads the file's first 64 KiB, inflated when gzipped.
    static func firstRecordColumns(
        _ file: SourceFile, encoding: FileSourceOptions.Encoding, fileIO: any FileIO
    ) throws(SluiceError) -> [(name: String, type: DataType)] {
        var head = try fileIO.read(file.location, range: 0 ..< min(file.size, 64 << 10))
        if GzipInflater.isGzip(head) {
            var inflated: [UInt8] = []
            let inflater = GzipInflater()
            // A head cut mid-stream inflates as far as it goes.
            head.withUnsafeBytes { bytes in
                do {
                    try inflater.feed(bytes, isLast: true) { piece in inflated += piece }
                } catch {}
            }
            head = inflated
        }
        let unreadable = SluiceError(.invalidParameterValue, "the first record of \(file.relativePath) names no columns", hint: "List the columns.")
        switch encoding {
        case .csv(let options):
            guard options.writesHeader else { throw SluiceError(.syntaxError, "a CSV file without a header needs its columns listed") }
            var reader = CSVRecordReader(delimiter: options.delimiter, quote: options.quote)
            var names: [String]?
            head.withUnsafeBytes { bytes in
                reader.feed(bytes, isLast: head.count == file.size) { record in
                    if names == nil { names = record.fields.map { String(decoding: $0, as: UTF8.self) } }
                }
            }
            guard let names, !names.isEmpty else { throw unreadable }
            return names.map { ($0, .varchar) }
        case .json:
            let line = head.prefix { $0 != UInt8(ascii: "\n") }
            guard case .object(let members) = try JSONDocument.parse(Array(line)), !members.isEmpty else { throw unreadable }
            return members.map { member in
                let type: DataType
                switch member.value {
                case .int: type = .int64
                case .double: type = .float64
                case .bool: type = .boolean
                case .string, .null: type = .varchar
                case .array, .object: type = .jsonb
                }
                return (member.key, type)
            }
        case .parquet:
            return try parquetColumns(file, fileIO: fileIO)
        case .yaml:
            throw SluiceError(.syntaxError, "a file source of ENCODE YAML needs its columns listed")
        }
    }
}

/// A Parquet file read through FileIO's ranged reads.
struct FileIOParquetInput: ParquetInput {
    let fileIO: any FileIO
    let location: String
    let size: Int

    func read(offset: Int, length: Int) throws(SluiceError) -> [UInt8] {
        let bytes = try fileIO.read(location, range: offset ..< offset + length)
        guard bytes.count == length else { throw SluiceError(.ioError, "\(location) changed while it was read") }
        return bytes
    }
}

