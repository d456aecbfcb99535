import Foundation
import SluiceCore
import Testing

@testable import SluiceLakehouse
@testable import SluiceLakehouseClients

/// S3FileIO and S3Client against a real local S3 server (moto). Serialized: the
/// authentication test switches the server's signature checks on and off.
@Suite(.serialized, .motoServer) struct S3FileIOTests {
    let server: MotoServer

    init() throws {
        server = try #require(MotoServer.current, "the moto server did not start")
    }

    func config(partSize: Int = S3Config.defaultPartSize, accessKeyID: String = "AKIAEXAMPLE", secretAccessKey: String = "secret") -> S3Config {
        S3Config(endpoint: server.endpoint, accessKeyID: accessKeyID, secretAccessKey: secretAccessKey, partSize: partSize)
    }

    /// Runs `body` with an S3FileIO over `config`, shutting it down after.
    @discardableResult
    func withIO<T>(_ config: S3Config, listPageSize: Int? = nil, _ body: (S3FileIO) throws -> T) throws -> T {
        let io = try S3FileIO(config: config, listPageSize: listPageSize)
        defer { try? io.shutdown() }
        return try body(io)
    }

    @Test func objectLifecycleWithPathStyle() throws {
        try withIO(config()) { io in
            try io.ensureBucket("lake")
            try io.ensureBucket("lake")
            let location = "s3://lake/warehouse/db/t/data/a b+c$é.parquet"
            let bytes = (0 ..< 100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
            try io.write(location, bytes)
            #expect(try io.read(location) == bytes)
            #expect(try io.read(location, range: 99_990 ..< 100_000) == Array(bytes[99_990...]))
            #expect(try io.read(location, range: 10 ..< 10) == [])
            #expect(try io.read("s3a://lake/warehouse/db/t/data/a b+c$é.parquet", range: 0 ..< 3) == Array(bytes[0 ..< 3]))
            #expect(try io.size(location) == 100_000)
            #expect(try io.size("s3://lake/warehouse/none") == nil)
            #expect { try io.read(location, range: 99_000 ..< 100_001) } throws: { ($0 as? SluiceError)?.message.contains("returned 1000 bytes") == true }
            #expect(try io.list(prefix: "s3://lake/warehouse/") == [FileEntry(location: location, size: 100_000)])
            try io.write("s3://lake/empty", [])
            #expect(try io.read("s3://lake/empty") == [])
            try io.delete(location)
            try io.delete(location)
            #expect(try io.size(location) == nil)
            #expect { try io.read(location) } throws: { error in
                let error = error as? SluiceError
                return error?.code == SQLState("58P01") && error?.message.contains("GetObject") == true
                    && error?.message.contains(location) == true && error?.message.contains("NoSuchKey") == true
            }
            #expect { try io.list(prefix: "s3://no-such-bucket/") } throws: { ($0 as? SluiceError)?.message.contains("NoSuchBucket") == true }
            #expect(try io.client.runBlocking(.headBucket("lake")))
            #expect(try !io.client.runBlocking(.headBucket("no-such-bucket")))
        }
    }

    @Test func listingFollowsContinuationTokens() throws {
        try withIO(config(), listPageSize: 7) { io in
            try io.ensureBucket("pages")
            let keys = (0 ..< 25).map { "t/metadata/\(String(format: "%05d", $0 * 37 % 25))-snap.avro" }
            for key in keys { try io.write("s3://pages/\(key)", Array(key.utf8)) }
            try io.write("s3://pages/t/other", [1])
            try io.write("s3://pages/u/metadata/x", [1])
            let listed = try io.list(prefix: "s3://pages/t/metadata/")
            #expect(listed.map(\.location) == keys.sorted().map { "s3://pages/\($0)" })
            // Every key is 26 bytes long, and so is its object.
            #expect(listed.allSatisfy { $0.size == 26 })
            #expect(try io.list(prefix: "s3://pages/").count == 27)
        }
    }

