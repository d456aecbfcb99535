import SluiceCore

/// One S3 request before signing: the bucket and key it addresses (the client places them in
/// the host or the path), query parameters and headers unencoded, and the payload.
package struct S3Request: Sendable {
    package var method: String
    package var bucket: String?
    package var key: String?
    package var query: [(name: String, value: String)]
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]
    /// The signing service: `s3`, or another (`iam`) for tests that talk to a mock server.
    package var service: String

    package init(method: String, bucket: String?, key: String? = nil, query: [(name: String, value: String)] = [],
                 headers: [(name: String, value: String)] = [], body: [UInt8] = [], service: String = "s3") {
        self.method = method
        self.bucket = bucket
        self.key = key
        self.query = query
        self.headers = headers
        self.body = body
        self.service = service
    }
}

/// What S3 answered: the status, the headers the operations read, and the body.
package struct S3Response: Sendable {
    package var status: Int
    package var eTag: String?
    package var contentLength: Int?
    package var body: [UInt8]
    /// The operation and location, for error messages.
    package var operation: String
    package var location: String

    package init(status: Int, eTag: String?, contentLength: Int?, body: [UInt8], operation: String, location: String) {
        self.status = status
        self.eTag = eTag
        self.contentLength = contentLength
        self.body = body
        self.operation = operation
        self.location = location
    }

    package var isSuccess: Bool { (200 ..< 300).contains(status) }

    /// The S3 error code of a failed answer: from its XML body, else from its status (HEAD
    /// answers have no body).
    package var errorCode: String {
        if let document = S3ErrorDocument.parse(body) { return document.code }
        switch status {
        case 403: return "AccessDenied"
        case 404: return "NotFound"
        default: return "HTTP\(status)"
        }
    }

    /// The error for a failed answer: denied credentials `28000` naming the cause, a missing
    /// object or bucket `58P01`, anything else `58030`; each message names the operation, the
    /// location and S3's code.
    package func failure() -> SluiceError {
        let document = S3ErrorDocument.parse(body)
        let code = errorCode
        let detail = document?.message.map { "S3 says: \($0)" }
        switch code {
        case "InvalidAccessKeyId", "InvalidClientTokenId":
            return SluiceError(.invalidAuthorizationSpecification, "S3 rejected the access key for \(operation) on \(location): \(code)",
                               detail: detail, hint: "Check the access key ID (AWS_ACCESS_KEY_ID).")
        case "SignatureDoesNotMatch":
            return SluiceError(.invalidAuthorizationSpecification, "S3 rejected the request signature for \(operation) on \(location): \(code)",
                               detail: detail, hint: "Check the secret access key (AWS_SECRET_ACCESS_KEY) and the region.")
        case "InvalidToken", "ExpiredToken", "TokenRefreshRequired":
            return SluiceError(.invalidAuthorizationSpecification, "S3 rejected the session token for \(operation) on \(location): \(code)",
                               detail: detail, hint: "Renew the temporary credentials (AWS_SESSION_TOKEN).")
        case "AccessDenied", "AllAccessDisabled", "AccountProblem":
            return SluiceError(.invalidAuthorizationSpecification, "S3 denied \(operation) on \(location): \(code)",
                               detail: detail, hint: "The credentials lack permission for this operation.")
        case "NoSuchKey", "NoSuchBucket", "NoSuchUpload", "NotFound":
            let what = code == "NoSuchBucket" ? "bucket" : code == "NoSuchUpload" ? "multipart upload" : "object"
            return SluiceError(FileIOErrorCode.undefinedFile, "S3 \(what) for \(operation) on \(location) does not exist: \(code)", detail: detail)
        default:
            return SluiceError(.ioError, "S3 \(operation) on \(location) failed: \(code) (HTTP status \(status))", detail: detail)
        }
    }
}
