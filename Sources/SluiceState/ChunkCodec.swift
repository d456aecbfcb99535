import SluiceCore

/// A compact binary form of chunks, for table files and (later) checkpoints.
///
/// Layout per chunk: row count (u32), column count (u32), then per column: a validity flag
/// byte (and the bitmap's words when set) followed by the storage buffers. Integers are
/// little-endian. The column types are not stored: the reader supplies them.
package enum ChunkCodec {
    package static func encode(_ chunk: Chunk, into out: inout [UInt8]) {
        out.appendLittleEndian(UInt32(chunk.count))
        out.appendLittleEndian(UInt32(chunk.columnCount))
        for column in chunk.columns { encode(column, into: &out) }
    }

    private static func encode(_ column: Column, into out: inout [UInt8]) {
        if let validity = column.validity {
            out.append(1)
            for word in validity.words { out.appendLittleEndian(word) }
        } else {
            out.append(0)
        }
        switch column.storage {
        case .bool(let values): out += values.map { $0 ? 1 : 0 }
        case .int16(let values): appendBlock(values, to: &out)
        case .int32(let values): appendBlock(values, to: &out)
        case .int64(let values): appendBlock(values, to: &out)
        case .float32(let values): appendBlock(values, to: &out)
        case .float64(let values): appendBlock(values, to: &out)
        case .decimal(let values):
            for value in values {
                out.appendLittleEndian(UInt128(bitPattern: value.mantissa))
                out.appendLittleEndian(value.scale)
            }
        case .interval(let values):
            for value in values {
                out.appendLittleEndian(value.months)
                out.appendLittleEndian(value.days)
                out.appendLittleEndian(value.microseconds)
            }
        case .bytes(let values):
            appendBlock(values.offsets.dropFirst(), to: &out)
            out += values.data
        case .structure(let children, _):
            for child in children { encode(child, into: &out) }
        case .list(let offsets, let elements):
            offsets.dropFirst().forEach { out.appendLittleEndian($0) }
            out.appendLittleEndian(UInt32(elements.count))
            encode(elements, into: &out)
        }
    }

    /// Appends fixed-width values little-endian: one block copy on a little-endian host, as
    /// ``ByteReader/readArray(_:count:)`` reads them back (floats by their bit patterns).
    private static func appendBlock<C: Collection>(_ values: C, to out: inout [UInt8]) where C.Element: BitwiseCopyable {
        #if _endian(little)
        if let done: Void = values.withContiguousStorageIfAvailable({ out.append(contentsOf: UnsafeRawBufferPointer($0)) }) { return done }
        for value in values { withUnsafeBytes(of: value) { out.append(contentsOf: $0) } }
        #else
        for value in values {
            withUnsafeBytes(of: value) { out.append(contentsOf: $0.reversed()) }
        }
        #endif
    }

    /// Decodes one chunk of columns of `types` starting at `offset`, advancing it.
    package static func decode(_ bytes: [UInt8], offset: inout Int, types: [DataType]) throws(SluiceError) -> Chunk {
        var position = offset
        defer { offset = position }
        return try bytes.withRawBytes { (buffer: UnsafeRawBufferPointer) throws(SluiceError) in
            try decode(buffer, offset: &position, types: types)
        }
    }

    /// Decodes one chunk from raw bytes (a mapped file, say), as ``decode(_:offset:types:)``.
    package static func decode(_ bytes: UnsafeRawBufferPointer, offset: inout Int, types: [DataType]) throws(SluiceError) -> Chunk {
        var reader = ByteReader(bytes: bytes, offset: offset)
        let rowCount = Int(try reader.read(UInt32.self))
        let columnCount = Int(try reader.read(UInt32.self))
        guard columnCount == types.count else { throw SluiceError(.ioError, "stored chunk has \(columnCount) columns, expected \(types.count)") }
        var columns: [Column] = []
        for type in types { columns.append(try decodeColumn(&reader, type: type, count: rowCount)) }
        offset = reader.offset
        return Chunk(columns: columns, count: rowCount)
    }

    private static func decodeColumn(_ reader: inout ByteReader, type: DataType, count: Int) throws(SluiceError) -> Column {
        var validity: Bitmap?
        if try reader.read(UInt8.self) == 1 {
            // A count the remaining bytes cannot hold is damage, not a reason to allocate.
            guard count / 8 <= reader.bytes.count - reader.offset else { throw SluiceError(.ioError, "stored data is truncated") }
            var bitmap = Bitmap(count: count, value: false)
            for wordIndex in bitmap.words.indices { bitmap.words[wordIndex] = try reader.read(UInt64.self) }
            validity = bitmap
        }
        let storage: ColumnStorage
        switch ColumnStorage.empty(for: type) {
        case .bool:
            var values: [Bool] = []
            for _ in 0 ..< count { values.append(try reader.read(UInt8.self) != 0) }
            storage = .bool(values)
        case .int16: storage = .int16(try reader.readArray(Int16.self, count: count))
        case .int32: storage = .int32(try reader.readArray(Int32.self, count: count))
        case .int64: storage = .int64(try reader.readArray(Int64.self, count: count))
        case .float32: storage = .float32(try reader.readArray(UInt32.self, count: count).map(Float.init(bitPattern:)))
        case .float64: storage = .float64(try reader.readArray(UInt64.self, count: count).map(Double.init(bitPattern:)))
        case .decimal:
            var values: [Decimal] = []
            for _ in 0 ..< count {
                let mantissa = Int128(bitPattern: try reader.read(UInt128.self))
                values.append(Decimal(mantissa: mantissa, scale: try reader.read(Int16.self)))
            }
            storage = .decimal(values)
        case .interval:
            var values: [Interval] = []
            for _ in 0 ..< count {
                let months = try reader.read(Int32.self)
                let days = try reader.read(Int32.self)
                values.append(Interval(months: months, days: days, microseconds: try reader.read(Int64.self)))
            }
            storage = .interval(values)
        case .bytes:
            let offsets = [Int32(0)] + (try reader.readArray(Int32.self, count: count))
            try checkOffsets(offsets)
            let length = Int(offsets.last ?? 0)
            storage = .bytes(VarBytes(offsets: offsets, data: try reader.readBytes(length)))
        case .structure:
            guard case .structure(let fields) = type else { throw SluiceError.internalError("struct storage without struct type") }
            var children: [Column] = []
            for field in fields { children.append(try decodeColumn(&reader, type: field.type, count: count)) }
            storage = .structure(children, count: count)
        case .list:
            guard case .list(let element) = type else { throw SluiceError.internalError("list storage without list type") }
            let offsets = [Int32(0)] + (try reader.readArray(Int32.self, count: count))
            try checkOffsets(offsets)
            let elementCount = Int(try reader.read(UInt32.self))
            guard Int(offsets.last ?? 0) == elementCount else { throw SluiceError(.ioError, "stored list offsets do not match its elements") }
            storage = .list(offsets: offsets, elements: try decodeColumn(&reader, type: element, count: elementCount))
        }
        var column = Column(type: type, storage: storage, validity: validity)
        if case .decimal(let values) = storage { column.decimalProfile = DecimalProfile.of(values, column.validity) }
        return column
    }

    /// Checks one stored chunk of columns of `types` starting at `offset` without decoding it,
    /// advancing `offset` past it, and returns its row count. A chunk that passes decodes
    /// without error: every check ``decode(_:offset:types:)`` makes is made here (a table file
    /// is checked whole when recovery opens it, and decoded at the table's first use).
    package static func check(_ bytes: UnsafeRawBufferPointer, offset: inout Int, types: [DataType]) throws(SluiceError) -> Int {
        var reader = ByteReader(bytes: bytes, offset: offset)
        let rowCount = Int(try reader.read(UInt32.self))
        let columnCount = Int(try reader.read(UInt32.self))
        guard columnCount == types.count else { throw SluiceError(.ioError, "stored chunk has \(columnCount) columns, expected \(types.count)") }
        for type in types { try checkColumn(&reader, type: type, count: rowCount) }
        offset = reader.offset
        return rowCount
    }

    private static func checkColumn(_ reader: inout ByteReader, type: DataType, count: Int) throws(SluiceError) {
        if try reader.read(UInt8.self) == 1 { try reader.skip(8 * ((count + 63) >> 6)) }
        switch ColumnStorage.empty(for: type) {
        case .bool: try reader.skip(count)
        case .int16: try reader.skip(2 * count)
        case .int32, .float32: try reader.skip(4 * count)
        case .int64, .float64: try reader.skip(8 * count)
        case .decimal: try reader.skip(18 * count)
        case .interval: try reader.skip(16 * count)
        case .bytes:
            try reader.skip(Int(try checkOffsets(&reader, count: count)))
        case .structure:
            guard case .structure(let fields) = type else { throw SluiceError.internalError("struct storage without struct type") }
            for field in fields { try checkColumn(&reader, type: field.type, count: count) }
        case .list:
            guard case .list(let element) = type else { throw SluiceError.internalError("list storage without list type") }
            let last = try checkOffsets(&reader, count: count)
            let elementCount = Int(try reader.read(UInt32.self))
            guard Int(last) == elementCount else { throw SluiceError(.ioError, "stored list offsets do not match its elements") }
            try checkColumn(&reader, type: element, count: elementCount)
        }
    }

    /// Reads `count` stored offsets (the first, 0, is implied), checks them as
    /// ``checkOffsets(_:)`` does, and returns the last.
    private static func checkOffsets(_ reader: inout ByteReader, count: Int) throws(SluiceError) -> Int32 {
        var previous: Int32 = 0
        for _ in 0 ..< count {
            let offset = try reader.read(Int32.self)
            guard offset >= previous else { throw SluiceError(.ioError, "stored offsets decrease") }
            previous = offset
        }
        return previous
    }

    /// Offsets must start at 0 and never decrease: anything else would index out of a buffer.
    private static func checkOffsets(_ offsets: [Int32]) throws(SluiceError) {
        var previous: Int32 = 0
        for offset in offsets {
            guard offset >= previous else { throw SluiceError(.ioError, "stored offsets decrease") }
            previous = offset
        }
    }

}