    @Test func multipartUploadOf12MiBIn5MiBParts() throws {
        try withIO(config(partSize: 5 << 20)) { io in
            try io.ensureBucket("multi")
            var generator = SplitMix64(seed: 12)
            let bytes = (0 ..< (12 << 20) / 8).flatMap { _ in withUnsafeBytes(of: generator.next()) { Array($0) } }
            let output = try io.output("s3://multi/big.parquet")
            for start in stride(from: 0, to: bytes.count, by: 1 << 20) {
                try output.write(Array(bytes[start ..< min(bytes.count, start + (1 << 20))]))
            }
            #expect(try io.size("s3://multi/big.parquet") == nil)
            #expect(try output.close() == 12 << 20)
            #expect(try io.size("s3://multi/big.parquet") == 12 << 20)
            #expect(try io.read("s3://multi/big.parquet") == bytes)
            // A range across the first part boundary.
            let boundary = 5 << 20
            #expect(try io.read("s3://multi/big.parquet", range: boundary - 100 ..< boundary + 100) == Array(bytes[boundary - 100 ..< boundary + 100]))
            // A multipart ETag ends in -<parts>: three parts were sent.
            let info = try io.client.runBlocking(.headObject(bucket: "multi", key: "big.parquet"))
            #expect(info?.eTag?.hasSuffix("-3\"") == true, "\(String(describing: info?.eTag))")
            // write() of more than a part goes multipart too.
            try io.write("s3://multi/direct", Array(bytes[0 ..< (6 << 20)]))
            #expect(try io.read("s3://multi/direct", range: 0 ..< 16) == Array(bytes[0 ..< 16]))
            #expect(try io.client.runBlocking(.headObject(bucket: "multi", key: "direct"))?.eTag?.hasSuffix("-2\"") == true)
            // An aborted upload leaves no object.
            let aborted = try io.output("s3://multi/aborted")
            try aborted.write(Array(bytes[0 ..< (6 << 20)]))
            aborted.abort()
            #expect(throws: SluiceError.self) { _ = try aborted.close() }
            #expect(try io.size("s3://multi/aborted") == nil)
        }
    }

    @Test func asyncClientMethods() async throws {
        let client = try S3Client(config: config())
        do {
            try await client.createBucket("async")
            #expect(try await client.bucketExists("async"))
            try await client.putObject(bucket: "async", key: "k/1", bytes: [1, 2, 3, 4])
            #expect(try await client.getObject(bucket: "async", key: "k/1", range: 1 ..< 3) == [2, 3])
            #expect(try await client.headObject(bucket: "async", key: "k/1")?.size == 4)
            #expect(try await client.listObjects(bucket: "async", prefix: "k/", pageSize: 1).map(\.key) == ["k/1"])
            let upload = try await client.createMultipartUpload(bucket: "async", key: "m")
            let eTag = try await client.uploadPart(bucket: "async", key: "m", uploadID: upload, partNumber: 1, bytes: [7, 7])
            try await client.completeMultipartUpload(bucket: "async", key: "m", uploadID: upload, parts: [S3CompletedPart(partNumber: 1, eTag: eTag)])
            #expect(try await client.getObject(bucket: "async", key: "m") == [7, 7])
            let dropped = try await client.createMultipartUpload(bucket: "async", key: "gone")
            try await client.abortMultipartUpload(bucket: "async", key: "gone", uploadID: dropped)
            try await client.deleteObject(bucket: "async", key: "k/1")
            #expect(try await client.headObject(bucket: "async", key: "k/1") == nil)
        } catch {
            try await client.shutdown()
            throw error
        }
        try await client.shutdown()
    }

