import SluiceCore

/// Decodes JSON messages — one object per Kafka message or NDJSON line — straight into the
/// column builders of a source declared with SQL columns (`FORMAT PLAIN ENCODE JSON`).
///
/// Build one per source (or per decoding thread) from the source's columns; it compiles the
/// schema into flat lookup tables once, then decodes each message in a single pass over its
/// bytes with no `Foundation`, no per-field `String`, no existentials.
///
/// ## What a message becomes
/// The semantics follow RisingWave's JSON source (`JsonParseOptions::DEFAULT` and
/// `JsonAccess`), with the differences listed below:
/// - The document must be an object; its fields may come in any order. A missing field or a
///   JSON `null` gives SQL NULL; fields no column names are checked as JSON and ignored.
/// - Keys match column names exactly or, failing that, ASCII case-insensitively. A key that
///   matches a column exactly wins over one that matches only up to case; among several exact
///   keys the last wins, among several case-insensitive ones the first.
/// - Nested objects fill `struct` columns by the same rules (a string holding a JSON object is
///   also accepted, RisingWave's `StructHandling::AllowJsonString`); arrays fill list columns.
/// - `boolean` takes only `true`/`false` (RisingWave's default `BooleanHandling::Strict`: no
///   `0`/`1`, no `"true"`).
/// - `smallint`/`integer`/`bigint` take integer literals in range, and strings holding one
///   (`"42"`, Rust's `str::parse` rules: optional sign, digits only) as
///   `NumericHandling::Relax { string_parsing: true }` does. `1.5`, `1.0` and `1e2` are not
///   integers (RisingWave reads them as floats and rejects them).
/// - `real`/`double precision` take any number, and strings holding one (also `NaN`, `inf`,
///   `infinity`).
/// - `numeric` takes numbers and numeric strings exactly, digit by digit (RisingWave goes
///   through `f64` for numbers with a fraction; Sluice does not round), then applies the
///   column's precision and scale if it has them.
/// - `varchar` takes strings, and also numbers and booleans as their text
///   (`VarcharHandling::OnlyPrimaryTypes`): integers as written, other numbers in shortest
///   round-trip form (`1.50` → `1.5`, `1e3` → `1000.0`); arrays and objects are errors.
/// - `date` takes `YYYY-MM-DD` strings and integers (days since 1970-01-01); `time` takes
///   `HH:MM[:SS[.ffffff]]` strings and integers (microseconds since midnight).
/// - `timestamp` and `timestamptz` take RFC 3339 / ISO 8601 strings (`T` or space; fraction
///   rounded to microseconds) and integer epochs whose unit is guessed from the magnitude
///   (seconds, milliseconds, microseconds or nanoseconds: `TimestamptzHandling::GuessNumberUnit`).
///   A zone in the string converts a `timestamptz` to UTC and is ignored for `timestamp`, as in
///   Postgres. A `timestamptz` string without a zone is taken as UTC (RisingWave rejects it
///   unless `timestamptz.handling.mode = 'utc_without_suffix'`); other forms Postgres accepts
///   (`infinity`, BC dates) go through SluiceCore's Postgres-style parser.
/// - `interval` takes Postgres interval strings; `bytea` takes `\x…` hex or escape-format
///   strings (`ByteaHandling::Standard`).
/// - `jsonb` takes any value, stored in the normalized text form SluiceCore's `JSONText` gives
///   (Postgres's `jsonb_out`).
///
/// ## Errors
/// Anything that is not JSON (bad tokens, trailing bytes, truncation, invalid UTF-8, bad
/// escapes, lone surrogates), a document that is not an object, nesting deeper than
/// ``maximumDepth``, and any value its column cannot take fails the whole message with a
/// ``JSONDecodeError``; the row is then not appended: every builder is cut back to its count
/// before the message. (RisingWave instead pads an unconvertible non-key field with NULL; a
/// source that wants that can add it on top.)
///
/// Not `Sendable`: it keeps scratch buffers. Use one per thread.
package struct JSONRowDecoder {
    /// The columns, in builder order.
    package let columns: [(name: String, type: DataType)]
    /// How deep objects and arrays may nest, counting the document's own object as 1.
    package let maximumDepth: Int

    var plans: [ValuePlan] = []
    var tables: [FieldTable] = []
    var fields: [FieldPlan] = []
    var buckets: [Int32] = []
    /// The names' bytes, back to back, followed by eight zero bytes so a name can be read a
    /// word at a time.
    var exactNames: [UInt8] = []
    var lowercaseNames: [UInt8] = []
    var fieldNames: [String] = []
    var typeNames: [String] = []

    /// Per field past the 64th of its object: 0 when the current object has not given it a
    /// value yet, 1 when it has from a key matching only up to case, 2 from an exact key.
    var assigned: [UInt8] = []
    /// Per object level, the field each key position named last time, or -1: the key order
    /// predicted for the next object (see ``FieldTable/predictionStart``).
    var predictions: [Int32] = []
    var scratch: [UInt8] = []
    var dates = JSONDateCache()

    /// A decoder for rows of `columns`.
    package init(columns: [(name: String, type: DataType)], maximumDepth: Int = 128) {
        self.columns = columns
        self.maximumDepth = max(maximumDepth, 1)
        _ = addTable(columns.map { StructField(name: $0.name, type: $0.type) })
        assigned = Array(repeating: 0, count: fields.count)
        predictions = Array(repeating: -1, count: fields.count)
        exactNames.append(contentsOf: repeatElement(0, count: 8))
        scratch.reserveCapacity(256)
    }

    /// Empty builders for this decoder's columns.
    package func makeBuilders(capacity: Int = Chunk.preferredSize) -> [ColumnBuilder] {
        columns.map { ColumnBuilder(type: $0.type, capacity: capacity) }
    }

    /// Decodes one message into one row of `builders` (one builder per column, in column
    /// order, all of the same count). On success every builder has grown by one row; on an
    /// error every builder is back at its count before the call.
    ///
    /// - Complexity: O(message length).
    package mutating func decodeRow(_ bytes: UnsafeRawBufferPointer, into builders: inout [ColumnBuilder]) throws(JSONDecodeError) {
        var failure: JSONDecodeError?
        builders.withUnsafeMutableBufferPointer { buffer in
            do throws(JSONDecodeError) {
                try decodeRow(bytes, into: buffer)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// ``decodeRow(_:into:)`` over builders the caller holds for a whole batch.
    mutating func decodeRow(_ bytes: UnsafeRawBufferPointer, into builders: UnsafeMutableBufferPointer<ColumnBuilder>) throws(JSONDecodeError) {
        precondition(builders.count == columns.count, "JSONRowDecoder: \(builders.count) builders for \(columns.count) columns")
        let rowCount = builders.isEmpty ? 0 : builders[0].count
        var scanner = JSONScanner(bytes)
        do throws(JSONDecodeError) {
            scanner.skipWhitespace()
            guard scanner.peek == UInt8(ascii: "{") else {
                if scanner.isAtEnd { throw JSONDecodeError(.truncated, "empty message", at: scanner.position) }
                let start = scanner.position
                if scanner.peek == UInt8(ascii: "[") || scanner.peek == UInt8(ascii: "\"") || scanner.peek == UInt8(ascii: "-")
                    || scanner.peek &- UInt8(ascii: "0") < 10 || scanner.peek == UInt8(ascii: "t") || scanner.peek == UInt8(ascii: "f")
                    || scanner.peek == UInt8(ascii: "n") {
                    try scanner.skipValue(depth: 1, depthLimit: maximumDepth, scratch: &scratch)
                    scanner.skipWhitespace()
                    if !scanner.isAtEnd { throw scanner.unexpected("end of input") }
                    throw JSONDecodeError(.notAnObject, "the message is not a JSON object", at: start)
                }
                throw scanner.unexpected("'{'")
            }
            try decodeObject(&scanner, table: 0, into: builders, depth: 1)
            scanner.skipWhitespace()
            guard scanner.isAtEnd else { throw scanner.unexpected("end of input") }
        } catch {
            for index in builders.indices { builders[index].truncate(to: rowCount) }
            throw error
        }
    }
}

// MARK: The compiled schema

/// The kind of a column (or nested field, or list element), as the decoder dispatches on it.
enum ValueKind: UInt8 {
    case boolean, int16, int32, int64, float32, float64, decimal, varchar, date, time, timestamp, timestamptz
    case interval, jsonb, bytea, structure, list, unknown
}

/// One type in the schema tree.
struct ValuePlan {
    var kind: ValueKind
    /// For a struct, its ``FieldTable``; for a list, the element's ``ValuePlan``.
    var child: Int32 = -1
    /// For `numeric(p, s)`: p and s, or -1 when not given.
    var precision: Int16 = -1
    var scale: Int16 = -1
}

/// The fields of one object level (the row, or one struct type) and their key lookup table.
struct FieldTable {
    var fieldStart: Int32
    var fieldCount: Int32
    var bucketStart: Int32
    /// The bucket count minus one (a power of two minus one).
    var bucketMask: Int32
    /// Where this level's key predictions start in ``JSONRowDecoder/predictions``: one slot
    /// per field, slot k holding the field the k-th key of the previous object named exactly.
    /// Producers write fields in a fixed order, so the next object's k-th key is usually the
    /// same and is recognized with one comparison instead of a table lookup.
    var predictionStart: Int32
}

/// One column or struct field.
struct FieldPlan {
    var value: Int32
    var nameStart: Int32
    var nameLength: Int32
    /// The next field in the same bucket, or -1.
    var next: Int32 = -1
    /// Whether the name can be recognized by comparing raw key bytes: it holds no quote, no
    /// backslash and no control byte, so a key whose raw bytes equal it has no escapes.
    var isPredictable: Bool = true
}

extension JSONRowDecoder {
    /// The bucket of a key: its length and its first and last bytes, ASCII-lowercased, so keys
    /// that differ only in case share a bucket.
    @inline(__always)
    static func bucketHash(length: Int, first: UInt8, last: UInt8) -> Int {
        let lowerFirst = first &- UInt8(ascii: "A") < 26 ? first | 0x20 : first
        let lowerLast = last &- UInt8(ascii: "A") < 26 ? last | 0x20 : last
        return (length &* 0x9E37) ^ (Int(lowerFirst) &* 0x2F) ^ (Int(lowerLast) &* 0x1F3)
    }

    /// Compiles the fields of one object level; returns its table index.
    private mutating func addTable(_ structFields: [StructField]) -> Int32 {
        let tableIndex = tables.count
        let fieldStart = fields.count
        tables.append(FieldTable(fieldStart: Int32(fieldStart), fieldCount: Int32(structFields.count), bucketStart: 0, bucketMask: 0,
                                 predictionStart: Int32(fieldStart)))
        // Fields first, so the table's fields are contiguous; their types compile after.
        for field in structFields {
            let name = Array(field.name.utf8)
            let isPredictable = !name.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }
            fields.append(FieldPlan(value: -1, nameStart: Int32(exactNames.count), nameLength: Int32(name.count), isPredictable: isPredictable))
            exactNames.append(contentsOf: name)
            lowercaseNames.append(contentsOf: name.map { $0 &- UInt8(ascii: "A") < 26 ? $0 | 0x20 : $0 })
            fieldNames.append(field.name)
        }
        for (offset, field) in structFields.enumerated() {
            fields[fieldStart + offset].value = addPlan(field.type)
        }
        var bucketCount = 4
        while bucketCount < structFields.count * 2 { bucketCount *= 2 }
        let bucketStart = buckets.count
        buckets.append(contentsOf: repeatElement(-1, count: bucketCount))
        // Insert in reverse so each chain lists fields in declaration order.
        for fieldIndex in (fieldStart ..< fieldStart + structFields.count).reversed() {
            let field = fields[fieldIndex]
            let length = Int(field.nameLength)
            let start = Int(field.nameStart)
            let hash = length == 0 ? 0 : Self.bucketHash(length: length, first: exactNames[start], last: exactNames[start + length - 1])
            let slot = bucketStart + hash & (bucketCount - 1)
            fields[fieldIndex].next = buckets[slot]
            buckets[slot] = Int32(fieldIndex)
        }
        tables[tableIndex].bucketStart = Int32(bucketStart)
        tables[tableIndex].bucketMask = Int32(bucketCount - 1)
        return Int32(tableIndex)
    }

    private mutating func addPlan(_ type: DataType) -> Int32 {
        let index = plans.count
        plans.append(ValuePlan(kind: .unknown))
        typeNames.append(type.sqlName)
        switch type {
        case .boolean: plans[index].kind = .boolean
        case .int16: plans[index].kind = .int16
        case .int32: plans[index].kind = .int32
        case .int64: plans[index].kind = .int64
        case .float32: plans[index].kind = .float32
        case .float64: plans[index].kind = .float64
        case .decimal(let precision, let scale):
            plans[index].kind = .decimal
            if let precision {
                plans[index].precision = Int16(clamping: precision)
                plans[index].scale = Int16(clamping: scale ?? 0)
            }
        case .varchar: plans[index].kind = .varchar
        case .date: plans[index].kind = .date
        case .time: plans[index].kind = .time
        case .timestamp: plans[index].kind = .timestamp
        case .timestamptz: plans[index].kind = .timestamptz
        case .interval: plans[index].kind = .interval
        case .jsonb: plans[index].kind = .jsonb
        case .bytea: plans[index].kind = .bytea
        case .structure(let structFields):
            plans[index].kind = .structure
            let table = addTable(structFields)
            plans[index].child = table
        case .list(let element):
            plans[index].kind = .list
            let elementPlan = addPlan(element)
            plans[index].child = elementPlan
        case .unknown: plans[index].kind = .unknown
        }
        return Int32(index)
    }

    /// The field of `table` that the key `key` names: an exact match if there is one, else the
    /// first field equal to it up to ASCII case.
    @inline(__always)
    func matchField(table: FieldTable, key: UnsafeBufferPointer<UInt8>) -> (field: Int, isExact: Bool)? {
        let length = key.count
        let hash = length == 0 ? 0 : Self.bucketHash(length: length, first: key[0], last: key[length - 1])
        var candidate = Int(buckets[Int(table.bucketStart) + hash & Int(table.bucketMask)])
        var caseInsensitive = -1
        while candidate >= 0 {
            let field = fields[candidate]
            if Int(field.nameLength) == length {
                let start = Int(field.nameStart)
                let isExact = exactNames.withUnsafeBufferPointer { names in
                    length == 0 || memcmpEqual(names.baseAddress! + start, key.baseAddress!, length)
                }
                if isExact { return (candidate, true) }
                if caseInsensitive < 0 {
                    let matches = lowercaseNames.withUnsafeBufferPointer { names in
                        var index = 0
                        while index < length {
                            let byte = key[index]
                            let lower = byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
                            if lower != names[start + index] { return false }
                            index += 1
                        }
                        return true
                    }
                    if matches { caseInsensitive = candidate }
                }
            }
            candidate = Int(field.next)
        }
        return caseInsensitive >= 0 ? (caseInsensitive, false) : nil
    }
}

@inline(__always)
func memcmpEqual(_ lhs: UnsafePointer<UInt8>, _ rhs: UnsafePointer<UInt8>, _ count: Int) -> Bool {
    var index = 0
    while index + 8 <= count {
        if UnsafeRawPointer(lhs + index).loadUnaligned(as: UInt64.self) != UnsafeRawPointer(rhs + index).loadUnaligned(as: UInt64.self) { return false }
        index += 8
    }
    while index < count {
        if lhs[index] != rhs[index] { return false }
        index += 1
    }
    return true
}
