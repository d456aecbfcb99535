import SluiceCore

/// The catalog's errors as ``SluiceError``s with codes that say which Iceberg REST error they
/// are, so the store, the REST server and the REST client agree without a second error type.
///
/// | SQLSTATE | meaning | HTTP | REST `type` |
/// |---|---|---|---|
/// | `40001` | a requirement failed or a concurrent commit won | 409 | `CommitFailedException` |
/// | `3F000` | no such namespace | 404 | `NoSuchNamespaceException` |
/// | `42P01` | no such table | 404 | `NoSuchTableException` |
/// | `42P06` / `42P07` | namespace / table already exists | 409 | `AlreadyExistsException` |
/// | `2BP01` | namespace not empty | 409 | `NamespaceNotEmptyException` |
/// | `28000` | missing or invalid credentials | 401 | `NotAuthorizedException` |
/// | `42501` | not allowed | 403 | `ForbiddenException` |
/// | `0A000` | unsupported operation | 406 | `UnsupportedOperationException` |
/// | `22xxx`, `42601` | malformed request | 400 | `BadRequestException` |
/// | anything else | server failure | 500 | `ServiceFailureException` |
package enum IcebergCatalogError {
    /// `serialization_failure`: retry the commit on fresh metadata. The corresponding SQLSTATE is `40001`.
    package static let commitConflictCode = SQLState("40001")
    /// `insufficient_privilege`. The corresponding SQLSTATE is `42501`.
    package static let forbiddenCode = SQLState("42501")

    package static func commitConflict(_ message: String) -> SluiceError {
        SluiceError(commitConflictCode, "commit failed: \(message)")
    }

    package static func noSuchNamespace(_ namespace: [String]) -> SluiceError {
        SluiceError(.invalidSchemaName, "namespace does not exist: \(namespace.joined(separator: "."))")
    }

    package static func noSuchTable(_ namespace: [String], _ name: String) -> SluiceError {
        SluiceError(.undefinedTable, "table does not exist: \((namespace + [name]).joined(separator: "."))")
    }

    package static func namespaceExists(_ namespace: [String]) -> SluiceError {
        SluiceError(.duplicateSchema, "namespace already exists: \(namespace.joined(separator: "."))")
    }

    package static func tableExists(_ namespace: [String], _ name: String) -> SluiceError {
        SluiceError(.duplicateTable, "table already exists: \((namespace + [name]).joined(separator: "."))")
    }

    package static func namespaceNotEmpty(_ namespace: [String]) -> SluiceError {
        SluiceError(.dependentObjectsStillExist, "namespace is not empty: \(namespace.joined(separator: "."))")
    }

    package static func badRequest(_ message: String) -> SluiceError {
        SluiceError(.invalidParameterValue, message)
    }

    package static func notAuthorized(_ message: String) -> SluiceError {
        SluiceError(.invalidAuthorizationSpecification, message)
    }

    /// The HTTP status and REST error `type` for an error (see the table above).
    package static func httpStatus(for error: SluiceError) -> (status: Int, type: String) {
        switch error.code {
        case commitConflictCode: (409, "CommitFailedException")
        case .invalidSchemaName: (404, "NoSuchNamespaceException")
        case .undefinedTable: (404, "NoSuchTableException")
        case .undefinedObject: (404, "NotFoundException")
        case .duplicateSchema, .duplicateTable, .duplicateObject: (409, "AlreadyExistsException")
        case .dependentObjectsStillExist: (409, "NamespaceNotEmptyException")
        case .invalidAuthorizationSpecification, .invalidPassword: (401, "NotAuthorizedException")
        case forbiddenCode: (403, "ForbiddenException")
        case .featureNotSupported: (406, "UnsupportedOperationException")
        case .syntaxError, .invalidName, .datatypeMismatch, .undefinedColumn: (400, "BadRequestException")
        default:
            // Data exceptions (class 22) are malformed input.
            error.code.code.hasPrefix("22") ? (400, "BadRequestException") : (500, "ServiceFailureException")
        }
    }

    /// The error for an HTTP error response, from its status and REST `type`.
    package static func error(status: Int, type: String, message: String) -> SluiceError {
        switch (status, type) {
        case (409, "CommitFailedException"): SluiceError(commitConflictCode, message)
        case (404, "NoSuchNamespaceException"): SluiceError(.invalidSchemaName, message)
        case (404, "NoSuchTableException"): SluiceError(.undefinedTable, message)
        case (404, _): SluiceError(.undefinedObject, message)
        case (409, "NamespaceNotEmptyException"): SluiceError(.dependentObjectsStillExist, message)
        case (409, _): SluiceError(.duplicateObject, message)
        case (401, _), (419, _): SluiceError(.invalidAuthorizationSpecification, message)
        case (403, _): SluiceError(forbiddenCode, message)
        case (406, _), (501, _): SluiceError(.featureNotSupported, message)
        case (400, _), (422, _): SluiceError(.invalidParameterValue, message)
        default: SluiceError(.ioError, message)
        }
    }
}
