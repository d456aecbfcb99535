import SluiceCore
import SluiceFormats

/// Turns a file sink's rows into one file's bytes, in the encoding `ENCODE` names. The bytes
/// come out as they are ready, to be appended to the file in order.
///
/// At each checkpoint ``flush()`` completes what is buffered (a Parquet row group) and returns
/// a state from which ``init(_:columns:resuming:)`` goes on with the file after a crash, once
/// the file is cut back to the length it had then. CSV and JSON lines need no state: any
/// prefix of whole lines is a good file.
final class FileEncoder {
    private var parquet: ParquetWriter?
    private var text: RowTextEncoder?

    /// A file's first bytes come from the first ``write(_:)`` or ``flush()``; with `resuming`,
    /// the file already holds its start.
    init(_ encoding: FileSinkOptions.Encoding, columns: [(name: String, type: DataType)], resuming state: [UInt8]? = nil) throws(SluiceError) {
        switch encoding {
        case .parquet(let compression):
            let schema = columns.map { ParquetColumnSchema(name: $0.name, type: $0.type) }
            // A row group ends at each checkpoint anyway; the bound keeps many open files small.
            let options = ParquetWriterOptions(compression: compression, rowGroupBytes: 16 << 20)
            if let state {
                parquet = try ParquetWriter(schema: schema, options: options, resuming: state)
            } else {
                parquet = try ParquetWriter(schema: schema, options: options)
            }
        case .json:
            text = RowTextEncoder(kind: .json, columnNames: columns.map(\.name))
        case .csv(let options):
            text = RowTextEncoder(kind: .csv(options), columnNames: columns.map(\.name))
            if state == nil { pendingHeader = text?.header() ?? [] }
        }
    }

    /// The bytes it holds: a Parquet row group being built (text is handed over as written).
    var bufferedBytes: Int { parquet.map { $0.bufferedBytes + $0.untakenBytes } ?? 0 }

    /// CSV's header, written before the first rows of a new file.
    private var pendingHeader: [UInt8] = []

    /// Takes `chunk`'s rows; returns the bytes ready for the file.
    func write(_ chunk: Chunk) throws(SluiceError) -> [UInt8] {
        if let parquet {
            try parquet.write(chunk)
            return parquet.takeOutput()
        }
        // One buffer for every chunk's lines: a chunk's are larger than malloc keeps at hand,
        // and a new one each time would be mapped and zeroed anew. (The caller lets go of
        // what is returned before the next write, so the buffer is reused, not copied.)
        lines.removeAll(keepingCapacity: true)
        lines += pendingHeader
        pendingHeader = []
        text?.append(chunk, to: &lines)
        return lines
    }

    private var lines: [UInt8] = []

    /// Completes what is buffered: the bytes to append, and the state to resume from once they
    /// are in the file.
    func flush() -> (bytes: [UInt8], state: [UInt8]) {
        if let parquet {
            let state = parquet.flushRowGroup()
            return (parquet.takeOutput(), state)
        }
        let header = pendingHeader
        pendingHeader = []
        return (header, [])
    }

    /// The file's last bytes (Parquet's footer).
    func finish() throws(SluiceError) -> [UInt8] {
        if let parquet { return try parquet.finish().tail }
        let header = pendingHeader
        pendingHeader = []
        return header
    }
}
