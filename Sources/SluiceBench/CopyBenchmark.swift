#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SluiceConnectors
import SluiceCore
import SluicePostgresClient
import SluiceGen
import SluiceServer

/// `sluice bench copy`: bulk loads beside PostgreSQL. One generated file of N rows for
/// `big (id bigint PRIMARY KEY, k bigint, v bigint, s varchar)` is loaded with psql's
/// `\copy … FROM` into Sluice (in process) and into a PostgreSQL server the benchmark starts,
/// both with durable commits (the write-ahead log fsynced), in text and in CSV format.
/// Goal: Sluice loads at least as fast as PostgreSQL (a ratio ≥ 1).
package struct CopyBenchmark {
    /// COPY's data formats that the benchmark loads.
    package enum Format: String, CaseIterable, Sendable {
        case text, csv
    }

    /// Rows of the generated file.
    package var rows: Int
    /// Loads per engine and format; the median is reported.
    package var runs: Int
    /// The formats loaded, each from a file of its own holding the same rows.
    package var formats: [Format]

    /// A benchmark of `runs` loads of `rows` rows in each of `formats`.
    package init(rows: Int, runs: Int, formats: [Format]) {
        self.rows = rows
        self.runs = runs
        self.formats = formats
    }

    static let tableDefinition = "big (id bigint PRIMARY KEY, k bigint, v bigint, s varchar)"

    /// Writes the file, loads it into Sluice and then into PostgreSQL, and prints the medians.
    package func run() async throws {
        guard rows > 0, runs > 0, !formats.isEmpty else {
            throw SluiceError(.invalidParameterValue, "sluice bench copy needs at least one row, one run and one format")
        }
        let directory = try benchDirectory(named: "copy")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        BenchProgress.detail("writing \(rows) rows")
        let files = try CopyDataFile.write(rows: rows, formats: formats, in: directory)
        let sizes = formats.map { String(format: "%.0f MB of %@", Double(files[$0]?.bytes ?? 0) / 1e6, $0.rawValue) }
        report("sluice bench copy: COPY FROM of \(rows) rows (\(sizes.joined(separator: ", "))) into \(Self.tableDefinition), durable commits; medians of \(runs) runs")

        let sluice = try await sluiceTimes(files: files, directory: directory)
        var postgres: [Format: LoadTime]?
        if let binaries = PostgresReference.binaryDirectory() {
            let server = try PostgresReference.start(binaries: binaries, progress: BenchProgress.detail)
            defer { server.stop() }
            postgres = try loadTimes(port: server.port, engine: "PostgreSQL", files: files)
        }
        for format in formats {
            guard let file = files[format], let sluiceTime = sluice[format] else { continue }
            let label = format.rawValue.padding(toLength: 6, withPad: " ", startingAt: 0)
            report("  \(label) \(figures("Sluice", sluiceTime.copy, bytes: file.bytes))")
            if let postgresTime = postgres?[format] {
                report("         \(figures("PostgreSQL", postgresTime.copy, bytes: file.bytes))")
                report(String(format: "         Sluice / PostgreSQL: %.2fx", postgresTime.copy / sluiceTime.copy))
                // Sluice may leave rows staged after COPY returns, merged into the table's pages
                // by the first read: the COPY and that first read, together, on both sides.
                report(String(
                    format: "         with the first SELECT count(*): Sluice %.2f s, PostgreSQL %.2f s: %.2fx",
                    sluiceTime.withFirstRead, postgresTime.withFirstRead, postgresTime.withFirstRead / sluiceTime.withFirstRead))
            }
        }
        if postgres == nil {
            report("  PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/postgres; `make deps` installs it): no reference figures")
        }
    }

    /// One engine's line: median time, rows a second and megabytes a second.
    private func figures(_ engine: String, _ seconds: Double, bytes: Int) -> String {
        let name = engine.padding(toLength: 10, withPad: " ", startingAt: 0)
        return String(format: "%@ %6.2f s %9.0f rows/s %6.1f MB/s", name, seconds, Double(rows) / seconds, Double(bytes) / 1e6 / seconds)
    }

    /// Starts Sluice in process with its data directory under `directory` and times the loads.
    private func sluiceTimes(files: [Format: CopyDataFile], directory: String) async throws -> [Format: LoadTime] {
        var configuration = ServerConfiguration()
        configuration.connectors = { BuiltInConnectors(lakehouse: $0) }
        configuration.sqlPort = 0
        configuration.dataDirectory = "\(directory)/data"
        configuration.catalog = nil
        configuration.http = nil
        configuration.broker = nil
        let server = try await SluiceServer.start(configuration)
        defer { Task { try? await server.shutdown() } }
        let times = try loadTimes(port: server.sqlServer.port, engine: "Sluice", files: files)
        try await server.shutdown()
        return times
    }

    /// A load's median times: the `\copy`, and the `\copy` with the first count after it.
    struct LoadTime {
        var copy: Double
        var withFirstRead: Double
    }

    /// For each format and run: a new table, the timed `\copy`, and a timed count of what it holds.
    private func loadTimes(port: Int, engine: String, files: [Format: CopyDataFile]) throws -> [Format: LoadTime] {
        var medians: [Format: LoadTime] = [:]
        for format in formats {
            guard let file = files[format] else { continue }
            var times: [Double] = []
            var withReads: [Double] = []
            for run in 1 ... runs {
                _ = try PostgresReference.psql(port: port, "DROP TABLE IF EXISTS big", "CREATE TABLE \(Self.tableDefinition)")
                BenchProgress.detail("\(engine): COPY \(rows) rows of \(format.rawValue), run \(run) of \(runs)")
                let options = format == .csv ? " WITH (FORMAT csv)" : ""
                let start = ContinuousClock.now
                _ = try PostgresReference.psql(port: port, "\\copy big FROM '\(file.path)'\(options)")
                times.append((ContinuousClock.now - start).inSeconds)
                let count = try PostgresReference.psql(port: port, "SELECT count(*) FROM big").trimmingCharacters(in: .whitespacesAndNewlines)
                withReads.append((ContinuousClock.now - start).inSeconds)
                guard count == String(rows) else {
                    throw SluiceError(.internalError, "\(engine) holds \(count) rows after COPY FROM of \(rows) rows of \(format.rawValue)")
                }
            }
            medians[format] = LoadTime(copy: times.sorted()[times.count / 2], withFirstRead: withReads.sorted()[withReads.count / 2])
        }
        return medians
    }
}

