import SluiceCore

/// An S3 operation as a value: the request, and how to read the answer (or its failure) into
/// the result. ``S3Client/run(_:)`` and ``S3Client/runBlocking(_:)`` execute it.
package struct S3Operation<Result>: Sendable {
    /// The S3 API action, for error messages (`GetObject`).
    package var name: String
    /// The `s3://bucket/key` it acts on, for error messages.
    package var location: String
    package var request: S3Request
    package var interpret: @Sendable (S3Response) throws(SluiceError) -> Result

    package init(name: String, location: String, request: S3Request, interpret: @escaping @Sendable (S3Response) throws(SluiceError) -> Result) {
        self.name = name
        self.location = location
        self.request = request
        self.interpret = interpret
    }
}

/// What HeadObject tells of an object.
package struct S3ObjectInfo: Sendable, Hashable {
    package var size: Int
    package var eTag: String?

    package init(size: Int, eTag: String?) {
        self.size = size
        self.eTag = eTag
    }
}

// S3 API reference, "Actions": each builder below follows its action's request syntax.
extension S3Operation {
    private static func location(_ bucket: String, _ key: String? = nil) -> String {
        "s3://\(bucket)/\(key ?? "")"
    }

    /// Fails unless the answer is a success.
    private static func requireSuccess(_ response: S3Response) throws(SluiceError) {
        guard response.isSuccess else { throw response.failure() }
    }
}

extension S3Operation where Result == Void {
    package static func putObject(bucket: String, key: String, bytes: [UInt8]) -> Self {
        S3Operation(name: "PutObject", location: location(bucket, key), request: S3Request(method: "PUT", bucket: bucket, key: key, body: bytes)) {
            (response) throws(SluiceError) in try requireSuccess(response)
        }
    }

    /// Deleting a missing object succeeds, as S3 answers it.
    package static func deleteObject(bucket: String, key: String) -> Self {
        S3Operation(name: "DeleteObject", location: location(bucket, key), request: S3Request(method: "DELETE", bucket: bucket, key: key)) {
            (response) throws(SluiceError) in
            if response.status == 404 && response.errorCode != "NoSuchBucket" { return }
            try requireSuccess(response)
        }
    }

    package static func completeMultipartUpload(bucket: String, key: String, uploadID: String, parts: [S3CompletedPart]) -> Self {
        let request = S3Request(method: "POST", bucket: bucket, key: key, query: [("uploadId", uploadID)],
                                body: S3MultipartResponses.completionBody(parts))
        return S3Operation(name: "CompleteMultipartUpload", location: location(bucket, key), request: request) { (response) throws(SluiceError) in
            try requireSuccess(response)
            // S3 may answer 200 and report the failure in the body.
            if S3ErrorDocument.parse(response.body) != nil { throw response.failure() }
        }
    }

    /// Aborting an upload that is already gone succeeds.
    package static func abortMultipartUpload(bucket: String, key: String, uploadID: String) -> Self {
        let request = S3Request(method: "DELETE", bucket: bucket, key: key, query: [("uploadId", uploadID)])
        return S3Operation(name: "AbortMultipartUpload", location: location(bucket, key), request: request) { (response) throws(SluiceError) in
            if response.status == 404 && response.errorCode == "NoSuchUpload" { return }
            try requireSuccess(response)
        }
    }

    /// Creates `bucket` in the client's region; a bucket this account already owns is no error.
    package static func createBucket(_ bucket: String, region: String) -> Self {
        // us-east-1 takes no location constraint; every other region needs one.
        let body = region == "us-east-1" ? [] : Array(
            "<CreateBucketConfiguration xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\"><LocationConstraint>\(S3MultipartResponses.escaped(region))</LocationConstraint></CreateBucketConfiguration>".utf8)
        return S3Operation(name: "CreateBucket", location: location(bucket), request: S3Request(method: "PUT", bucket: bucket, body: body)) {
            (response) throws(SluiceError) in
            if response.status == 409 && response.errorCode == "BucketAlreadyOwnedByYou" { return }
            try requireSuccess(response)
        }
    }
}

