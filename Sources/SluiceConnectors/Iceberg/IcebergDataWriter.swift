import Foundation
import SluiceCore
import SluiceExpr
import SluiceFormats
import SluiceLakehouse

/// Writes a sink's rows as Parquet data files of an Iceberg table, one file (or more, past the
/// target size) per prepare: columns converted to the table's types, field ids from its schema,
/// bytes streamed to the file as row groups complete, so an epoch's rows are never all in memory.
///
/// Used by one thread at a time (the sink's fragment thread).
final class IcebergDataWriter {
    /// One sink column as the table has it.
    struct Column {
        var fieldID: Int32
        /// The table's type for it, as Sluice computes it.
        var type: DataType
    }

    let columns: [Column]
    let parquetSchema: [ParquetColumnSchema]
    let fileIO: any FileIO
    /// `<table location>/data`.
    let dataLocation: String
    let sinkID: String
    let targetFileBytes: Int
    let compression: ParquetCompression
    /// Set for an upsert sink's equality-delete files: the field ids of the key columns, which
    /// are then the only columns written.
    let equalityFieldIDs: [Int32]?
    /// The columns written, by index into ``columns`` (all of them, or an equality-delete
    /// file's key columns); rows are partitioned by all of them first.
    let written: [Int]
    /// A partitioned table's spec over ``columns``; nil when the table is unpartitioned.
    let partitioner: IcebergPartitioner?
    /// What its files' names end in before `.parquet` (`-deletes` for equality deletes).
    var kind: String
    /// The open file of each partition the epoch wrote (one, keyed `[]`, without a spec).
    private var open: [[AvroValue]: OpenFile] = [:]
    private var files: [IcebergDataFile] = []
    /// Past this many open files (one per partition), all are closed: a spec that scatters an
    /// epoch over many partitions costs more files, never unbounded buffers.
    private static let maxOpenFiles = 64

    private struct OpenFile {
        var writer: ParquetWriter
        var output: any FileOutput
        var location: String
        /// Rows written to it so far: the next row's position.
        var rowCount: Int64 = 0
    }
    private var fileNumber = 0
    private static let flushBytes = 8 << 20

    init(
        columns: [Column], parquetSchema: [ParquetColumnSchema], fileIO: any FileIO, tableLocation: String, sinkID: String,
        targetFileBytes: Int, compression: ParquetCompression = .zstd, equalityFieldIDs: [Int32]? = nil, written: [Int]? = nil,
        partitioner: IcebergPartitioner? = nil, kind: String? = nil
    ) {
        self.kind = kind ?? (equalityFieldIDs == nil ? "" : "-deletes")
        self.compression = compression
        self.equalityFieldIDs = equalityFieldIDs
        self.written = written ?? Array(columns.indices)
        self.partitioner = partitioner.flatMap { $0.isUnpartitioned ? nil : $0 }
        self.columns = columns
        self.parquetSchema = parquetSchema
        self.fileIO = fileIO
        var location = tableLocation
        while location.hasSuffix("/") { location.removeLast() }
        dataLocation = location + "/data"
        self.sinkID = sinkID
        self.targetFileBytes = targetFileBytes
    }

    /// Where rows went: `picks` (indexes into the chunk written, in order; nil for all of them)
    /// are the rows of `location` from `firstPosition` on.
    typealias Placement = (_ picks: [Int]?, _ location: String, _ firstPosition: Int64) -> Void

    /// Appends `chunk`'s rows (its columns in the sink's order), each to its partition's file,
    /// and tells `placed` where they went.
    func write(_ chunk: Chunk, epoch: UInt64, placed: Placement? = nil) throws(SluiceError) {
        guard chunk.count > 0 else { return }
        var converted: [SluiceCore.Column] = []
        converted.reserveCapacity(columns.count)
        for (index, column) in columns.enumerated() {
            converted.append(try Self.convert(chunk.columns[index], to: column.type))
        }
        let rows = Chunk(columns: converted, count: chunk.count)
        guard let partitioner else { return try write(rows, to: [], epoch: epoch, picks: nil, placed: placed) }
        for (partition, picks) in try partitioner.split(rows) {
            let whole = picks.count == rows.count
            try write(whole ? rows : rows.gather(picks), to: partition, epoch: epoch, picks: whole ? nil : picks, placed: placed)
        }
    }

