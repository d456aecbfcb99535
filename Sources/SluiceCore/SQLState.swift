/// A Postgres SQLSTATE: five characters naming an error class and condition.
///
/// Names follow the PostgreSQL manual's appendix "PostgreSQL Error Codes".
package struct SQLState: Hashable, Sendable, CustomStringConvertible {
    /// The five-character code, such as `42P01`.
    package let code: String

    package init(_ code: String) {
        precondition(code.utf8.count == 5, "a SQLSTATE has five characters")
        self.code = code
    }

    package var description: String { code }

    /// The corresponding SQLSTATE is `00000`.
    package static let successfulCompletion = SQLState("00000")
    /// The corresponding SQLSTATE is `01000`.
    package static let warning = SQLState("01000")
    /// The corresponding SQLSTATE is `08P01`.
    package static let protocolViolation = SQLState("08P01")
    /// The corresponding SQLSTATE is `0A000`.
    package static let featureNotSupported = SQLState("0A000")
    /// The corresponding SQLSTATE is `21000`.
    package static let cardinalityViolation = SQLState("21000")
    /// The corresponding SQLSTATE is `22P04`.
    package static let badCopyFileFormat = SQLState("22P04")
    /// The corresponding SQLSTATE is `22000`.
    package static let dataException = SQLState("22000")
    /// The corresponding SQLSTATE is `22004`.
    package static let nullValueNotAllowed = SQLState("22004")
    /// The corresponding SQLSTATE is `22001`.
    package static let stringDataRightTruncation = SQLState("22001")
    /// The corresponding SQLSTATE is `22003`.
    package static let numericValueOutOfRange = SQLState("22003")
    /// The corresponding SQLSTATE is `22007`.
    package static let invalidDatetimeFormat = SQLState("22007")
    /// The corresponding SQLSTATE is `22008`.
    package static let datetimeFieldOverflow = SQLState("22008")
    /// The corresponding SQLSTATE is `22012`.
    package static let divisionByZero = SQLState("22012")
    /// The corresponding SQLSTATE is `22023`.
    package static let invalidParameterValue = SQLState("22023")
    /// The corresponding SQLSTATE is `22013`.
    package static let invalidPrecedingOrFollowingSize = SQLState("22013")
    /// The corresponding SQLSTATE is `22P02`.
    package static let invalidTextRepresentation = SQLState("22P02")
    /// The corresponding SQLSTATE is `2201B`.
    package static let invalidRegularExpression = SQLState("2201B")
    /// The corresponding SQLSTATE is `22021`.
    package static let characterNotInRepertoire = SQLState("22021")
    /// The corresponding SQLSTATE is `22P05`.
    package static let untranslatableCharacter = SQLState("22P05")
    /// The corresponding SQLSTATE is `22032`.
    package static let invalidJSONText = SQLState("22032")
    /// The corresponding SQLSTATE is `23502`.
    package static let notNullViolation = SQLState("23502")
    /// The corresponding SQLSTATE is `23505`.
    package static let uniqueViolation = SQLState("23505")
    /// The corresponding SQLSTATE is `25P01`.
    package static let noActiveSQLTransaction = SQLState("25P01")
    /// The corresponding SQLSTATE is `26000`.
    package static let invalidSQLStatementName = SQLState("26000")
    /// The corresponding SQLSTATE is `28000`.
    package static let invalidAuthorizationSpecification = SQLState("28000")
    /// The corresponding SQLSTATE is `28P01`.
    package static let invalidPassword = SQLState("28P01")
    /// The corresponding SQLSTATE is `2BP01`.
    package static let dependentObjectsStillExist = SQLState("2BP01")
    /// The corresponding SQLSTATE is `34000`.
    package static let invalidCursorName = SQLState("34000")
    /// The corresponding SQLSTATE is `3D000`.
    package static let invalidCatalogName = SQLState("3D000")
    /// The corresponding SQLSTATE is `3F000`.
    package static let invalidSchemaName = SQLState("3F000")
    /// The corresponding SQLSTATE is `42000`.
    package static let syntaxErrorOrAccessRuleViolation = SQLState("42000")
    /// The corresponding SQLSTATE is `42601`.
    package static let syntaxError = SQLState("42601")
    /// The corresponding SQLSTATE is `42602`.
    package static let invalidName = SQLState("42602")
    /// The corresponding SQLSTATE is `42622`.
    package static let nameTooLong = SQLState("42622")
    /// The corresponding SQLSTATE is `42702`.
    package static let ambiguousColumn = SQLState("42702")
    /// The corresponding SQLSTATE is `42703`.
    package static let undefinedColumn = SQLState("42703")
    /// The corresponding SQLSTATE is `42501`.
    package static let insufficientPrivilege = SQLState("42501")
    /// The corresponding SQLSTATE is `42704`.
    package static let undefinedObject = SQLState("42704")
    /// The corresponding SQLSTATE is `42710`.
    package static let duplicateObject = SQLState("42710")
    /// The corresponding SQLSTATE is `42701`.
    package static let duplicateColumn = SQLState("42701")
    /// The corresponding SQLSTATE is `42712`.
    package static let duplicateAlias = SQLState("42712")
    /// The corresponding SQLSTATE is `42803`.
    package static let groupingError = SQLState("42803")
    /// The corresponding SQLSTATE is `42804`.
    package static let datatypeMismatch = SQLState("42804")
    /// The corresponding SQLSTATE is `42809`.
    package static let wrongObjectType = SQLState("42809")
    /// The corresponding SQLSTATE is `42846`.
    package static let cannotCoerce = SQLState("42846")
    /// The corresponding SQLSTATE is `42883`.
    package static let undefinedFunction = SQLState("42883")
    /// The corresponding SQLSTATE is `42723`.
    package static let duplicateFunction = SQLState("42723")
    /// The corresponding SQLSTATE is `42725`.
    package static let ambiguousFunction = SQLState("42725")
    /// The corresponding SQLSTATE is `42P13`.
    package static let invalidFunctionDefinition = SQLState("42P13")
    /// The corresponding SQLSTATE is `42P01`.
    package static let undefinedTable = SQLState("42P01")
    /// The corresponding SQLSTATE is `42P02`.
    package static let undefinedParameter = SQLState("42P02")
    /// The corresponding SQLSTATE is `42P06`.
    package static let duplicateSchema = SQLState("42P06")
    /// The corresponding SQLSTATE is `42P07`.
    package static let duplicateTable = SQLState("42P07")
    /// The corresponding SQLSTATE is `42P08`.
    package static let ambiguousParameter = SQLState("42P08")
    /// The corresponding SQLSTATE is `42P10`.
    package static let invalidColumnReference = SQLState("42P10")
    /// The corresponding SQLSTATE is `42P16`.
    package static let invalidTableDefinition = SQLState("42P16")
    /// The corresponding SQLSTATE is `55000`.
    package static let objectNotInPrerequisiteState = SQLState("55000")
    /// The corresponding SQLSTATE is `42P17`.
    package static let invalidObjectDefinition = SQLState("42P17")
    /// The corresponding SQLSTATE is `42P18`.
    package static let indeterminateDatatype = SQLState("42P18")
    /// The corresponding SQLSTATE is `42P20`.
    package static let windowingError = SQLState("42P20")
    /// The corresponding SQLSTATE is `53000`.
    package static let insufficientResources = SQLState("53000")
    /// The corresponding SQLSTATE is `54000`.
    package static let programLimitExceeded = SQLState("54000")
    /// The corresponding SQLSTATE is `54001`.
    package static let statementTooComplex = SQLState("54001")
    /// The corresponding SQLSTATE is `57014`.
    package static let queryCanceled = SQLState("57014")
    /// `53100`, disk_full: a write found no room on its disk.
    package static let diskFull = SQLState("53100")
    /// `53200`, out_of_memory: a query needed more memory than it may have.
    package static let outOfMemory = SQLState("53200")
    /// `XX001`, data_corrupted: a stored file failed its checksum.
    package static let dataCorrupted = SQLState("XX001")
    /// The corresponding SQLSTATE is `58030`.
    package static let ioError = SQLState("58030")
    /// The corresponding SQLSTATE is `XX000`.
    package static let internalError = SQLState("XX000")
    /// `HV00N`, fdw_unable_to_establish_connection: a connector cannot reach its outside system
    /// (a Kafka broker that does not answer).
    package static let unableToEstablishConnection = SQLState("HV00N")
    /// `HV00R`, fdw_table_not_found: what a connector names is not there (a missing topic).
    package static let externalTableNotFound = SQLState("HV00R")
}
