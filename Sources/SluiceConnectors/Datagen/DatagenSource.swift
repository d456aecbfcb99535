import Foundation
import Synchronization
import SluiceCore
import SluiceDataflow
import SluiceExpr

/// The datagen connector: makes rows of the declared columns at `datagen.rows.per.second`, as
/// RisingWave's built-in load generator does (``DatagenOptions``). Row `n`'s values depend only on
/// `n` and the options, so a later view's backfill (``snapshot()``) and a query of the source
/// (``scan()``) make again exactly the rows delivered so far. A source with a sequence column
/// ends when the sequence does. Like every source, it makes nothing while no view reads it.
package final class DatagenSource: SourceConnector, @unchecked Sendable {
    package let statistics = SourceStatistics()
    package let notices: [String] = []
    private let description: SourceDescription
    fileprivate let options: DatagenOptions
    /// Rows delivered so far: the next row's number.
    fileprivate let delivered = Mutex<Int64>(0)
    private let driver = SourceDriverSlot()

    package init(_ description: SourceDescription) throws(SluiceError) {
        self.description = description
        guard description.format.isEmpty || (description.format == "PLAIN" && description.encode == "JSON") else {
            throw SluiceError(
                .featureNotSupported, "the datagen connector takes FORMAT PLAIN ENCODE JSON or no format, not FORMAT \(description.format) ENCODE \(description.encode)")
        }
        options = try DatagenOptions(description, now: Connectors.nowMicroseconds())
        if let row = description.resumePositions?[0] ?? description.startPositions?[0] { delivered.withLock { $0 = row } }
    }

    /// The next row's number, as partition 0.
    package var positions: [Int32: Int64]? { [0: delivered.withLock { $0 }] }

    package func start(output: SourceOutput) {
        driver.start(name: "datagen-\(description.name)", statistics: statistics, readers: [DatagenReader(self)], output: output)
    }

    package func stop() {
        driver.stop()
    }

    /// The rows delivered so far (their count noted now), made again as the backfill reads them.
    package func snapshot(columns: Set<Int>?) throws(SluiceError) -> SourceSnapshot {
        let end = delivered.withLock { $0 }
        let now = Connectors.nowMicroseconds()
        return SourceSnapshot(rowEstimate: Int(end)) { [self] (each: (Chunk) throws(SluiceError) -> Void) throws(SluiceError) in
            try rows(upTo: end, now: now, each: each)
        }
    }

    /// The rows generated so far, made again a chunk at a time.
    package func scan(pruningBy filter: ScalarExpr?, each: (Chunk) throws(SluiceError) -> Void) throws(SluiceError) {
        try rows(upTo: delivered.withLock { $0 }, now: Connectors.nowMicroseconds(), each: each)
    }

    private func rows(upTo end: Int64, now: Int64, each: (Chunk) throws(SluiceError) -> Void) throws(SluiceError) {
        var row: Int64 = 0
        while row < end {
            let count = Int(min(Int64(Chunk.preferredSize), end - row))
            try each(makeChunk(from: row, count: count, now: now))
            row += Int64(count)
        }
    }

    // MARK: Rows

    /// Rows `first ..< first + count`; `now` is the time relative timestamps count back from.
    func makeChunk(from first: Int64, count: Int, now: Int64) -> Chunk {
        let rows = first ..< first + Int64(count)
        let columns = options.generators.enumerated().map { index, generator in
            Self.column(rows, generator, type: description.columns[index].type, now: now)
        }
        return Chunk(columns: columns, count: count)
    }

    /// A generator for `row` under `seed`: SplitMix64 started at a point of its own per row, so
    /// any row's values can be made without the rows before it.
    static func rowRandom(_ seed: UInt64, _ row: Int64) -> SplitMix64 {
        SplitMix64(seed: seed &+ UInt64(bitPattern: row) &* 0x9E37_79B9_7F4A_7C15)
    }

    private static let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789".utf8)

    /// One column of `rows`, made by `generator`.
    private static func column(_ rows: Range<Int64>, _ generator: DatagenOptions.Generator, type: DataType, now: Int64) -> Column {
        var builder = ColumnBuilder(type: type, capacity: rows.count)
        switch generator {
        case .sequence(let start, _):
            for row in rows { appendNumber(start + Double(row), integer: Int64(start) &+ row, type: type, to: &builder) }
        case .number(let low, let high, let seed):
            switch type {
            case .int16, .int32, .int64:
                let lowInteger = Int64(low.rounded(.up))
                let span = UInt64(bitPattern: Int64(high.rounded(.down)) &- lowInteger) &+ 1
                for row in rows {
                    var random = rowRandom(seed, row)
                    let value = random.next()
                    let integer = lowInteger &+ Int64(bitPattern: span == 0 ? value : value % span)
                    appendNumber(Double(integer), integer: integer, type: type, to: &builder)
                }
            default:
                for row in rows {
                    var random = rowRandom(seed, row)
                    let value = low + Double(random.next() >> 11) / Double(1 << 53) * (high - low)
                    appendNumber(value, integer: Int64(value), type: type, to: &builder)
                }
            }
        case .text(let length, let seed):
            var bytes = [UInt8](repeating: 0, count: length)
            for row in rows {
                var random = rowRandom(seed, row)
                for index in 0 ..< length { bytes[index] = alphabet[random.next(below: alphabet.count)] }
                bytes.withUnsafeBytes { builder.append(bytes: $0) }
            }
        case .boolean(let seed):
            for row in rows {
                var random = rowRandom(seed, row)
                builder.append(bool: random.next() & 1 == 1)
            }
        case .timestamp(let maxPast, let relative, let base, let seed):
            for row in rows {
                var random = rowRandom(seed, row)
                let back = maxPast == 0 ? 0 : Int64(bitPattern: random.next() % UInt64(maxPast + 1))
                builder.append(int64: (relative ? now : base) - back)
            }
        case .date(let maxPast, let base, let seed):
            for row in rows {
                var random = rowRandom(seed, row)
                builder.append(int32: base - Int32(random.next(below: Int(maxPast) + 1)))
            }
        }
        return builder.finish()
    }

    private static func appendNumber(_ value: Double, integer: Int64, type: DataType, to builder: inout ColumnBuilder) {
        switch type {
        case .int16: builder.append(int16: Int16(clamping: integer))
        case .int32: builder.append(int32: Int32(clamping: integer))
        case .int64: builder.append(int64: integer)
        case .float32: builder.append(float: Float(value))
        case .float64: builder.append(double: value)
        case .decimal(_, let scale?):
            if let decimal = try? SluiceCore.Decimal(value).rounded(scale: scale) { builder.append(decimal: decimal) } else { builder.appendNull() }
        default:
            if let decimal = try? SluiceCore.Decimal(value) { builder.append(decimal: decimal) } else { builder.appendNull() }
        }
    }
}

