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
    private var current: (writer: ParquetWriter, output: any FileOutput, location: String)?
    private var files: [IcebergDataFile] = []
    private var fileNumber = 0
    private static let flushBytes = 8 << 20

    init(
        columns: [Column], parquetSchema: [ParquetColumnSchema], fileIO: any FileIO, tableLocation: String, sinkID: String,
        targetFileBytes: Int, compression: ParquetCompression = .zstd, equalityFieldIDs: [Int32]? = nil
    ) {
        self.compression = compression
        self.equalityFieldIDs = equalityFieldIDs
        self.columns = columns
        self.parquetSchema = parquetSchema
        self.fileIO = fileIO
        var location = tableLocation
        while location.hasSuffix("/") { location.removeLast() }
        dataLocation = location + "/data"
        self.sinkID = sinkID
        self.targetFileBytes = targetFileBytes
    }

    /// Rows taken since the last ``finish(epoch:)``.
    private(set) var rowsTaken = 0

    /// Appends `chunk`'s rows (its columns in the sink's order).
    func write(_ chunk: Chunk, epoch: UInt64) throws(SluiceError) {
        guard chunk.count > 0 else { return }
        var converted: [SluiceCore.Column] = []
        converted.reserveCapacity(columns.count)
        for (index, column) in columns.enumerated() {
            converted.append(try Self.convert(chunk.columns[index], to: column.type))
        }
        if current == nil { try open(epoch: epoch) }
        guard let file = current else { return }
        try file.writer.write(Chunk(columns: converted, count: chunk.count))
        rowsTaken += chunk.count
        if file.writer.bufferedBytes >= Self.flushBytes { try file.output.write(file.writer.takeOutput()) }
        if file.writer.writtenBytes >= targetFileBytes { try close() }
    }

    /// Closes the open file and returns every file written since the last call.
    func finish() throws(SluiceError) -> [IcebergDataFile] {
        try close()
        defer {
            files = []
            rowsTaken = 0
        }
        return files
    }

    /// Drops the open file (after a failure): its rows are taken again after recovery.
    func abandon() {
        current?.output.abort()
        current = nil
    }

    private func open(epoch: UInt64) throws(SluiceError) {
        fileNumber += 1
        let kind = equalityFieldIDs == nil ? "" : "-deletes"
        let name = "\(String(format: "%020llu", epoch))-\(sinkID.prefix(8))-\(fileNumber)-\(UUID().uuidString.lowercased().prefix(8))\(kind).parquet"
        let location = "\(dataLocation)/\(name)"
        let writer = try ParquetWriter(schema: parquetSchema, options: ParquetWriterOptions(compression: compression, rowGroupBytes: 32 << 20))
        current = (writer, try fileIO.output(location), location)
    }

    private func close() throws(SluiceError) {
        guard let file = current else { return }
        current = nil
        do {
            try file.output.write(file.writer.takeOutput())
            let (tail, summary) = try file.writer.finish()
            try file.output.write(tail)
            let size = try file.output.close()
            var written = IcebergDataFile(parquetFile: file.location, size: size, summary: summary)
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