/// A generated COPY file of `big`'s rows: id = 1…N, k in 0 ..< N/3, v an int64 of any width
/// (half negative), s 8 to 40 characters; about 1% of v and of s NULL, and one string in 32
/// holding a tab, a backslash, a comma or a double quote, escaped or quoted as the format needs.
struct CopyDataFile {
    let path: String
    let bytes: Int

    /// Writes the same rows in each of `formats`, into files under `directory`.
    static func write(rows: Int, formats: [CopyBenchmark.Format], in directory: String) throws -> [CopyBenchmark.Format: CopyDataFile] {
        let text = formats.contains(.text) ? try Output(path: "\(directory)/big.txt") : nil
        let csv = formats.contains(.csv) ? try Output(path: "\(directory)/big.csv") : nil
        var random = SplitMix64(seed: 0x636F_7079)
        let keys = max(1, rows / 3)
        for id in 1 ... rows {
            var row = Row(id: Int64(id), k: Int64(random.next(below: keys)))
            if random.next(below: 100) != 0 { row.v = Int64(bitPattern: random.next()) >> random.next(below: 48) }
            if random.next(below: 100) != 0 { row.length = 8 + random.next(below: 33) }
            if random.next(below: 32) == 0 {
                row.special = Row.specials[random.next(below: Row.specials.count)]
                row.specialPosition = random.next(below: max(row.length, 1))
            }
            if let text {
                row.append(to: text.writer, isCSV: false)
                if text.writer.count >= 1 << 20 { try text.flush() }
            }
            if let csv {
                row.append(to: csv.writer, isCSV: true)
                if csv.writer.count >= 1 << 20 { try csv.flush() }
            }
        }
        var files: [CopyBenchmark.Format: CopyDataFile] = [:]
        if let text { files[.text] = try text.finish() }
        if let csv { files[.csv] = try csv.finish() }
        return files
    }

    /// One row of `big`; its string's characters come from a generator seeded by its id, so
    /// both formats write the same ones.
    struct Row {
        static let alphabet = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 -".utf8)
        static let specials: [UInt8] = [UInt8(ascii: "\t"), UInt8(ascii: "\\"), UInt8(ascii: ","), UInt8(ascii: "\"")]

        var id: Int64
        var k: Int64
        var v: Int64?
        /// The string's length; 0 for NULL.
        var length = 0
        var special: UInt8?
        var specialPosition = 0

        /// Appends the row as a line of COPY's text format (tab-separated, `\N` for NULL,
        /// backslash escapes) or of CSV (comma-separated, an unquoted empty field for NULL).
        func append(to writer: ByteWriter, isCSV: Bool) {
            let separator = isCSV ? UInt8(ascii: ",") : UInt8(ascii: "\t")
            writer.appendDecimal(id)
            writer.append(separator)
            writer.appendDecimal(k)
            writer.append(separator)
            if let v { writer.appendDecimal(v) } else if !isCSV { writer.append("\\N") }
            writer.append(separator)
            if length == 0 {
                if !isCSV { writer.append("\\N") }
            } else {
                let quoted = isCSV && (special == UInt8(ascii: ",") || special == UInt8(ascii: "\""))
                if quoted { writer.append(UInt8(ascii: "\"")) }
                var draws = SplitMix64(seed: UInt64(id))
                var bits: UInt64 = 0
                for position in 0 ..< length {
                    // One draw of 60 bits gives ten characters.
                    if position % 10 == 0 { bits = draws.next() }
                    var byte = Self.alphabet[Int(bits & 63)]
                    bits >>= 6
                    if position == specialPosition, let special { byte = special }
                    if !isCSV && byte == UInt8(ascii: "\t") {
                        writer.append("\\t")
                    } else if !isCSV && byte == UInt8(ascii: "\\") {
                        writer.append("\\\\")
                    } else if isCSV && byte == UInt8(ascii: "\"") {
                        writer.append("\"\"")
                    } else {
                        writer.append(byte)
                    }
                }
                if quoted { writer.append(UInt8(ascii: "\"")) }
            }
            writer.append(UInt8(ascii: "\n"))
        }
    }

    /// A file written from a byte buffer a megabyte at a time.
    final class Output {
        let path: String
        let handle: FileHandle
        let writer = ByteWriter(capacity: 1 << 21)
        var written = 0

        init(path: String) throws {
            guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
                throw SluiceError(.ioError, "cannot create the data file \(path)")
            }
            self.path = path
            self.handle = handle
        }

        func flush() throws {
            try handle.write(contentsOf: Data(writer.bytes))
            written += writer.count
            writer.removeAll()
        }

        func finish() throws -> CopyDataFile {
            try flush()
            try handle.close()
            return CopyDataFile(path: path, bytes: written)
        }
    }
}
