import Foundation
import SluiceCore
import SluiceDataflow

/// The options of `CREATE SOURCE|TABLE … WITH (connector = 'datagen', …)`, as RisingWave's
/// load generator takes them:
///
/// - `datagen.rows.per.second` (default 10): the rate;
/// - `fields.<column>.kind`: `random` (the default) or `sequence`;
/// - a sequence: `fields.<column>.start` (default 0) and `.end` (default 32767), numbers only; the
///   source ends when a sequence does;
/// - random numbers: `.min` (default 0) and `.max` (default 32767); random text: `.length`
///   (default 10); random timestamps: `.max_past` (default `1 day`), `.max_past_mode`
///   (`absolute`, the default: before `.basetime` or the creation time; `relative`: before the
///   time each row is made) and `.basetime`; every random column: `.seed` (default: the column's
///   position).
///
/// Values are a function of the row's number, so the rows a later view starts from are made
/// again exactly as they were delivered.
struct DatagenOptions: Sendable {
    enum Generator: Sendable {
        case sequence(start: Double, end: Double)
        case number(min: Double, max: Double, seed: UInt64)
        case text(length: Int, seed: UInt64)
        case boolean(seed: UInt64)
        case timestamp(maxPastMicroseconds: Int64, relative: Bool, base: Int64, seed: UInt64)
        case date(maxPastDays: Int32, base: Int32, seed: UInt64)
    }

    var rowsPerSecond: Double
    /// One generator per column.
    var generators: [Generator]
    /// Rows before the first sequence ends; nil for a source without sequences (endless).
    var totalRows: Int64?

    private static let fieldParameters: Set<String> = ["kind", "start", "end", "min", "max", "seed", "length", "max_past", "max_past_mode", "basetime"]

    init(_ description: SourceDescription, now: Int64) throws(SluiceError) {
        let options = description.options
        let columnIndex = Dictionary(description.columns.enumerated().map { ($1.name.lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        var fields: [Int: [String: String]] = [:]
        for (key, value) in options {
            let lowered = key.lowercased()
            if ["connector", "datagen.rows.per.second", "datagen.split.num"].contains(lowered) { continue }
            let parts = lowered.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0] == "fields", Self.fieldParameters.contains(String(parts[2])) else {
                throw SluiceError(
                    .syntaxError, "unknown datagen option \"\(key)\"",
                    hint: "The datagen connector takes datagen.rows.per.second and fields.<column>.kind, start, end, min, max, seed, length, max_past, max_past_mode and basetime.")
            }
            guard let column = columnIndex[String(parts[1])] else {
                throw SluiceError(.invalidParameterValue, "datagen option \"\(key)\" names no column of \"\(description.name)\"")
            }
            fields[column, default: [:]][String(parts[2])] = value
        }
        let rate = options["datagen.rows.per.second"] ?? "10"
        guard let rowsPerSecond = Double(rate), rowsPerSecond > 0, rowsPerSecond.isFinite else {
            throw SluiceError(.invalidParameterValue, "datagen.rows.per.second must be a positive number, not \"\(rate)\"")
        }
        self.rowsPerSecond = rowsPerSecond
        var generators: [Generator] = []
        var totalRows: Int64?
        for (index, column) in description.columns.enumerated() {
            let field = fields[index] ?? [:]
            let generator = try Self.generator(for: column, field, position: index, now: now)
            if case .sequence(let start, let end) = generator {
                let count = Int64(min(Double(Int64.max / 2), (end - start).rounded(.down) + 1))
                totalRows = min(totalRows ?? .max, count)
            }
            generators.append(generator)
        }
        self.generators = generators
        self.totalRows = totalRows
    }

    private static func generator(
        for column: (name: String, type: DataType), _ field: [String: String], position: Int, now: Int64
    ) throws(SluiceError) -> Generator {
        func number(_ key: String, _ fallback: Double) throws(SluiceError) -> Double {
            guard let text = field[key] else { return fallback }
            guard let value = Double(text.trimmingCharacters(in: .whitespaces)), value.isFinite else {
                throw SluiceError(.invalidParameterValue, "fields.\(column.name).\(key) must be a number, not \"\(text)\"")
            }
            return value
        }
        let seed = UInt64(bitPattern: Int64(try number("seed", Double(position))))
        let kind = field["kind"]?.lowercased() ?? "random"
        guard kind == "random" || kind == "sequence" else {
            throw SluiceError(.invalidParameterValue, "fields.\(column.name).kind must be 'random' or 'sequence', not '\(kind)'")
        }
        let isNumber: Bool
        switch column.type {
        case .int16, .int32, .int64, .float32, .float64, .decimal: isNumber = true
        default: isNumber = false
        }
        if kind == "sequence" {
            guard isNumber else {
                throw SluiceError(
                    .featureNotSupported, "a datagen sequence makes numbers; column \"\(column.name)\" is \(column.type.sqlName)")
            }
            let start = try number("start", 0)
            let end = try number("end", 32767)
            guard start <= end else { throw SluiceError(.invalidParameterValue, "fields.\(column.name).start is after its end") }
            return .sequence(start: start, end: end)
        }
        switch column.type {
        case _ where isNumber:
            let low = try number("min", 0)
            let high = try number("max", 32767)
            guard low <= high else { throw SluiceError(.invalidParameterValue, "fields.\(column.name).min is above its max") }
            return .number(min: low, max: high, seed: seed)
        case .varchar:
            let length = try number("length", 10)
            guard length >= 0, length <= 1_000_000 else {
                throw SluiceError(.invalidParameterValue, "fields.\(column.name).length must be between 0 and 1000000")
            }
            return .text(length: Int(length), seed: seed)
        case .boolean:
            return .boolean(seed: seed)
        case .timestamp, .timestamptz, .date:
            let pastText = field["max_past"] ?? "1 day"
            let past: Interval
            do {
                past = try Interval(parsingText: pastText)
            } catch {
                throw SluiceError(.invalidParameterValue, "fields.\(column.name).max_past is not an interval: \(error.message)")
            }
            guard let microseconds = past.fixedMicroseconds else {
                throw SluiceError(.invalidParameterValue, "fields.\(column.name).max_past is out of range")
            }
            guard microseconds >= 0 else { throw SluiceError(.invalidParameterValue, "fields.\(column.name).max_past is negative") }
            let mode = field["max_past_mode"]?.lowercased() ?? "absolute"
            guard mode == "absolute" || mode == "relative" else {
                throw SluiceError(.invalidParameterValue, "fields.\(column.name).max_past_mode must be 'absolute' or 'relative'")
            }
            var base = now
            if let text = field["basetime"] { base = try TemporalText.parseTimestamp(text, withZone: true) }
            if column.type == .date {
                return .date(maxPastDays: Int32(clamping: microseconds / 86_400_000_000), base: Int32(clamping: base / 86_400_000_000), seed: seed)
            }
            return .timestamp(maxPastMicroseconds: microseconds, relative: mode == "relative", base: base, seed: seed)
        default:
            throw SluiceError(
                .featureNotSupported, "the datagen connector does not make \(column.type.sqlName) values (column \"\(column.name)\")",
                hint: "It makes numbers, text, booleans, dates and timestamps.")
        }
    }
}

extension DatagenSource {
    package static let entry = ConnectorEntry(
        name: "datagen",
        sourceOptions: [.number("datagen.rows.per.second", .leastNonzeroMagnitude ... .infinity), .integer("datagen.split.num", 1 ... 1024), .prefix("fields.")],
        makeSource: { description, _ throws(SluiceError) in try DatagenSource(description) })
}