    private func write(_ rows: Chunk, to partition: [AvroValue], epoch: UInt64, picks: [Int]?, placed: Placement?) throws(SluiceError) {
        if open[partition] == nil {
            if open.count >= Self.maxOpenFiles { try closeAll() }
            open[partition] = try self.open(partition, epoch: epoch)
        }
        guard let file = open[partition] else { return }
        let projected = written.count == rows.columns.count ? rows : Chunk(columns: written.map { rows.columns[$0] }, count: rows.count)
        try file.writer.write(projected)
        placed?(picks, file.location, file.rowCount)
        open[partition]?.rowCount += Int64(rows.count)
        if file.writer.bufferedBytes >= Self.flushBytes { try file.output.write(file.writer.takeOutput()) }
        if file.writer.writtenBytes >= targetFileBytes { try close(partition) }
    }

    /// About the bytes the open files hold in memory: the row groups being built and those
    /// built and not yet written out.
    var bufferedBytes: Int {
        open.values.reduce(0) { $0 + $1.writer.bufferedBytes + $1.writer.untakenBytes }
    }

    /// Closes the open files and returns every file written since the last call.
    func finish() throws(SluiceError) -> [IcebergDataFile] {
        try closeAll()
        defer { files = [] }
        return files
    }

    /// Drops the open files (after a failure): their rows are taken again after recovery.
    func abandon() {
        for file in open.values { file.output.abort() }
        open = [:]
    }

    /// A new file's location in `partition`'s folder: named by the epoch, the sink and a
    /// number, with `kind` (`-deletes`, …) before the extension.
    func newLocation(_ partition: [AvroValue], epoch: UInt64, kind: String) -> String {
        fileNumber += 1
        let name = "\(String(format: "%020llu", epoch))-\(sinkID.prefix(8))-\(fileNumber)-\(UUID().uuidString.lowercased().prefix(8))\(kind).parquet"
        let directory = partitioner.map { "\(dataLocation)/\($0.partitionPath(partition))" } ?? dataLocation
        return "\(directory)/\(name)"
    }

    /// `chunk`'s rows (its columns in the sink's order) by partition: each partition's values
    /// and its rows' indexes.
    func partitions(of chunk: Chunk) throws(SluiceError) -> [(partition: [AvroValue], picks: [Int])] {
        guard let partitioner else { return [([], Array(0 ..< chunk.count))] }
        var converted: [SluiceCore.Column] = []
        for (index, column) in columns.enumerated() { converted.append(try Self.convert(chunk.columns[index], to: column.type)) }
        return try partitioner.split(Chunk(columns: converted, count: chunk.count)).map { ($0.partition, $0.rows) }
    }

    private func open(_ partition: [AvroValue], epoch: UInt64) throws(SluiceError) -> OpenFile {
        let location = newLocation(partition, epoch: epoch, kind: kind)
        let writer = try ParquetWriter(schema: parquetSchema, options: ParquetWriterOptions(compression: compression, rowGroupBytes: 32 << 20))
        return OpenFile(writer: writer, output: try fileIO.output(location), location: location)
    }

    private func closeAll() throws(SluiceError) {
        for partition in Array(open.keys) { try close(partition) }
    }

    private func close(_ partition: [AvroValue]) throws(SluiceError) {
        guard let file = open.removeValue(forKey: partition) else { return }
        do {
            try file.output.write(file.writer.takeOutput())
            let (tail, summary) = try file.writer.finish()
            try file.output.write(tail)
            let size = try file.output.close()
            var written = IcebergDataFile(parquetFile: file.location, size: size, summary: summary, partition: partition)
            if let equalityFieldIDs {
                written.content = .equalityDeletes
                written.equalityIDs = equalityFieldIDs
            }
            files.append(written)
        } catch {
            file.output.abort()
            throw error
        }
    }

    /// `column` as the table's `type`: the same values, widened where the table's type is wider
    /// (smallint into int, int into long, real into double) or relabelled (a numeric into the
    /// table's decimal, which the writer rounds to its scale; jsonb as string).
    static func convert(_ column: SluiceCore.Column, to type: DataType) throws(SluiceError) -> SluiceCore.Column {
        if column.type == type { return column }
        switch (column.type, type) {
        case (.decimal, .decimal), (.jsonb, .varchar), (.varchar, .jsonb):
            var relabelled = column
            relabelled.type = type
            return relabelled
        default:
            return try CastKernels.cast(column, to: type, context: EvaluationContext())
        }
    }
}
