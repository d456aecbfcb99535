import SluiceCore
import SluiceLakehouse

/// The operations as async methods, for callers that are async themselves.
extension S3Client {
    package func putObject(bucket: String, key: String, bytes: [UInt8]) async throws(SluiceError) {
        try await run(.putObject(bucket: bucket, key: key, bytes: bytes))
    }

    /// The object's bytes, or those in `range`; an empty range reads nothing.
    package func getObject(bucket: String, key: String, range: Range<Int>? = nil) async throws(SluiceError) -> [UInt8] {
        if let range, range.isEmpty { return [] }
        return try await run(.getObject(bucket: bucket, key: key, range: range))
    }

    package func headObject(bucket: String, key: String) async throws(SluiceError) -> S3ObjectInfo? {
        try await run(.headObject(bucket: bucket, key: key))
    }

    package func deleteObject(bucket: String, key: String) async throws(SluiceError) {
        try await run(.deleteObject(bucket: bucket, key: key))
    }

    package func listObjectsV2(bucket: String, prefix: String, continuationToken: String? = nil, maxKeys: Int? = nil) async throws(SluiceError) -> S3ListPage {
        try await run(.listObjectsV2(bucket: bucket, prefix: prefix, continuationToken: continuationToken, maxKeys: maxKeys))
    }

    /// Every object under `prefix`, following continuation tokens, in key order.
    package func listObjects(bucket: String, prefix: String, pageSize: Int? = nil) async throws(SluiceError) -> [S3ObjectSummary] {
        var objects: [S3ObjectSummary] = []
        var token: String?
        repeat {
            let page = try await listObjectsV2(bucket: bucket, prefix: prefix, continuationToken: token, maxKeys: pageSize)
            objects += page.objects
            token = page.nextContinuationToken
        } while token != nil
        return objects
    }

    package func createMultipartUpload(bucket: String, key: String) async throws(SluiceError) -> String {
        try await run(.createMultipartUpload(bucket: bucket, key: key))
    }

    package func uploadPart(bucket: String, key: String, uploadID: String, partNumber: Int, bytes: [UInt8]) async throws(SluiceError) -> String {
        try await run(.uploadPart(bucket: bucket, key: key, uploadID: uploadID, partNumber: partNumber, bytes: bytes))
    }

    package func completeMultipartUpload(bucket: String, key: String, uploadID: String, parts: [S3CompletedPart]) async throws(SluiceError) {
        try await run(.completeMultipartUpload(bucket: bucket, key: key, uploadID: uploadID, parts: parts))
    }

    package func abortMultipartUpload(bucket: String, key: String, uploadID: String) async throws(SluiceError) {
        try await run(.abortMultipartUpload(bucket: bucket, key: key, uploadID: uploadID))
    }

    /// Creates `bucket` in the configured region; one this account owns already is no error.
    package func createBucket(_ bucket: String) async throws(SluiceError) {
        try await run(.createBucket(bucket, region: config.region))
    }

    /// Whether `bucket` exists (HeadBucket).
    package func bucketExists(_ bucket: String) async throws(SluiceError) -> Bool {
        try await run(.headBucket(bucket))
    }
}
