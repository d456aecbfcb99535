#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SluiceCore
import SluiceDataflow
import SluiceFormats
import SluiceLakehouse
import SluiceLakehouseClients
import SluiceState

/// RisingWave's file sink, `connector = 'fs'`: rows go to Parquet, JSON-lines or CSV files in a
/// folder (``FileSinkOptions``), exactly once across crashes.
///
/// **How a file is made.** Rows are appended to an *in-progress* file in the sink's staging
/// folder (`<fs.path>/.sluice-staging/<sink id>/`), one per output folder. At each checkpoint
/// barrier (``prepare(epoch:)``) an in-progress file is either synced and kept open (its length
/// and, for Parquet, its row groups so far go into the checkpoint's token), or, once it is due
/// (open `rollover_seconds`, or `max_row_count` rows), finished and named: the token says where
/// it goes. ``commit(_:)``, once that checkpoint is durable, renames finished files into place,
/// `<folder>/<sink>-<epoch>-<n>.<ext>`. Nobody sees a file before its rows' checkpoint is durable.
///
/// **After a crash** the restored checkpoint's tokens (``resume(_:)``) say which staged files
/// are finished and waiting for their rename (the commit after restart does it, or finds it
/// done), and which in-progress files go on: each is cut back to the length it had at the
/// checkpoint, so rows written after it (which the pipeline delivers again) are not doubled.
/// Any other staged file was written after the checkpoint and is deleted.
package final class FileSink: StreamSink, @unchecked Sendable {
    package static let entry = ConnectorEntry(
        name: "fs", sinkOptions: FileSinkOptions.schema,
        makeSink: { description, context throws(SluiceError) in
            try FileSink(description, validate: context.validate, bufferBytes: context.lakehouse.upsertBufferBytes)
        })
    /// `connector = 's3'` as a sink: files staged on the local disk, uploaded at commit.
    static let s3Options = FileSinkOptions.s3Schema

    /// A commit only renames files their rollover finished: one at every checkpoint, so a
    /// finished file shows at once.
    package var defaultCommitInterval: Int { 1 }

    private let description: SinkDescription
    private let options: FileSinkOptions
    private let staging: String
    /// Where an S3 sink's committed files go; nil for a local folder (files are renamed there).
    private let remote: (any FileIO)?
    /// The columns the files hold: all but the partition columns.
    private let fileColumns: [Int]
    private var open: [String: InProgressFile] = [:]
    /// Files finished since the last prepare, not yet named.
    private var finished: [InProgressFile] = []
    private var stagedCount = 0
    /// The aligned buffer the files' direct writes go through.
    private let scratch = DirectWriteScratch()
    /// Past this many open files (one per folder), the oldest is finished: a `partition_by` of
    /// more values at once costs more files, never unbounded descriptors.
    static let maxOpenFiles = 512
    /// The most bytes the open files' encoders may buffer (Parquet row groups being built)
    /// before they write their row groups out: a share of the memory limit.
    private let bufferBytes: Int
    /// What the open files buffer, in the process's memory ledger.
    private let buffered = MemoryShare(.sinkBuffers)
    /// Whether the staging folder was cleared of what an earlier run left (or resumed from it).
    private var isStagingSettled = false

    init(_ description: SinkDescription, validate: Bool, bufferBytes: Int = 64 << 20) throws(SluiceError) {
        self.description = description
        self.bufferBytes = bufferBytes
        options = try FileSinkOptions(description)
        if let s3 = options.s3 {
            // S3 has no rename: files are staged on the local disk and uploaded when committed.
            staging = description.localStaging("staging")
            remote = try S3FileIO(config: s3)
        } else {
            staging = "\(options.root == "/" ? "" : options.root)/.sluice-staging/\(description.stagingName)"
            remote = nil
        }
        let partitionColumns = options.partitionColumns
        fileColumns = description.columns.indices.filter { !partitionColumns.contains($0) }
        if validate {
            // The folder must be one the server can write: made now, so a mistake is an error
            // at CREATE rather than at the first checkpoint. A bucket must answer.
            try POSIXFile.createDirectories(staging)
            if let remote { _ = try remote.list(prefix: options.root + "/") }
        }
    }

    // MARK: StreamSink

    package func write(_ chunk: StreamChunk) throws(SluiceError) {
        try settleStaging()
        guard let rows = chunk.insertedRows else { return }
        let prefix = timePrefix(Connectors.nowMicroseconds())
        guard !options.partitionColumns.isEmpty else {
            try append(rows, folder: prefix)
            return
        }
        // Rows by their Hive folder, in the order each folder first appears.
        var groups: [String: [Int]] = [:]
        var order: [String] = []
        var text: [UInt8] = []
        for row in 0 ..< rows.count {
            var folder = prefix
            for column in options.partitionColumns {
                if !folder.isEmpty { folder += "/" }
                folder += description.columns[column].name + "="
                let values = rows.columns[column]
                if values.isNull(row) {
                    folder += Self.nullPartition
                } else {
                    text.removeAll(keepingCapacity: true)
                    values.appendText(at: row, to: &text)
                    folder += text.isEmpty ? Self.nullPartition : Self.escapePathName(text)
                }
            }
            if groups[folder] == nil { order.append(folder) }
            groups[folder, default: []].append(row)
        }
        for folder in order {
            let indexes = groups[folder]!
            try append(indexes.count == rows.count ? rows : rows.gather(indexes), folder: folder)
        }
    }

    package func prepare(epoch: UInt64) throws(SluiceError) -> [UInt8]? {
        try settleStaging()
        let now = Connectors.nowMicroseconds()
        var openStates: [(file: InProgressFile, state: [UInt8])] = []
        var created = false
        for folder in open.keys.sorted() {
            let file = open[folder]!
            if now - file.openedAt >= options.rolloverMicroseconds {
                try finish(file)
                continue
            }
            let (bytes, state) = file.encoder.flush()
            try file.append(bytes)
            try file.sync()
            created = created || file.isNew
            file.isNew = false
            openStates.append((file, state))
        }
        buffered.set(open.values.reduce(0) { $0 + $1.encoder.bufferedBytes })
        var named: [(staging: String, final: String, rows: Int)] = []
        for (index, file) in finished.enumerated() {
            created = created || file.isNew
            let folder = file.folder.isEmpty ? options.root : "\(options.root)/\(file.folder)"
            named.append((file.stagingPath, "\(folder)/\(description.name)-\(epoch)-\(index).\(options.encoding.fileExtension)", file.rows))
        }
        finished = []
        if created { try POSIXFile.syncDirectory(staging) }
        guard !named.isEmpty || !openStates.isEmpty else { return nil }
        var token = TokenWriter()
        token.integer(UInt64(named.count))
        for entry in named {
            token.string(entry.staging)
            token.string(entry.final)
            token.integer(UInt64(entry.rows))
        }
        token.integer(UInt64(openStates.count))
        for (file, state) in openStates {
            token.string(file.stagingPath)
            token.string(file.folder)
            token.integer(UInt64(file.length))
            token.integer(UInt64(file.rows))
            token.integer(UInt64(bitPattern: file.openedAt))
            token.bytes(state)
        }
        return token.bytes
    }

    package func commit(_ prepared: [PreparedEpoch]) throws(SluiceError) -> SinkCommitSummary {
        var summary = SinkCommitSummary()
        var folders = Set<String>()
        if let remote { return try commitRemote(prepared, to: remote) }
        for entry in prepared {
            let token = try FileSinkToken(decoding: entry.token)
            for file in token.finished {
                let folder = LocalPath.directory(of: file.final)
                if access(file.staging, F_OK) == 0 {
                    try POSIXFile.createDirectories(folder)
                    guard rename(file.staging, file.final) == 0 else {
                        throw SluiceError(.ioError, "could not rename \"\(file.staging)\" to \"\(file.final)\": \(String(cString: strerror(errno)))")
                    }
                } else if access(file.final, F_OK) != 0 {
                    throw SluiceError(.dataCorrupted, "the file sink's staged file \"\(file.staging)\" is gone before it reached \"\(file.final)\"")
                }
                folders.insert(folder)
                // Between two renames of one commit: the commit after restart finishes it.
                if summary.files == 0 { try ConnectorFailpoints.hit("file-sink-mid-commit") }
                summary.files += 1
                summary.rows += file.rows
            }
        }
        for folder in folders.sorted() {
            if options.successFile {
                let marker = "\(folder)/_SUCCESS"
                let descriptor = Glibc.open(marker, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
                if descriptor >= 0 { Glibc.close(descriptor) }
            }
            try POSIXFile.syncDirectory(folder)
        }
        return summary
    }

    /// An S3 sink's commit: each finished file uploaded (a multipart upload completes only
    /// when the whole file is sent), then its staged copy removed. A file whose staged copy is
    /// gone was uploaded by an earlier attempt; it must be there.
    private func commitRemote(_ prepared: [PreparedEpoch], to remote: any FileIO) throws(SluiceError) -> SinkCommitSummary {
        var summary = SinkCommitSummary()
        var folders = Set<String>()
        for entry in prepared {
            let token = try FileSinkToken(decoding: entry.token)
            for file in token.finished {
                if access(file.staging, F_OK) == 0 {
                    let descriptor = Glibc.open(file.staging, O_RDONLY | O_CLOEXEC)
                    guard descriptor >= 0 else { throw SluiceError(.ioError, "could not open \"\(file.staging)\": \(String(cString: strerror(errno)))") }
                    defer { Glibc.close(descriptor) }
                    let size = try POSIXFile.size(of: descriptor, path: file.staging)
                    let output = try remote.output(file.final)
                    var offset = 0
                    do throws(SluiceError) {
                        while offset < size {
                            let count = min(8 << 20, size - offset)
                            try output.write(try POSIXFile.read(descriptor, path: file.staging, offset: offset, count: count))
                            offset += count
                        }
                        _ = try output.close()
                    } catch {
                        output.abort()
                        throw error
                    }
                    unlink(file.staging)
                } else if try remote.size(file.final) == nil {
                    throw SluiceError(.dataCorrupted, "the s3 sink's staged file \"\(file.staging)\" is gone before it reached \(file.final)")
                }
                folders.insert(LocalPath.directory(of: file.final))
                if summary.files == 0 { try ConnectorFailpoints.hit("file-sink-mid-commit") }
                summary.files += 1
                summary.rows += file.rows
            }
        }
        if options.successFile {
            for folder in folders.sorted() { try remote.write("\(folder)/_SUCCESS", []) }
        }
        return summary
    }

    package func lastCommittedEpoch() throws(SluiceError) -> UInt64? { nil }

    package func resume(_ pending: [PreparedEpoch]) throws(SluiceError) {
        var keep = Set<String>()
        var tokens: [FileSinkToken] = []
        for entry in pending.sorted(by: { $0.epoch < $1.epoch }) {
            let token = try FileSinkToken(decoding: entry.token)
            for file in token.finished { keep.insert(file.staging) }
            tokens.append(token)
        }
        for file in tokens.last?.open ?? [] {
            keep.insert(file.staging)
            guard truncate(file.staging, off_t(file.length)) == 0 else {
                throw SluiceError(.dataCorrupted, "the file sink cannot go on with \"\(file.staging)\": \(String(cString: strerror(errno)))")
            }
            let encoder = try FileEncoder(options.encoding, columns: fileColumns.map { description.columns[$0] }, resuming: file.state)
            let reopened = try InProgressFile(
                path: file.staging, folder: file.folder, encoder: encoder, openedAt: file.openedAt, creating: false, scratch: scratch)
            reopened.rows = file.rows
            open[file.folder] = reopened
        }
        try removeStaged(except: keep)
        for path in keep { stagedCount = max(stagedCount, Self.stagedNumber(path) + 1) }
        isStagingSettled = true
    }

    package func close() {
        for file in open.values { file.closeDescriptor() }
        for file in finished { file.closeDescriptor() }
    }

    // MARK: Files

    private func append(_ rows: Chunk, folder: String) throws(SluiceError) {
        let file: InProgressFile
        if let existing = open[folder] { file = existing } else { file = try openFile(folder) }
        let data = Chunk(columns: fileColumns.map { rows.columns[$0] }, count: rows.count)
        try file.append(try file.encoder.write(data))
        file.rows += rows.count
        if let limit = options.maxRowCount, file.rows >= limit { try finish(file) }
        var total = open.values.reduce(0) { $0 + $1.encoder.bufferedBytes }
        if total > bufferBytes {
            // The row groups being built go out now, largest first, until under the bound.
            for file in open.values.sorted(by: { $0.encoder.bufferedBytes > $1.encoder.bufferedBytes }) where total > bufferBytes {
                let before = file.encoder.bufferedBytes
                try file.append(file.encoder.flush().bytes)
                total -= before - file.encoder.bufferedBytes
            }
        }
        buffered.set(total)
    }

    private func openFile(_ folder: String) throws(SluiceError) -> InProgressFile {
        if open.count >= Self.maxOpenFiles, let oldest = open.values.min(by: { $0.openedAt < $1.openedAt }) { try finish(oldest) }
        try POSIXFile.createDirectories(staging)
        let path = "\(staging)/\(stagedCount).\(options.encoding.fileExtension).inprogress"
        stagedCount += 1
        let encoder = try FileEncoder(options.encoding, columns: fileColumns.map { description.columns[$0] })
        let file = try InProgressFile(path: path, folder: folder, encoder: encoder, openedAt: Connectors.nowMicroseconds(), creating: true, scratch: scratch)
        open[folder] = file
        return file
    }

    /// Ends `file`: its last bytes, synced and closed; named at the next prepare.
    private func finish(_ file: InProgressFile) throws(SluiceError) {
        try file.append(try file.encoder.finish())
        try file.sync()
        file.closeDescriptor()
        open[file.folder] = nil
        finished.append(file)
    }

    /// On the first write or prepare of a sink that resumed nothing: whatever an earlier run
    /// staged was never part of a checkpoint, and goes.
    private func settleStaging() throws(SluiceError) {
        guard !isStagingSettled else { return }
        isStagingSettled = true
        try removeStaged(except: [])
    }

    private func removeStaged(except keep: Set<String>) throws(SluiceError) {
        for name in try POSIXFile.names(in: staging) ?? [] where !keep.contains("\(staging)/\(name)") {
            unlink("\(staging)/\(name)")
        }
    }

    private static func stagedNumber(_ path: String) -> Int {
        Int(path.split(separator: "/").last?.prefix { $0.isNumber } ?? "") ?? 0
    }

    /// The `path_partition_prefix` folder of `microseconds`, or "".
    private func timePrefix(_ microseconds: Int64) -> String {
        guard options.pathPrefix != .none else { return "" }
        let seconds = microseconds / 1_000_000
        let date = CivilDate(daysSinceUnixEpoch: Int(seconds / 86_400))
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        let month = "\(date.year)-\(two(date.month))"
        switch options.pathPrefix {
        case .month: return month
        case .day: return "\(month)-\(two(date.day))"
        case .hour: return "\(month)-\(two(date.day))/\(two(Int(seconds % 86_400 / 3600)))"
        case .none: return ""
        }
    }

    /// Hive's folder name for a NULL (or empty) partition value.
    static let nullPartition = "__HIVE_DEFAULT_PARTITION__"

    /// `text` with the characters Hive escapes in partition folder names as `%XX`
    /// (`FileUtils.escapePathName`): control characters, `"#%'*/:=?\^{[]` and DEL.
    static func escapePathName(_ text: [UInt8]) -> String {
        let special: Set<UInt8> = Set("\"#%'*/:=?\\^{[]".utf8).union([0x7F])
        guard text.contains(where: { $0 < 0x20 || special.contains($0) }) else { return String(decoding: text, as: UTF8.self) }
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in text {
            if byte < 0x20 || special.contains(byte) {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            } else {
                out.append(byte)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

/// A file being written in the staging folder: with direct I/O where the file system takes
/// it (``DirectAppendFile``), else through the page cache, synced behind as it grows.
private final class InProgressFile {
    let stagingPath: String
    /// The folder under the sink's root it goes to ("" for the root).
    let folder: String
    let encoder: FileEncoder
    let openedAt: Int64
    private let direct: DirectAppendFile?
    private var descriptor: Int32
    private(set) var length: Int
    var rows = 0
    /// Created since the last prepare: its name is synced into the staging folder at the next.
    var isNew: Bool

    /// Opens the staging file at `path`: a new one with `creating`, else the file as it is (cut
    /// back to the length its checkpoint recorded).
    init(path: String, folder: String, encoder: FileEncoder, openedAt: Int64, creating: Bool, scratch: DirectWriteScratch) throws(SluiceError) {
        stagingPath = path
        self.folder = folder
        self.encoder = encoder
        self.openedAt = openedAt
        isNew = creating
        direct = try DirectAppendFile.open(path: path, creating: creating, scratch: scratch)
        if let direct {
            descriptor = -1
            length = direct.length
            return
        }
        descriptor = Glibc.open(path, O_WRONLY | O_APPEND | O_CLOEXEC | (creating ? O_CREAT | O_TRUNC : 0), 0o644)
        guard descriptor >= 0 else {
            throw SluiceError(.ioError, "the file sink could not open \"\(path)\": \(String(cString: strerror(errno)))")
        }
        length = Int(lseek(descriptor, 0, SEEK_END))
    }

    func append(_ bytes: [UInt8]) throws(SluiceError) {
        guard !bytes.isEmpty else { return }
        if let direct {
            try direct.append(bytes)
        } else {
            // Synced behind every 8 MiB: the file is synced before it is named, and that sync
            // then finds little left to write (nor does a log's fsync wait behind its dirty pages).
            try Files.writeAll(bytes, to: descriptor, path: stagingPath, syncingBehind: true)
        }
        length += bytes.count
    }

    /// Makes what was appended durable.
    func sync() throws(SluiceError) {
        if let direct { return try direct.sync() }
        try POSIXFile.sync(descriptor, path: stagingPath)
    }

    func closeDescriptor() {
        direct?.close()
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }

    deinit { closeDescriptor() }
}

/// What a file sink's prepare hands its commit (and its restart): the files finished in the
/// epoch with where they go, and the in-progress files with how far they are durable.
private struct FileSinkToken {
    struct Finished {
        var staging: String
        var final: String
        var rows: Int
    }

    struct Open {
        var staging: String
        var folder: String
        var length: Int
        var rows: Int
        var openedAt: Int64
        var state: [UInt8]
    }

    var finished: [Finished] = []
    var open: [Open] = []

    init(decoding bytes: [UInt8]) throws(SluiceError) {
        var reader = TokenReader(bytes)
        for _ in 0 ..< (try reader.count()) {
            finished.append(Finished(staging: try reader.string(), final: try reader.string(), rows: Int(try reader.integer())))
        }
        for _ in 0 ..< (try reader.count()) {
            open.append(Open(
                staging: try reader.string(), folder: try reader.string(), length: Int(try reader.integer()), rows: Int(try reader.integer()),
                openedAt: Int64(bitPattern: try reader.integer()), state: try reader.bytes()))
        }
    }
}

/// Little-endian integers and length-prefixed byte strings, for sink tokens.
struct TokenWriter {
    private(set) var bytes: [UInt8] = []

    mutating func integer(_ value: UInt64) {
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func bytes(_ value: [UInt8]) {
        integer(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    mutating func string(_ value: String) {
        bytes(Array(value.utf8))
    }
}

/// Reads what ``TokenWriter`` wrote; a damaged token is an error, never a crash.
struct TokenReader {
    private let data: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) {
        data = bytes
    }

    mutating func integer() throws(SluiceError) -> UInt64 {
        guard data.count - offset >= 8 else { throw Self.damaged }
        var value: UInt64 = 0
        for index in 0 ..< 8 { value |= UInt64(data[offset + index]) << (8 * index) }
        offset += 8
        return value
    }

    /// A count of entries, each at least 8 bytes: bounded by what is left.
    mutating func count() throws(SluiceError) -> Int {
        let value = try integer()
        guard value <= UInt64((data.count - offset) / 8 + 1) else { throw Self.damaged }
        return Int(value)
    }

    mutating func bytes() throws(SluiceError) -> [UInt8] {
        let length = try integer()
        guard length <= UInt64(data.count - offset) else { throw Self.damaged }
        defer { offset += Int(length) }
        return Array(data[offset ..< offset + Int(length)])
    }

    mutating func string() throws(SluiceError) -> String {
        String(decoding: try bytes(), as: UTF8.self)
    }

    private static let damaged = SluiceError(.dataCorrupted, "a sink's prepared token is damaged")
}