extension S3Operation where Result == [UInt8] {
    /// The object's bytes, or the bytes in `range` (which must not be empty); a range past the
    /// object's end is an error naming where it ends.
    package static func getObject(bucket: String, key: String, range: Range<Int>? = nil) -> Self {
        let headers: [(name: String, value: String)] = range.map { [("range", "bytes=\($0.lowerBound)-\($0.upperBound - 1)")] } ?? []
        let location = location(bucket, key)
        return S3Operation(name: "GetObject", location: location, request: S3Request(method: "GET", bucket: bucket, key: key, headers: headers)) {
            (response) throws(SluiceError) in
            try requireSuccess(response)
            if let range, response.body.count != range.count {
                // A server that ignores Range answers 200 with the whole object.
                if response.status == 200 && response.body.count >= range.upperBound { return Array(response.body[range]) }
                throw SluiceError(.ioError, "could not read bytes \(range.lowerBound)..<\(range.upperBound) of \(location): S3 returned \(response.body.count) bytes")
            }
            return response.body
        }
    }
}

extension S3Operation where Result == S3ObjectInfo? {
    /// The object's size and ETag, or nil when it does not exist.
    package static func headObject(bucket: String, key: String) -> Self {
        S3Operation(name: "HeadObject", location: location(bucket, key), request: S3Request(method: "HEAD", bucket: bucket, key: key)) {
            (response) throws(SluiceError) in
            if response.status == 404 { return nil }
            try requireSuccess(response)
            guard let size = response.contentLength, size >= 0 else {
                throw SluiceError(.ioError, "S3 HeadObject on \(response.location) answered no Content-Length")
            }
            return S3ObjectInfo(size: size, eTag: response.eTag)
        }
    }
}

extension S3Operation where Result == Bool {
    /// Whether `bucket` exists (HeadBucket); denied access is an error, not false.
    package static func headBucket(_ bucket: String) -> Self {
        S3Operation(name: "HeadBucket", location: location(bucket), request: S3Request(method: "HEAD", bucket: bucket)) {
            (response) throws(SluiceError) in
            if response.status == 404 { return false }
            try requireSuccess(response)
            return true
        }
    }
}

extension S3Operation where Result == S3ListPage {
    /// One page of the keys under `prefix` (ListObjectsV2), at most `maxKeys` (S3 caps at 1000).
    package static func listObjectsV2(bucket: String, prefix: String, continuationToken: String? = nil, maxKeys: Int? = nil) -> Self {
        var query: [(name: String, value: String)] = [("list-type", "2"), ("prefix", prefix)]
        if let continuationToken { query.append(("continuation-token", continuationToken)) }
        if let maxKeys { query.append(("max-keys", String(maxKeys))) }
        return S3Operation(name: "ListObjectsV2", location: location(bucket, prefix), request: S3Request(method: "GET", bucket: bucket, query: query)) {
            (response) throws(SluiceError) in
            try requireSuccess(response)
            return try S3ListPage.parse(response.body)
        }
    }
}

extension S3Operation where Result == String {
    /// Starts a multipart upload; the result is its upload id.
    package static func createMultipartUpload(bucket: String, key: String) -> Self {
        let request = S3Request(method: "POST", bucket: bucket, key: key, query: [("uploads", "")])
        return S3Operation(name: "CreateMultipartUpload", location: location(bucket, key), request: request) { (response) throws(SluiceError) in
            try requireSuccess(response)
            return try S3MultipartResponses.uploadID(response.body)
        }
    }

    /// Uploads part `partNumber` (1 ... 10000); the result is its ETag.
    package static func uploadPart(bucket: String, key: String, uploadID: String, partNumber: Int, bytes: [UInt8]) -> Self {
        let request = S3Request(method: "PUT", bucket: bucket, key: key, query: [("partNumber", String(partNumber)), ("uploadId", uploadID)], body: bytes)
        return S3Operation(name: "UploadPart", location: location(bucket, key), request: request) { (response) throws(SluiceError) in
            try requireSuccess(response)
            guard let eTag = response.eTag, !eTag.isEmpty else {
                throw SluiceError(.ioError, "S3 UploadPart on \(response.location) answered no ETag for part \(partNumber)")
            }
            return eTag
        }
    }
}
