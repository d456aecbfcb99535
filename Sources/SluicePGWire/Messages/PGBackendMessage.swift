import NIOCore
import SluiceCore

/// A message to the client (Postgres protocol 3.0, "Message Formats").
package enum PGBackendMessage: Sendable, Equatable {
    /// The single `N` byte that refuses SSLRequest or GSSENCRequest; not a framed message.
    case encryptionRefused
    /// The single `S` byte that accepts SSLRequest: TLS starts next.
    case encryptionAccepted
    /// `R`
    case authentication(PGAuthenticationRequest)
    /// `S`
    case parameterStatus(name: String, value: String)
    /// `K`
    case backendKeyData(processID: Int32, secretKey: Int32)
    /// `v`: the newest minor version supported and the `_pq_.` options not recognized.
    case negotiateProtocolVersion(newestMinorVersion: Int32, unrecognizedOptions: [String])
    /// `Z`
    case readyForQuery(PGTransactionStatus)
    /// `T`
    case rowDescription([PGRowDescriptionField])
    /// `D`
    case dataRow(PGDataRow)
    /// `C`
    case commandComplete(String)
    /// `I`
    case emptyQueryResponse
    /// `E`
    case errorResponse(PGErrorFields)
    /// `N`
    case noticeResponse(PGErrorFields)
    /// `1`
    case parseComplete
    /// `2`
    case bindComplete
    /// `3`
    case closeComplete
    /// `n`
    case noData
    /// `t`: the type OID of each parameter.
    case parameterDescription([Int32])
    /// `s`
    case portalSuspended
    /// `G`: the server takes COPY data in text form for `columnCount` columns.
    case copyInResponse(columnCount: Int)
    /// `H`: COPY data in text form for `columnCount` columns follows.
    case copyOutResponse(columnCount: Int)
    /// `d`: one row of COPY output.
    case copyData([UInt8])
    /// `c`: the end of COPY output.
    case copyDone

    /// Appends the wire form of this message.
    package func encode(into buffer: inout ByteBuffer) {
        switch self {
        case .encryptionRefused:
            buffer.writeInteger(UInt8(ascii: "N"))
        case .encryptionAccepted:
            buffer.writeInteger(UInt8(ascii: "S"))
        case .authentication(let request):
            buffer.writePGMessage(UInt8(ascii: "R")) { request.encode(into: &$0) }
        case .parameterStatus(let name, let value):
            buffer.writePGMessage(UInt8(ascii: "S")) {
                $0.writeCString(name)
                $0.writeCString(value)
            }
        case .backendKeyData(let processID, let secretKey):
            buffer.writePGMessage(UInt8(ascii: "K")) {
                $0.writeInteger(processID)
                $0.writeInteger(secretKey)
            }
        case .negotiateProtocolVersion(let minor, let options):
            buffer.writePGMessage(UInt8(ascii: "v")) {
                $0.writeInteger(minor)
                $0.writeInteger(Int32(options.count))
                for option in options { $0.writeCString(option) }
            }
        case .readyForQuery(let status):
            buffer.writePGMessage(UInt8(ascii: "Z")) { $0.writeInteger(status.rawValue) }
        case .rowDescription(let fields):
            buffer.writePGMessage(UInt8(ascii: "T")) { PGRowDescriptionField.encode(fields, into: &$0) }
        case .dataRow(let row):
            buffer.writePGMessage(UInt8(ascii: "D")) { row.encode(into: &$0) }
        case .commandComplete(let tag):
            buffer.writePGMessage(UInt8(ascii: "C")) { $0.writeCString(tag) }
        case .emptyQueryResponse:
            buffer.writePGMessage(UInt8(ascii: "I")) { _ in }
        case .errorResponse(let fields):
            buffer.writePGMessage(UInt8(ascii: "E")) { fields.encode(into: &$0) }
        case .noticeResponse(let fields):
            buffer.writePGMessage(UInt8(ascii: "N")) { fields.encode(into: &$0) }
        case .parseComplete:
            buffer.writePGMessage(UInt8(ascii: "1")) { _ in }
        case .bindComplete:
            buffer.writePGMessage(UInt8(ascii: "2")) { _ in }
        case .closeComplete:
            buffer.writePGMessage(UInt8(ascii: "3")) { _ in }
        case .noData:
            buffer.writePGMessage(UInt8(ascii: "n")) { _ in }
        case .parameterDescription(let oids):
            buffer.writePGMessage(UInt8(ascii: "t")) {
                $0.writeInteger(Int16(truncatingIfNeeded: oids.count))
                for oid in oids { $0.writeInteger(oid) }
            }
        case .portalSuspended:
            buffer.writePGMessage(UInt8(ascii: "s")) { _ in }
        case .copyInResponse(let columnCount):
            buffer.writePGMessage(UInt8(ascii: "G")) { Self.encodeCopyResponse(columnCount: columnCount, into: &$0) }
        case .copyOutResponse(let columnCount):
            buffer.writePGMessage(UInt8(ascii: "H")) { Self.encodeCopyResponse(columnCount: columnCount, into: &$0) }
        case .copyData(let bytes):
            buffer.writePGMessage(UInt8(ascii: "d")) { $0.writeBytes(bytes) }
        case .copyDone:
            buffer.writePGMessage(UInt8(ascii: "c")) { _ in }
        }
    }

    /// CopyInResponse and CopyOutResponse: the overall format (0, text), then one format code
    /// (0) per column.
    private static func encodeCopyResponse(columnCount: Int, into buffer: inout ByteBuffer) {
        buffer.writeInteger(Int8(0))
        buffer.writeInteger(Int16(truncatingIfNeeded: columnCount))
        for _ in 0 ..< columnCount { buffer.writeInteger(Int16(0)) }
    }
}
