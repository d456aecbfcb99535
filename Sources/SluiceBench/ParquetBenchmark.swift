import Foundation
import SluiceCore
import SluiceFormats

/// `sluice bench parquet`: N balloon rows (player, balloon_color, score, page_id,
/// favorite_color_bonus, event_ts) generated in memory in chunks of 8,192, written by
/// ``ParquetWriter`` to a temporary file; then the same rows written by pyarrow's
/// `pq.write_table` and by DuckDB's `COPY … TO (FORMAT parquet)` on one thread
/// (`benchmarks/parquet_reference.py`, run with the test virtualenv's Python).
///
/// Every engine is timed on the write alone, rows already in memory, file written to the
/// temporary directory; each figure is the median of `runs` writes. All use the same codec
/// and, for ZSTD, the same level (`zstdLevel`, 1 by default: Arrow's default for ZSTD, which
/// DuckDB, whose default is 3, is told to use too).
package struct ParquetBenchmark {
    /// The codecs the benchmark offers, by their command-line names.
    package enum Codec: String, CaseIterable, Sendable {
        case zstd, snappy, gzip, none

        var compression: ParquetCompression {
            switch self {
            case .zstd: .zstd
            case .snappy: .snappy
            case .gzip: .gzip
            case .none: .uncompressed
            }
        }
    }

    package var rows: Int
    package var codec: Codec
    package var zstdLevel: Int
    package var runs: Int
    package var compareWithReferences: Bool

    package init(rows: Int, codec: Codec = .zstd, zstdLevel: Int = 1, runs: Int = 3, compareWithReferences: Bool = true) {
        self.rows = rows
        self.codec = codec
        self.zstdLevel = zstdLevel
        self.runs = max(runs, 1)
        self.compareWithReferences = compareWithReferences
    }

    package static let columns: [ParquetColumnSchema] = [
        ParquetColumnSchema(name: "player", type: .varchar, fieldID: 1),
        ParquetColumnSchema(name: "balloon_color", type: .varchar, fieldID: 2),
        ParquetColumnSchema(name: "score", type: .int32, fieldID: 3),
        ParquetColumnSchema(name: "page_id", type: .int32, fieldID: 4),
        ParquetColumnSchema(name: "favorite_color_bonus", type: .boolean, fieldID: 5),
        ParquetColumnSchema(name: "event_ts", type: .timestamptz, fieldID: 6),
    ]

    static let chunkRows = 8192
    static let playerCount = 5000
    static let pageCount = 50
    static let colors = ["red", "blue", "green", "yellow", "purple", "orange"]
    /// 2024-05-01T12:00:00Z in microseconds.
    static let firstTimestamp: Int64 = 1_714_564_800_000_000

    /// SplitMix64's finalizer of `row * 8 + salt`: a well-mixed 64-bit value per row and
    /// column, which `parquet_reference.py` computes the same way.
    @inline(__always)
    static func mix(_ row: Int, _ salt: UInt64) -> UInt64 {
        var z = (UInt64(row) << 3 | salt) &* 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Rows `range` of the data set. Row i: player `"player_<mix(i,1) % 5000>"`, colour
    /// `colors[mix(i,2) % 6]`, score `1 + mix(i,3) % 100`, page id `1 + mix(i,4) % 50`, a bonus
    /// when `mix(i,5) % 8 == 0`, and event_ts `2024-05-01T12:00Z + 1000 i + mix(i,6) % 1000` µs
    /// (strictly increasing).
    static func chunk(_ range: Range<Int>, playerNames: [[UInt8]], colorNames: [[UInt8]]) -> Chunk {
        var players = VarBytes(), colors = VarBytes()
        players.reserveCapacity(rows: range.count, bytes: range.count * 11)
        colors.reserveCapacity(rows: range.count, bytes: range.count * 6)
        var scores: [Int32] = [], pages: [Int32] = [], bonuses: [Bool] = [], times: [Int64] = []
        scores.reserveCapacity(range.count)
        pages.reserveCapacity(range.count)
        bonuses.reserveCapacity(range.count)
        times.reserveCapacity(range.count)
        for row in range {
            players.append(playerNames[Int(mix(row, 1) % UInt64(playerCount))])
            colors.append(colorNames[Int(mix(row, 2) % UInt64(colorNames.count))])
            scores.append(Int32(1 + mix(row, 3) % 100))
            pages.append(Int32(1 + mix(row, 4) % UInt64(pageCount)))
            bonuses.append(mix(row, 5) % 8 == 0)
            times.append(firstTimestamp + Int64(row) * 1000 + Int64(mix(row, 6) % 1000))
        }
        return Chunk(columns: [
            Column(type: .varchar, storage: .bytes(players)), Column(type: .varchar, storage: .bytes(colors)),
            Column(type: .int32, storage: .int32(scores)), Column(type: .int32, storage: .int32(pages)),
            Column(type: .boolean, storage: .bool(bonuses)), Column(type: .timestamptz, storage: .int64(times)),
        ])
    }

    /// All `count` rows, in chunks of 8,192.
    static func chunks(_ count: Int) -> [Chunk] {
        let playerNames = (0 ..< playerCount).map { Array("player_\($0)".utf8) }
        let colorNames = colors.map { Array($0.utf8) }
        return stride(from: 0, to: count, by: chunkRows).map { start in
            chunk(start ..< min(start + chunkRows, count), playerNames: playerNames, colorNames: colorNames)
        }
    }

    /// The values' bytes: the strings' UTF-8 plus 4 + 4 + 1 + 8 a row for the other columns
    /// (the reference script counts the same).
    static func inputBytes(_ chunks: [Chunk]) -> Int {
        chunks.reduce(0) { total, chunk in
            var strings = 0
            for column in chunk.columns.prefix(2) {
                if case .bytes(let values) = column.storage { strings += values.data.count }
            }
            return total + strings + chunk.count * (4 + 4 + 1 + 8)
        }
    }

    /// Sums that `parquet_reference.py` computes too, so both sides are known to hold the same
    /// rows: scores + 3 page ids + 5 bonuses + 7 player bytes + 11 colour bytes + the
    /// timestamps' span.
    static func checksum(_ chunks: [Chunk]) -> Int {
        var total = 0
        var lowest = Int64.max, highest = Int64.min
        for chunk in chunks {
            for (index, column) in chunk.columns.enumerated() {
                switch column.storage {
                case .int32(let values): total += (index == 2 ? 1 : 3) * values.reduce(0) { $0 + Int($1) }
                case .bool(let values): total += 5 * values.reduce(0) { $0 + ($1 ? 1 : 0) }
                case .bytes(let values): total += (index == 0 ? 7 : 11) * values.data.count
                case .int64(let values):
                    lowest = min(lowest, values.min() ?? lowest)
                    highest = max(highest, values.max() ?? highest)
                default: break
                }
            }
        }
        return total + (highest >= lowest ? Int(highest - lowest) : 0)
    }

    /// The writer's options for `codec` at `zstdLevel`.
    static func options(_ codec: Codec, zstdLevel: Int) -> ParquetWriterOptions {
        var options = ParquetWriterOptions(compression: codec.compression)
        options.zstdLevel = Int32(clamping: zstdLevel)
        return options
    }

    /// Writes `chunks` to a new file at `path` through ``ParquetWriter``, handing its output to
    /// the file as each `write` completes row groups (the timed part).
    static func write(_ chunks: [Chunk], to path: String, options: ParquetWriterOptions) throws -> ParquetFileSummary {
        guard FileManager.default.createFile(atPath: path, contents: nil), let file = FileHandle(forWritingAtPath: path) else {
            throw SluiceError(.ioError, "could not create \(path)")
        }
        defer { try? file.close() }
        let writer = try ParquetWriter(schema: columns, options: options)
        for chunk in chunks {
            try writer.write(chunk)
            let output = writer.takeOutput()
            if !output.isEmpty { try file.write(contentsOf: output) }
        }
        let (tail, summary) = try writer.finish()
        try file.write(contentsOf: tail)
        return summary
    }

    package func run() throws {
        let chunks = Self.chunks(rows)
        let inputBytes = Self.inputBytes(chunks)
        let level = codec == .zstd ? " level \(zstdLevel)" : ""
        report("sluice bench parquet: \(rows) balloon rows, \(Self.megabytes(inputBytes)) MB of values, \(codec.rawValue)\(level), median of \(runs) writes")
        let directory = NSTemporaryDirectory() + "sluice-bench-parquet-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/sluice.parquet"
        var times: [Double] = []
        var summary: ParquetFileSummary?
        for _ in 0 ..< runs {
            let start = ContinuousClock.now
            summary = try Self.write(chunks, to: path, options: Self.options(codec, zstdLevel: zstdLevel))
            times.append((ContinuousClock.now - start).inSeconds)
        }
        let ours = Self.median(times)
        let ourBytes = Int(summary?.fileSize ?? 0)
        report(line("sluice ParquetWriter", seconds: ours, fileBytes: ourBytes, inputBytes: inputBytes))
        guard compareWithReferences, let figures = try references() else { return }
        if figures["rows"].map({ Int($0) }) != rows || figures["checksum"].map({ Int($0) }) != Self.checksum(chunks) {
            report("  references: generated other rows (rows \(figures["rows"] ?? -1), checksum \(figures["checksum"] ?? -1), expected \(rows), \(Self.checksum(chunks)))")
        }
        for (label, name) in [("pyarrow write_table", "pyarrow"), ("duckdb COPY (1 thread)", "duckdb")] {
            guard let seconds = figures["\(name)_seconds"], let bytes = figures["\(name)_bytes"] else { continue }
            report(line(label, seconds: seconds, fileBytes: Int(bytes), inputBytes: inputBytes)
                + String(format: "  sluice %.2fx as fast", seconds / ours))
        }
    }

    /// One result line: seconds, rows/s, MB/s of the file written and of the values taken.
    private func line(_ label: String, seconds: Double, fileBytes: Int, inputBytes: Int) -> String {
        let padded = label.padding(toLength: 24, withPad: " ", startingAt: 0)
        return String(format: "  %@ %7.3f s  %12.0f rows/s  file %7.1f MB %7.1f MB/s  values %7.1f MB/s",
                      padded, seconds, Double(rows) / seconds, Double(fileBytes) / 1e6, Double(fileBytes) / 1e6 / seconds,
                      Double(inputBytes) / 1e6 / seconds)
    }

    /// The reference script's `label=value` figures, or nil (after saying why) when it could
    /// not run.
    private func references() throws -> [String: Double]? {
        let script = "benchmarks/parquet_reference.py"
        let python = ".venv/bin/python"
        guard FileManager.default.isExecutableFile(atPath: python), FileManager.default.fileExists(atPath: script) else {
            report("  references: need \(python) and \(script) (run from the repository after `make test` set up the environment)")
            return nil
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [script, "--rows", String(rows), "--codec", codec.rawValue, "--level", String(zstdLevel), "--runs", String(runs)]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            report("  references: \(script) failed (status \(process.terminationStatus))")
            return nil
        }
        var figures: [String: Double] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: "=")
            if parts.count == 2, let value = Double(parts[1]) { figures[String(parts[0])] = value }
        }
        return figures
    }

    private static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        return sorted.isEmpty ? 0 : sorted[sorted.count / 2]
    }

    private static func megabytes(_ bytes: Int) -> String {
        String(format: "%.1f", Double(bytes) / 1e6)
    }
}
