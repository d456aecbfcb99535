import NIOCore
import SluiceCore

/// One field of RowDescription (`T`).
package struct PGRowDescriptionField: Sendable, Equatable {
    package var name: String
    package var tableOID: Int32
    package var columnNumber: Int16
    package var typeOID: Int32
    /// `typlen`: the width in bytes, -1 for variable width.
    package var typeLength: Int16
    package var typeModifier: Int32
    package var format: PGFormat

    package init(
        name: String, tableOID: Int32 = 0, columnNumber: Int16 = 0, typeOID: Int32,
        typeLength: Int16, typeModifier: Int32 = -1, format: PGFormat = .text
    ) {
        self.name = name
        self.tableOID = tableOID
        self.columnNumber = columnNumber
        self.typeOID = typeOID
        self.typeLength = typeLength
        self.typeModifier = typeModifier
        self.format = format
    }

    /// The field describing `column` sent in `format`.
    package init(_ column: PGColumn, format: PGFormat) {
        self.init(
            name: column.name, tableOID: column.tableOID, columnNumber: column.columnNumber,
            typeOID: column.typeOID ?? column.type.oid, typeLength: column.typeOID == nil ? column.type.typeLength : -1,
            typeModifier: column.typeModifier, format: format
        )
    }

    /// The fields describing `columns`, with formats chosen by the 0/1/n rule.
    package static func fields(for columns: [PGColumn], formats: [PGFormat]) -> [PGRowDescriptionField] {
        columns.enumerated().map { index, column in
            PGRowDescriptionField(column, format: PGFormat.format(at: index, of: formats))
        }
    }

    static func encode(_ fields: [PGRowDescriptionField], into buffer: inout ByteBuffer) {
        buffer.writeInteger(Int16(truncatingIfNeeded: fields.count))
        for field in fields {
            buffer.writeCString(field.name)
            buffer.writeInteger(field.tableOID)
            buffer.writeInteger(field.columnNumber)
            buffer.writeInteger(field.typeOID)
            buffer.writeInteger(field.typeLength)
            buffer.writeInteger(field.typeModifier)
            buffer.writeInteger(field.format.rawValue)
        }
    }
}
