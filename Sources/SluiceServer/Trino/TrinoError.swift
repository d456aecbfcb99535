import SluiceCore

/// A failed statement as Trino's `error` object says it: `errorName` and `errorCode` from
/// Trino's `StandardErrorCode`, `errorType` (`USER_ERROR`, `INSUFFICIENT_RESOURCES`,
/// `INTERNAL_ERROR`), mapped from our SQLSTATE. The SQLSTATE itself goes along in
/// `failureInfo`'s message so nothing is lost.
struct TrinoError: Equatable, Sendable {
    var name: String
    var code: Int
    var type: String
    var message: String
    var sqlState: String

    init(name: String, code: Int, type: String = "USER_ERROR", message: String, sqlState: String) {
        self.name = name
        self.code = code
        self.type = type
        self.message = message
        self.sqlState = sqlState
    }

    /// Trino's error for one of ours.
    init(_ error: SluiceError) {
        let (name, code, type) = Self.classify(error.code)
        self.init(name: name, code: code, type: type, message: error.message, sqlState: error.code.description)
    }

    /// Trino's name, code and type for a SQLSTATE (the codes are `StandardErrorCode`'s).
    static func classify(_ state: SQLState) -> (name: String, code: Int, type: String) {
        switch state {
        case .syntaxError, .invalidName, .nameTooLong: ("SYNTAX_ERROR", 1, "USER_ERROR")
        case .undefinedTable: ("TABLE_NOT_FOUND", 46, "USER_ERROR")
        case .undefinedColumn: ("COLUMN_NOT_FOUND", 47, "USER_ERROR")
        case .invalidSchemaName: ("SCHEMA_NOT_FOUND", 36, "USER_ERROR")
        case .invalidCatalogName: ("CATALOG_NOT_FOUND", 44, "USER_ERROR")
        case .undefinedFunction: ("FUNCTION_NOT_FOUND", 6, "USER_ERROR")
        case .featureNotSupported: ("NOT_SUPPORTED", 13, "USER_ERROR")
        case .divisionByZero: ("DIVISION_BY_ZERO", 8, "USER_ERROR")
        case .ambiguousColumn: ("AMBIGUOUS_NAME", 57, "USER_ERROR")
        case .datatypeMismatch, .cannotCoerce: ("TYPE_MISMATCH", 58, "USER_ERROR")
        case .insufficientPrivilege: ("PERMISSION_DENIED", 4, "USER_ERROR")
        case .duplicateTable: ("TABLE_ALREADY_EXISTS", 55, "USER_ERROR")
        case .duplicateSchema: ("SCHEMA_ALREADY_EXISTS", 54, "USER_ERROR")
        case .invalidParameterValue: ("INVALID_FUNCTION_ARGUMENT", 7, "USER_ERROR")
        case .numericValueOutOfRange: ("NUMERIC_VALUE_OUT_OF_RANGE", 19, "USER_ERROR")
        case .queryCanceled: ("USER_CANCELED", 3, "USER_ERROR")
        case .groupingError: ("EXPRESSION_NOT_AGGREGATE", 25, "USER_ERROR")
        case .outOfMemory, .insufficientResources, .diskFull, .programLimitExceeded:
            ("EXCEEDED_LOCAL_MEMORY_LIMIT", 131_079, "INSUFFICIENT_RESOURCES")
        case .internalError, .dataCorrupted, .ioError: ("GENERIC_INTERNAL_ERROR", 65_536, "INTERNAL_ERROR")
        default: ("GENERIC_USER_ERROR", 0, "USER_ERROR")
        }
    }

    /// Writes the `error` object of a QueryResults.
    func write(to json: inout TrinoJSONWriter) {
        json.raw("{\"message\":")
        json.string(message)
        json.raw(",\"sqlState\":")
        json.string(sqlState)
        json.raw(",\"errorCode\":")
        json.integer(Int64(code))
        json.raw(",\"errorName\":")
        json.string(name)
        json.raw(",\"errorType\":")
        json.string(type)
        json.raw(",\"failureInfo\":{\"type\":\"io.trino.spi.TrinoException\",\"message\":")
        json.string(message)
        json.raw(",\"suppressed\":[],\"stack\":[]}}")
    }
}