    /// With moto's authentication on, moto recomputes every signature with botocore: requests
    /// signed with a real IAM key pass, an unknown key and a wrong secret are `28000` errors
    /// naming their cause.
    @Test func signaturesAreCheckedByTheServer() throws {
        try withIO(config()) { setup in
            try setup.ensureBucket("secure")
            let (keyID, secret) = try createIAMUser(setup.client)
            try setAuthentication(setup.client, enabled: true)
            defer { try? setAuthentication(setup.client, enabled: false) }

            try withIO(config(accessKeyID: keyID, secretAccessKey: secret), listPageSize: 2) { io in
                let keys = ["plain.txt", "dir/with space.txt", "dir/sym+bols=&$@,;:.txt", "dir/ünï.txt"]
                for key in keys { try io.write("s3://secure/\(key)", Array(key.utf8)) }
                for key in keys { #expect(try io.read("s3://secure/\(key)", range: 0 ..< 3) == Array(key.utf8.prefix(3))) }
                #expect(try io.list(prefix: "s3://secure/").count == keys.count)
                #expect(try io.size("s3://secure/dir/ünï.txt") == "dir/ünï.txt".utf8.count)
            }
            try withIO(config(accessKeyID: "AKIANOSUCHKEY0000000", secretAccessKey: secret)) { io in
                #expect { try io.read("s3://secure/plain.txt") } throws: { error in
                    let error = error as? SluiceError
                    return error?.code == .invalidAuthorizationSpecification && error?.message.contains("InvalidAccessKeyId") == true
                        && error?.message.contains("GetObject") == true && error?.message.contains("s3://secure/plain.txt") == true
                }
            }
            try withIO(config(accessKeyID: keyID, secretAccessKey: "wrong-secret")) { io in
                #expect { try io.write("s3://secure/x", [1]) } throws: { error in
                    let error = error as? SluiceError
                    return error?.code == .invalidAuthorizationSpecification && error?.message.contains("SignatureDoesNotMatch") == true
                }
            }
        }
    }

    @Test func unreachableEndpointFailsFastAndClearly() throws {
        let port = try LocalProcess.freeLoopbackPort()
        let started = Date()
        try withIO(S3Config(endpoint: "http://127.0.0.1:\(port)", accessKeyID: "a", secretAccessKey: "b")) { io in
            #expect { try io.read("s3://bucket/key") } throws: { error in
                let error = error as? SluiceError
                return error?.code == .unableToEstablishConnection && error?.message.contains("http://127.0.0.1:\(port)") == true
            }
        }
        #expect(Date().timeIntervalSince(started) < 5)
    }

    // MARK: moto's IAM, for the authentication test

    /// Creates an IAM user allowed everything and returns its access key (moto's IAM API,
    /// reached through the client with requests signed for the `iam` service).
    func createIAMUser(_ client: S3Client) throws -> (String, String) {
        let user = "sluice-\(UInt32.random(in: 0 ... .max))"
        _ = try iam(client, ["Action": "CreateUser", "UserName": user])
        let policy = #"{"Version":"2012-10-17","Statement":[{"Effect":"Allow","Action":"*","Resource":"*"}]}"#
        _ = try iam(client, ["Action": "PutUserPolicy", "UserName": user, "PolicyName": "all", "PolicyDocument": policy])
        let answer = try XMLElement.parse(try iam(client, ["Action": "CreateAccessKey", "UserName": user]))
        let key = answer.child("CreateAccessKeyResult")?.child("AccessKey")
        return (try #require(key?.child("AccessKeyId")?.text), try #require(key?.child("SecretAccessKey")?.text))
    }

    func iam(_ client: S3Client, _ parameters: [String: String]) throws -> [UInt8] {
        let form = (parameters.merging(["Version": "2010-05-08"]) { first, _ in first })
            .map { "\($0.key)=\(SigV4Signer.uriEncode($0.value, keepingSlash: false))" }.joined(separator: "&")
        let request = S3Request(method: "POST", bucket: nil, headers: [("content-type", "application/x-www-form-urlencoded")],
                                body: Array(form.utf8), service: "iam")
        let response = try client.runBlocking(S3Operation(name: "IAM", location: "iam", request: request) { $0 })
        guard response.isSuccess else { throw response.failure() }
        return response.body
    }

    /// Moto's switch for checking signatures: the number of requests it lets through unchecked.
    func setAuthentication(_ client: S3Client, enabled: Bool) throws {
        let request = S3Request(method: "POST", bucket: "moto-api", key: "reset-auth", body: Array((enabled ? "0" : "inf").utf8))
        let response = try client.runBlocking(S3Operation(name: "reset-auth", location: "moto", request: request) { $0 })
        guard response.isSuccess else { throw response.failure() }
    }
}
