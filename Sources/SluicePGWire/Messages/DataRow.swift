import NIOCore
import SluiceCore

/// One DataRow (`D`): each field's bytes in its result format, nil for NULL.
package struct PGDataRow: Sendable, Equatable {
    package var fields: [[UInt8]?]

    package init(fields: [[UInt8]?]) {
        self.fields = fields
    }

    /// Row `rowIndex` of `chunk`, each column in the format the 0/1/n rule gives it; text
    /// `timestamptz` values in `zone`.
    package init(chunk: Chunk, rowIndex: Int, formats: [PGFormat], zone: TimeZoneRules = .utc) {
        fields = chunk.columns.enumerated().map { columnIndex, column in
            if column.isNull(rowIndex) { return nil }
            var bytes: [UInt8] = []
            switch PGFormat.format(at: columnIndex, of: formats) {
            case .text: column.appendText(at: rowIndex, to: &bytes, zone: zone)
            case .binary: column.appendBinary(at: rowIndex, to: &bytes)
            }
            return bytes
        }
    }

    func encode(into buffer: inout ByteBuffer) {
        buffer.writeInteger(Int16(truncatingIfNeeded: fields.count))
        for field in fields {
            if let field {
                buffer.writeInteger(Int32(field.count))
                buffer.writeBytes(field)
            } else {
                buffer.writeInteger(Int32(-1))
            }
        }
    }
}