/// The generator's reader: makes the rows due at the configured rate, paced from when a view
/// first reads the source (or reads again after a pause).
private final class DatagenReader: SourceReader {
    private let source: DatagenSource
    /// `madeAtPaceStart` rows had been made at `paceStart`.
    private var paceStart: ContinuousClock.Instant?
    private var madeAtPaceStart: Int64 = 0

    init(_ source: DatagenSource) {
        self.source = source
    }

    func pause() {
        paceStart = nil
    }

    func step(_ context: SourceStepContext) throws(SluiceError) -> SourceStep {
        let options = source.options
        let made = source.delivered.withLock { $0 }
        if let total = options.totalRows, made >= total { return .finished("finished: every sequence reached its end") }
        context.statistics.status = "running"
        let now = ContinuousClock.now
        if paceStart == nil {
            paceStart = now
            madeAtPaceStart = made
        }
        let elapsed = (now - paceStart!).inSeconds
        var due = madeAtPaceStart + Int64(elapsed * options.rowsPerSecond) + 1 - made
        if let total = options.totalRows { due = min(due, total - made) }
        guard due > 0 else {
            // Until the next row is due, at most 50 ms.
            let wait = min(0.05, max(0.001, (Double(made - madeAtPaceStart + 1) / options.rowsPerSecond) - elapsed))
            return .idle(.microseconds(Int64(wait * 1_000_000)))
        }
        let count = Int(min(due, Int64(Chunk.preferredSize)))
        let chunk = source.makeChunk(from: made, count: count, now: Connectors.nowMicroseconds())
        let next = made + Int64(count)
        context.deliver(chunk) { self.source.delivered.withLock { $0 = next } }
        return .progressed
    }
}
