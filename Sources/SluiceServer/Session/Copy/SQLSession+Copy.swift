import SluiceBatch
import SluiceCore
import SluiceFormats
import SluicePGWire
import SluicePlanner
import SluiceSQL

extension SQLSession {
    /// `COPY table FROM STDIN`: a result that puts the connection in copy-in mode, with a
    /// loader that takes the data.
    func copyFrom(_ table: RelationDefinition, columns: [Int], options: [CopyOption]) throws(SluiceError) -> PGStatementResult {
        let format = try CopyFormat(options: options, columnNames: columns.map { table.columns[$0].name }, isFrom: true)
        var result = PGStatementResult(commandTag: "COPY 0")
        result.copyIn = CopyFromLoader(session: self, table: table, columns: columns, format: format)
        return result
    }

    /// `COPY … TO STDOUT`: a result whose stream gives the rows of `rows` as lines of text or
    /// CSV, a chunk's rows per call, as the client reads them.
    func copyTo(
        _ rows: ChunkStream, columns: [OutputColumn], options: [CopyOption], reader: SourceScanningReader
    ) throws(SluiceError) -> PGStatementResult {
        let format = try CopyFormat(options: options, columnNames: columns.map(\.name), isFrom: false)
        let output = CopyOutput(writer: CopyRowWriter(format: format, zone: zone), header: format.header == .present ? columns.map(\.name) : nil)
        var result = PGStatementResult(commandTag: "COPY 0")
        result.copyOut = PGCopyOutStream(
            columnCount: columns.count,
            source: { () throws(SluiceError) -> [[UInt8]]? in
                var lines: [[UInt8]] = []
                if let header = output.header {
                    output.header = nil
                    var line: [UInt8] = []
                    output.writer.appendHeader(header, to: &line)
                    lines.append(line)
                }
                guard let chunk = try rows.next() else {
                    if let failure = reader.failure { throw failure }
                    return lines.isEmpty ? nil : lines
                }
                lines.reserveCapacity(lines.count + chunk.count)
                for rowIndex in 0 ..< chunk.count {
                    var line: [UInt8] = []
                    output.writer.appendRow(rowIndex, of: chunk, to: &line)
                    lines.append(line)
                }
                output.rowCount += chunk.count
                return lines
            },
            commandTag: { "COPY \(output.rowCount)" })
        return result
    }
}

/// The progress of one COPY TO; used by one stream call at a time.
private final class CopyOutput {
    var writer: CopyRowWriter
    /// The header line's names while it is still to be written.
    var header: [String]?
    var rowCount = 0

    init(writer: CopyRowWriter, header: [String]?) {
        self.writer = writer
        self.header = header
    }
}
