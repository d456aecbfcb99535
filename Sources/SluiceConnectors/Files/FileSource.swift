import Foundation
import SluiceCore
import SluiceDataflow
import SluiceExpr
import SluiceFormats
import SluiceLakehouse
import SluiceLakehouseClients
import Synchronization

/// RisingWave's file sources, `connector = 'posix_fs'` (a folder) and `connector = 's3'` (a
/// bucket): every file under the root that `match_pattern` names, read once, in JSON lines, CSV
/// or Parquet (``FileSourceOptions``). New files are picked up as they appear, listed every
/// `refresh.interval.sec`.
///
/// **Exactly once.** Files are numbered in the order they are found, and the numbering is kept
/// in the connector's folder (`files.list`, one line per file, appended and synced before any
/// row of the file is delivered). The position is two numbers: partition 0 holds how many files
/// were read to their end, partition 1 how many units (lines, records, rows) of the next one.
/// It moves with the rows it covers (``SourceOutput/deliver``), so a checkpoint holds both or
/// neither, and a restart goes on mid-file.
///
/// **Queries.** `SELECT` over the source lists and reads the files as they are now; a `WHERE`
/// on Hive folder columns skips whole files, and on Parquet columns skips row groups by their
/// statistics.
///
/// **Bad input.** A bad line or record is counted and kept in `sluice_source_errors` with the
/// file's path and line; a file that cannot be read (damaged, gone) likewise, with the reason,
/// and reading goes on with the next file.
package final class FileSource: SourceConnector, @unchecked Sendable {
    package static let posixEntry = ConnectorEntry(
        name: "posix_fs", sourceOptions: FileSourceOptions.posixSchema,
        makeSource: { description, context throws(SluiceError) in try FileSource(description, validate: context.validate) })
    /// `connector = 's3'`: a file source over a bucket, or a file sink into one.
    package static let s3Entry = ConnectorEntry(
        name: "s3", sourceOptions: FileSourceOptions.s3Schema,
        makeSource: { description, context throws(SluiceError) in try FileSource(description, validate: context.validate) },
        sinkOptions: FileSink.s3Options,
        makeSink: { description, context throws(SluiceError) in
            try FileSink(description, validate: context.validate, bufferBytes: context.lakehouse.upsertBufferBytes)
        })

    package let statistics = SourceStatistics()
    package private(set) var notices: [String] = []
    private let description: SourceDescription
    fileprivate let options: FileSourceOptions
    private let fileIO: any FileIO
    private let listFile: String?
    private let columnsFromFiles: [(name: String, type: DataType)]?
    private let driver = SourceDriverSlot()

    private struct State {
        /// Files found so far, in the order they are read.
        var files: [SourceFile] = []
        var known = Set<String>()
        /// Files read to their end, and units read of the next.
        var filesDone: Int64 = 0
        var unitsDone: Int64 = 0
    }
    private let state = Mutex(State())

    init(_ description: SourceDescription, validate: Bool) throws(SluiceError) {
        self.description = description
        options = try FileSourceOptions(description)
        if let s3 = options.s3 {
            fileIO = try S3FileIO(config: s3)
        } else {
            fileIO = LocalFileIO()
        }
        listFile = description.stateDirectory.map { "\($0)/files.list" }
        var inferred: [(name: String, type: DataType)]?
        if validate {
            let files = try Self.listFiles(fileIO, options)
            if options.s3 == nil, try fileIO.list(prefix: options.rootLocation).isEmpty, !Self.isDirectory(options.rootLocation) {
                notices.append("the folder \(options.rootLocation.dropFirst("file://".count)) does not exist yet; the source reads it once it does")
            }
            if description.columns.isEmpty {
                guard options.encoding != .yaml else {
                    throw SluiceError(.syntaxError, "a file source of ENCODE YAML needs its columns listed", hint: "Parquet files say their columns; CSV headers and JSON lines are read for theirs.")
                }
                guard let first = files.first else {
                    throw SluiceError(
                        .externalTableNotFound, "no file under \(options.rootLocation) matches '\(description.options["match_pattern"] ?? "*")' to take the columns from",
                        hint: "List the columns, or add a file first.")
                }
                var columns = try FileRowReader.firstRecordColumns(first, encoding: options.encoding, fileIO: fileIO)
                for component in first.relativePath.split(separator: "/").dropLast() {
                    guard let equals = component.firstIndex(of: "=") else { continue }
                    let name = String(component[..<equals])
                    if !columns.contains(where: { $0.name.lowercased() == name.lowercased() }) { columns.append((name, .varchar)) }
                }
                inferred = columns
            }
        }
        columnsFromFiles = inferred
        let positions = (description.startPositions ?? [:]).merging(description.resumePositions ?? [:]) { $1 }
        let recorded = try Self.readList(listFile, root: options.rootLocation)
        state.withLock { state in
            state.files = recorded
            state.known = Set(recorded.map(\.relativePath))
            state.filesDone = positions[0] ?? 0
            state.unitsDone = positions[1] ?? 0
        }
        statistics.status = "idle"
    }

    package var inferredColumns: [(name: String, type: DataType)]? { columnsFromFiles }

    private var columns: [(name: String, type: DataType)] {
        description.columns.isEmpty ? (columnsFromFiles ?? []) : description.columns
    }

    private var reader: FileRowReader {
        FileRowReader(columns: columns, encoding: options.encoding, compression: options.compression, fileIO: fileIO)
    }

    package var positions: [Int32: Int64]? {
        state.withLock { [0: $0.filesDone, 1: $0.unitsDone] }
    }

    // MARK: SourceConnector

    package func start(output: SourceOutput) {
        driver.start(name: "files-\(description.name)", statistics: statistics, readers: [FileReader(self)], output: output)
    }

    package func stop() {
        driver.stop()
    }

    /// The rows read so far, of `columns` (nil: all; Parquet's others are NULL), read when the
    /// backfill reaches them: the files and the position are noted now.
    package func snapshot(columns: Set<Int>?) throws(SluiceError) -> SourceSnapshot {
        let (files, done, units) = state.withLock { ($0.files, $0.filesDone, $0.unitsDone) }
        var reader = self.reader
        reader.wanted = columns
        return SourceSnapshot(rowEstimate: 0) { [reader] (each: (Chunk) throws(SluiceError) -> Void) throws(SluiceError) in
            for index in 0 ..< min(Int(done) + 1, files.count) {
                let limit = index < Int(done) ? Int64.max : units
                guard limit > 0 else { continue }
                var previous: Int64 = 0
                var delivering = false
                do throws(SluiceError) {
                    try reader.read(files[index], skip: 0, each: { (chunk, through) throws(SluiceError) in
                        defer { previous = through }
                        delivering = true
                        defer { delivering = false }
                        if through <= limit {
                            try each(chunk)
                        } else if previous < limit {
                            // The position cuts this chunk: its rows up to the position (a unit
                            // rejected in this chunk's range shifts the cut by one row).
                            try each(chunk.slice(0 ..< Int(max(0, min(Int64(chunk.count), limit - previous)))))
                        }
                    }, reject: { _ in })
                } catch {
                    // The backfill's own failure ends it; a file that cannot be read now was
                    // skipped when it was read the first time.
                    if delivering { throw error }
                    continue
                }
            }
        }
    }

    package func scan(pruningBy filter: ScalarExpr?, each: (Chunk) throws(SluiceError) -> Void) throws(SluiceError) {
        let reader = self.reader
        let predicate = filter.flatMap { IcebergSource.predicate($0, fields: Array(columns.indices)) }
        let mayMatch: ((Int, IcebergColumnEvidence) -> Bool)? = predicate.map { predicate in
            { column, evidence in
                predicate.terms.allSatisfy { term in Self.fieldID(of: term) != column || evidence.mayMatch(term) }
            }
        }
        var read = 0, skipped = 0, unreadable = 0
        for file in try listFiles() {
            if let mayMatch {
                let constants = reader.partitionValues(file.relativePath)
                if constants.contains(where: { !mayMatch($0.key, IcebergColumnEvidence(single: $0.value)) }) {
                    skipped += 1
                    continue
                }
            }
            read += 1
            // A file that cannot be read (damaged, or removed since it was listed) is passed over,
            // as the source's reader passes it over (and records it in sluice_source_errors).
            var delivering = false
            do throws(SluiceError) {
                try reader.read(file, skip: 0, mayMatch: mayMatch, each: { (chunk, _) throws(SluiceError) in
                    delivering = true
                    defer { delivering = false }
                    try each(chunk)
                }, reject: { _ in })
            } catch {
                // The query's own failure (cancelled, out of memory) ends it; the file's does not.
                if delivering { throw error }
                unreadable += 1
            }
        }
        statistics.status = "last scan: \(read) files read, \(skipped) skipped by their folders"
            + (unreadable > 0 ? ", \(unreadable) unreadable" : "")
    }

    private static func fieldID(of term: IcebergScanTerm) -> Int {
        switch term {
        case .compare(let id, _, _), .isNull(let id), .isNotNull(let id), .isIn(let id, _): id
        }
    }

    // MARK: Reading

    /// Reads the next file (from where its position stands); false when every file is read.
    fileprivate func readNextFile(_ context: SourceStepContext) -> Bool {
        let next = state.withLock { state -> (index: Int, file: SourceFile, skip: Int64)? in
            let index = Int(state.filesDone)
            return index < state.files.count ? (index, state.files[index], state.unitsDone) : nil
        }
        guard let next else { return false }
        statistics.status = "running: reading \(next.file.relativePath)"
        let partition = Int32(clamping: next.index)
        do throws(SluiceError) {
            if case .parquet = options.encoding {
                // Parquet's columns no view reads are left undecoded; each column's next page
                // is decompressed on a worker while this thread decodes the current one.
                var reader = self.reader
                reader.background = context.background
                try reader.readParquet(next.file, skip: next.skip, reading: { context.readColumns }) { (chunk, columns, through) throws(SluiceError) -> Bool in
                    guard !context.isStopping else { throw SluiceError(.queryCanceled, "stopping") }
                    return context.deliver(chunk, reading: columns) { self.state.withLock { $0.unitsDone = through } }
                }
            } else {
                try reader.read(next.file, skip: next.skip, each: { (chunk, through) throws(SluiceError) in
                    guard !context.isStopping else { throw SluiceError(.queryCanceled, "stopping") }
                    context.deliver(chunk) { self.state.withLock { $0.unitsDone = through } }
                }, reject: { rejection in
                    rejection.payload.withUnsafeBytes { payload in
                        context.reject(partition: partition, offset: rejection.unit, message: "\(next.file.relativePath): \(rejection.message)", payload: payload)
                    }
                })
            }
        } catch where error.code == .queryCanceled && context.isStopping {
            return true
        } catch {
            context.reject(
                partition: partition, offset: next.skip, message: "\(next.file.relativePath): \(error.message)",
                payload: UnsafeRawBufferPointer(start: nil, count: 0))
        }
        statistics.bytesRead.add(next.file.size, ordering: .relaxed)
        // Read to its end (or given up): the same rows delivered, counted as the next file's start.
        state.withLock { state in
            if state.filesDone == Int64(next.index) {
                state.filesDone += 1
                state.unitsDone = 0
            }
        }
        return true
    }

    /// Lists the root and records the files not seen before, in path order, in the list file
    /// (synced) before they are read.
    fileprivate func discover() throws(SluiceError) {
        let found = try listFiles()
        let known = state.withLock { $0.known }
        let new = found.filter { !known.contains($0.relativePath) }
        guard !new.isEmpty else { return }
        if let listFile {
            var text = ""
            for file in new { text += "\(file.size) \(file.relativePath)\n" }
            try Self.append(Array(text.utf8), to: listFile)
        }
        state.withLock { state in
            for file in new where state.known.insert(file.relativePath).inserted { state.files.append(file) }
        }
    }

    /// The files under the root that the pattern names, in path order.
    private func listFiles() throws(SluiceError) -> [SourceFile] {
        try Self.listFiles(fileIO, options)
    }

    private static func listFiles(_ fileIO: any FileIO, _ options: FileSourceOptions) throws(SluiceError) -> [SourceFile] {
        let root = options.rootLocation
        var files: [SourceFile] = []
        for entry in try fileIO.list(prefix: root) {
            guard entry.location.hasPrefix(root) else { continue }
            let relative = String(entry.location.dropFirst(root.count))
            guard !relative.isEmpty, !relative.contains("\n") else { continue }
            if relative.split(separator: "/").contains(where: { $0.hasPrefix(".") || $0.hasPrefix("_") }) { continue }
            guard options.pattern.matches(relative) else { continue }
            files.append(SourceFile(location: entry.location, relativePath: relative, size: entry.size))
        }
        return files
    }

    // MARK: The list file

    private static func readList(_ path: String?, root: String) throws(SluiceError) -> [SourceFile] {
        guard let path, let data = FileManager.default.contents(atPath: path) else { return [] }
        var files: [SourceFile] = []
        for line in data.split(separator: UInt8(ascii: "\n")) {
            guard let space = line.firstIndex(of: UInt8(ascii: " ")), let size = Int(String(decoding: line[..<space], as: UTF8.self)) else {
                // A line cut by a crash mid-append was never synced before its file was read.
                continue
            }
            let relative = String(decoding: line[(space + 1)...], as: UTF8.self)
            files.append(SourceFile(location: root + relative, relativePath: relative, size: size))
        }
        return files
    }

    private static func append(_ bytes: [UInt8], to path: String) throws(SluiceError) {
        let directory = LocalPath.directory(of: path)
        try POSIXFile.createDirectories(directory)
        let descriptor = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw SluiceError(.ioError, "could not open \"\(path)\": \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        try POSIXFile.writeAll(bytes, to: descriptor, path: path)
        try POSIXFile.sync(descriptor, path: path)
    }

    private static func isDirectory(_ location: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: String(location.dropFirst("file://".count)), isDirectory: &isDirectory) && isDirectory.boolValue
    }
}

/// The file source's reader: lists the root every `refresh.interval.sec`, then reads the files
/// found, one per step.
private final class FileReader: SourceReader {
    private let source: FileSource
    private var lastListing: ContinuousClock.Instant?

    init(_ source: FileSource) {
        self.source = source
    }

    func step(_ context: SourceStepContext) throws(SluiceError) -> SourceStep {
        let interval = Duration.milliseconds(Int64(source.options.refreshSeconds * 1000))
        if lastListing.map({ ContinuousClock.now - $0 >= interval }) ?? true {
            try source.discover()
            lastListing = .now
        }
        if source.readNextFile(context) { return .progressed }
        context.statistics.status = "running: every file read, listing again every \(source.options.refreshSeconds) s"
        return .idle(.milliseconds(Int64(min(50, source.options.refreshSeconds * 1000))))
    }
}
