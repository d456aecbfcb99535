import SluiceCore
import Testing

@testable import SluiceLakehouse
@testable import SluiceLakehouseClients

@Suite struct S3ConfigTests {
    @Test func environmentIsReadAndOverridesWin() throws {
        let environment = [
            "AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "secretenv", "AWS_SESSION_TOKEN": "tok",
            "AWS_DEFAULT_REGION": "eu-central-1", "AWS_ENDPOINT_URL": "http://generic:1", "AWS_ENDPOINT_URL_S3": "http://s3only:2",
        ]
        let config = try S3Config.fromEnvironment(environment)
        #expect(config.accessKeyID == "AKIDENV" && config.secretAccessKey == "secretenv" && config.sessionToken == "tok")
        #expect(config.region == "eu-central-1")
        #expect(config.endpoint == "http://s3only:2")
        #expect(config.addressing == .pathStyle)

        var withRegion = environment
        withRegion["AWS_REGION"] = "ap-south-1"
        withRegion["AWS_ENDPOINT_URL_S3"] = nil
        let second = try S3Config.fromEnvironment(withRegion, accessKeyID: "AKIDARG", addressing: .virtualHost)
        #expect(second.region == "ap-south-1" && second.endpoint == "http://generic:1")
        #expect(second.accessKeyID == "AKIDARG" && second.addressing == .virtualHost)

        let third = try S3Config.fromEnvironment(environment, endpoint: "http://explicit:3", region: "us-west-2", secretAccessKey: "s", sessionToken: "t2")
        #expect(third.endpoint == "http://explicit:3" && third.region == "us-west-2" && third.secretAccessKey == "s" && third.sessionToken == "t2")
    }

    @Test func missingCredentialsAreAnAuthorizationError() {
        #expect { try S3Config.fromEnvironment(["AWS_REGION": "us-east-1"]) } throws: { error in
            (error as? SluiceError)?.code == .invalidAuthorizationSpecification
        }
        let defaults = try? S3Config.fromEnvironment([:], accessKeyID: "a", secretAccessKey: "b")
        #expect(defaults?.region == "us-east-1" && defaults?.endpoint == nil && defaults?.addressing == .virtualHost)
    }

    @Test func partSizeHasS3sMinimumAndRetryDelaysDouble() {
        let config = S3Config(accessKeyID: "a", secretAccessKey: "b", partSize: 1024)
        #expect(config.partSize == 5 << 20)
        #expect(!config.description.contains("b)"))
        let policy = S3RetryPolicy.standard
        #expect(policy.delay(after: 1) == .milliseconds(100))
        #expect(policy.delay(after: 3) == .milliseconds(400))
        #expect(policy.delay(after: 10) == .seconds(2))
    }

    @Test func endpointsParse() throws {
        let plain = try S3Endpoint(parsing: "http://127.0.0.1:9000/")
        #expect(plain.host == "127.0.0.1" && plain.port == 9000 && !plain.isSecure)
        #expect(plain.authority(bucket: nil) == "127.0.0.1:9000")
        let secure = try S3Endpoint(parsing: "https://minio.example:443")
        #expect(secure.authority(bucket: "b") == "b.minio.example")
        let ipv6 = try S3Endpoint(parsing: "http://[::1]:9000")
        #expect(ipv6.host == "[::1]" && ipv6.port == 9000)
        for bad in ["ftp://x", "http://", "http://host/path", "http://h:0", "http://h:99999", "host:9000", "http://u@h"] {
            #expect(throws: SluiceError.self, "\(bad)") { try S3Endpoint(parsing: bad) }
        }
    }

    @Test func locationsParseAndResolve() throws {
        let location = try S3Location(parsing: "s3a://bucket/dir/file.parquet")
        #expect(location.scheme == "s3a" && location.bucket == "bucket" && location.key == "dir/file.parquet")
        #expect(try S3Location(parsing: "s3://bucket").key == "")
        #expect(location.with(key: "x").description == "s3a://bucket/x")
        #expect(throws: SluiceError.self) { try S3Location(parsing: "s3:///key") }
        #expect(try FileIOs.scheme(of: "s3://b/k") == .s3)
        #expect(try FileIOs.scheme(of: "file:///tmp/x") == .local)
        #expect(try FileIOs.scheme(of: "/tmp/x") == .local)
        #expect { try FileIOs.scheme(of: "gs://b/k") } throws: { ($0 as? SluiceError)?.code == .featureNotSupported }
        #expect { try FileIOs.scheme(of: "relative/x") } throws: { ($0 as? SluiceError)?.code == .invalidParameterValue }
        #expect(try FileIOs.resolve(location: "/tmp/x", s3: nil) is LocalFileIO)
        #expect(throws: SluiceError.self) { try FileIOs.resolve(location: "s3://b/k", s3: nil) }
    }
}

@Suite struct S3ClientLifecycleTests {
    /// Shutting down twice is harmless, and a client dropped unshut does not trap (HTTPClient
    /// asserts on that in debug builds).
    @Test func shutdownIsIdempotentAndOptional() async throws {
        let client = try S3Client(config: S3Config(endpoint: "http://127.0.0.1:1", accessKeyID: "a", secretAccessKey: "b"))
        try await client.shutdown()
        try await client.shutdown()
        _ = try S3FileIO(config: S3Config(endpoint: "http://127.0.0.1:1", accessKeyID: "a", secretAccessKey: "b"))
    }
}
