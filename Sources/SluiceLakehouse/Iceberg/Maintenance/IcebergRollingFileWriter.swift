import Foundation
import SluiceCore
import SluiceFormats

/// Writes rows of one partition as Parquet data files (ZSTD, the table's field ids), starting a
/// new file once the current one reaches the target size, and describes each finished file as
/// a manifest's `data_file` (metrics by field id, bounds of top-level columns).
///
/// Bytes go to storage as row groups complete, so memory holds about one row group. Not
/// thread-safe.
final class IcebergRollingFileWriter {
    private let fileIO: any FileIO
    private let directory: String
    private let schema: [ParquetColumnSchema]
    private let partition: [AvroValue]
    private let targetBytes: Int
    private let rowGroupBytes: Int
    private let runID: String
    private var current: (writer: ParquetWriter, output: any FileOutput, location: String)?
    private var fileNumber = 0
    /// The files finished so far.
    private(set) var files: [IcebergDataFile] = []

    /// - Parameters:
    ///   - directory: where the files go (no trailing `/`).
    ///   - runID: a unique text shared by the files of one compaction, for their names.
    init(fileIO: any FileIO, directory: String, schema: [ParquetColumnSchema], partition: [AvroValue], targetBytes: Int64,
         rowGroupBytes: Int64, runID: String) {
        self.fileIO = fileIO
        self.directory = directory
        self.schema = schema
        self.partition = partition
        self.targetBytes = Int(clamping: max(targetBytes, 1))
        self.rowGroupBytes = Int(clamping: max(1, min(rowGroupBytes, targetBytes)))
        self.runID = runID
    }

    deinit {
        abort()
    }

    /// Appends `chunk`, whose columns are the schema's.
    func write(_ chunk: Chunk) throws(SluiceError) {
        guard chunk.count > 0 else { return }
        if current == nil { try open() }
        guard let file = current else { return }
        do throws(SluiceError) {
            try file.writer.write(chunk)
            let completed = file.writer.takeOutput()
            if !completed.isEmpty { try file.output.write(completed) }
        } catch {
            abort()
            throw error
        }
        if file.writer.writtenBytes >= targetBytes { try close() }
    }

    /// Finishes the open file; returns every file written.
    func finish() throws(SluiceError) -> [IcebergDataFile] {
        try close()
        return files
    }

    /// Drops the file being written (nothing of it becomes visible).
    func abort() {
        current?.output.abort()
        current = nil
    }

    private func open() throws(SluiceError) {
        fileNumber += 1
        let number = String(fileNumber)
        let name = "compacted-\(runID)-\(String(repeating: "0", count: max(0, 5 - number.count)))\(number).parquet"
        let location = "\(directory)/\(name)"
        let writer = try ParquetWriter(schema: schema, options: ParquetWriterOptions(compression: .zstd, rowGroupBytes: rowGroupBytes))
        current = (writer, try fileIO.output(location), location)
    }

    private func close() throws(SluiceError) {
        guard let file = current else { return }
        current = nil
        do throws(SluiceError) {
            try file.output.write(file.writer.takeOutput())
            let (tail, summary) = try file.writer.finish()
            try file.output.write(tail)
            let size = try file.output.close()
            files.append(IcebergDataFile(parquetFile: file.location, size: size, summary: summary, partition: partition))
        } catch {
            file.output.abort()
            throw error
        }
    }
}
