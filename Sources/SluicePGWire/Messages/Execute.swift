import SluiceCore

/// Execute (`E`): runs a portal, returning at most `maxRows` rows (0 = no limit).
package struct PGExecute: Sendable, Equatable {
    package var portalName: String
    package var maxRows: Int32

    package init(portalName: String, maxRows: Int32 = 0) {
        self.portalName = portalName
        self.maxRows = maxRows
    }

    init(from body: inout PGMessageBody) throws(SluiceError) {
        portalName = try body.readCString()
        maxRows = try body.readInt32()
    }
}
