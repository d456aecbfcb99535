import SluiceCore

/// Bind (`B`): makes a portal from a prepared statement, parameter values and result formats.
package struct PGBind: Sendable, Equatable {
    /// The portal name; empty for the unnamed portal.
    package var portalName: String
    package var statementName: String
    /// 0 codes: all text; 1 code: for all parameters; otherwise one per parameter.
    package var parameterFormats: [PGFormat]
    /// Raw parameter values; nil is SQL NULL (length -1).
    package var parameters: [[UInt8]?]
    /// 0 codes: all text; 1 code: for all columns; otherwise one per result column.
    package var resultFormats: [PGFormat]

    package init(
        portalName: String, statementName: String, parameterFormats: [PGFormat] = [],
        parameters: [[UInt8]?] = [], resultFormats: [PGFormat] = []
    ) {
        self.portalName = portalName
        self.statementName = statementName
        self.parameterFormats = parameterFormats
        self.parameters = parameters
        self.resultFormats = resultFormats
    }

    init(from body: inout PGMessageBody) throws(SluiceError) {
        portalName = try body.readCString()
        statementName = try body.readCString()
        parameterFormats = []
        for _ in 0 ..< (try body.readCount()) {
            parameterFormats.append(try PGFormat(code: try body.readInt16(), body: body))
        }
        let parameterCount = try body.readCount()
        // Postgres: "bind message has %d parameter formats but %d parameters"
        if parameterFormats.count > 1, parameterFormats.count != parameterCount {
            throw SluiceError(
                .protocolViolation,
                "bind message has \(parameterFormats.count) parameter formats but \(parameterCount) parameters"
            )
        }
        parameters = []
        for _ in 0 ..< parameterCount {
            let length = try body.readInt32()
            switch length {
            case -1: parameters.append(nil)
            case ..<(-1): throw body.invalid("invalid parameter length \(length)")
            default: parameters.append(try body.readBytes(Int(length)))
            }
        }
        resultFormats = []
        for _ in 0 ..< (try body.readCount()) {
            resultFormats.append(try PGFormat(code: try body.readInt16(), body: body))
        }
    }
}
