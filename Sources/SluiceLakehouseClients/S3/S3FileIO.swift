import SluiceCore
import SluiceLakehouse

/// ``FileIO`` over S3 (`s3://bucket/key`, `s3a://bucket/key`), blocking the calling thread on
/// an ``S3Client``'s requests. Call ``shutdown()`` when done with it.
///
/// A write is one PutObject, or a multipart upload when it is larger than the part size, so a
/// reader sees the old object or the whole new one. Listing follows continuation tokens.
package final class S3FileIO: FileIO {
    package let client: S3Client
    /// Objects per ListObjectsV2 page; nil leaves S3's default (1000).
    package let listPageSize: Int?

    package init(config: S3Config, listPageSize: Int? = nil) throws(SluiceError) {
        client = try S3Client(config: config)
        self.listPageSize = listPageSize
    }

    package init(client: S3Client, listPageSize: Int? = nil) {
        self.client = client
        self.listPageSize = listPageSize
    }

    /// Shuts the client down; no call may follow.
    package func shutdown() throws(SluiceError) {
        try client.shutdown()
    }

    /// Creates `bucket` unless it exists (the catalog's warehouse bucket).
    package func ensureBucket(_ bucket: String) throws(SluiceError) {
        if try client.runBlocking(.headBucket(bucket)) { return }
        try client.runBlocking(.createBucket(bucket, region: client.config.region))
    }

    package func write(_ location: String, _ bytes: [UInt8]) throws(SluiceError) {
        let target = try objectLocation(location)
        if bytes.count <= client.config.partSize {
            try client.runBlocking(.putObject(bucket: target.bucket, key: target.key, bytes: bytes))
            return
        }
        let output = S3FileOutput(client: client, location: target)
        try output.write(bytes)
        _ = try output.close()
    }

    package func read(_ location: String) throws(SluiceError) -> [UInt8] {
        let target = try objectLocation(location)
        return try client.runBlocking(.getObject(bucket: target.bucket, key: target.key))
    }

    package func read(_ location: String, range: Range<Int>) throws(SluiceError) -> [UInt8] {
        let target = try objectLocation(location)
        guard range.lowerBound >= 0 else {
            throw SluiceError(.invalidParameterValue, "cannot read bytes \(range.lowerBound)..<\(range.upperBound) of \(location)")
        }
        if range.isEmpty { return [] }
        return try client.runBlocking(.getObject(bucket: target.bucket, key: target.key, range: range))
    }

    package func size(_ location: String) throws(SluiceError) -> Int? {
        let target = try objectLocation(location)
        return try client.runBlocking(.headObject(bucket: target.bucket, key: target.key))?.size
    }

    package func delete(_ location: String) throws(SluiceError) {
        let target = try objectLocation(location)
        try client.runBlocking(.deleteObject(bucket: target.bucket, key: target.key))
    }

    package func list(prefix: String) throws(SluiceError) -> [FileEntry] {
        let target = try S3Location(parsing: prefix)
        var entries: [FileEntry] = []
        var token: String?
        repeat {
            let page = try client.runBlocking(.listObjectsV2(bucket: target.bucket, prefix: target.key, continuationToken: token, maxKeys: listPageSize))
            for object in page.objects {
                entries.append(FileEntry(location: target.with(key: object.key).description, size: object.size))
            }
            token = page.nextContinuationToken
        } while token != nil
        return entries
    }

    package func output(_ location: String) throws(SluiceError) -> any FileOutput {
        S3FileOutput(client: client, location: try objectLocation(location))
    }

    private func objectLocation(_ location: String) throws(SluiceError) -> S3Location {
        let parsed = try S3Location(parsing: location)
        guard !parsed.key.isEmpty else { throw SluiceError(.invalidParameterValue, "S3 location \"\(location)\" names no object") }
        return parsed
    }
}
