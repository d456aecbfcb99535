import SluiceCore

/// Parse (`P`): prepares a statement from SQL text, with optional parameter type OIDs (0 = unspecified).
package struct PGParse: Sendable, Equatable {
    /// The statement name; empty for the unnamed statement.
    package var statementName: String
    package var query: String
    package var parameterOIDs: [Int32]

    package init(statementName: String, query: String, parameterOIDs: [Int32] = []) {
        self.statementName = statementName
        self.query = query
        self.parameterOIDs = parameterOIDs
    }

    init(from body: inout PGMessageBody) throws(SluiceError) {
        statementName = try body.readCString()
        query = try body.readCString()
        let count = try body.readCount()
        parameterOIDs = []
        for _ in 0 ..< count {
            parameterOIDs.append(try body.readInt32())
        }
    }
}
