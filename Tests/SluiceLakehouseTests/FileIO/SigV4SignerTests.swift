import Foundation
import SluiceCore
import Testing

@testable import SluiceLakehouse
@testable import SluiceLakehouseClients

/// The example requests of AWS's "Signature Calculations for the Authorization Header:
/// Transferring Payload in a Single Chunk (AWS Signature Version 4)", with their published
/// canonical requests, strings to sign and signatures.
@Suite struct SigV4SignerTests {
    static let signer = SigV4Signer(accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", region: "us-east-1")
    /// 2013-05-24T00:00:00Z.
    static let timestamp = SigV4Timestamp(secondsSince1970: 1_369_353_600)
    static let host = "examplebucket.s3.amazonaws.com"
    static let empty = SigV4Signer.emptyPayloadHash

    @Test func timestampFormatsAsAmzDate() {
        #expect(Self.timestamp.amzDate == "20130524T000000Z")
        #expect(Self.timestamp.dateStamp == "20130524")
        #expect(SigV4Timestamp(secondsSince1970: 1_700_000_000).amzDate == "20231114T221320Z")
    }

    @Test func getObjectWithRange() {
        let request = SigV4Request(method: "GET", encodedPath: "/test.txt", headers: [
            ("Host", Self.host), ("Range", "bytes=0-9"), ("x-amz-content-sha256", Self.empty), ("x-amz-date", "20130524T000000Z"),
        ])
        let (canonical, signedHeaders) = Self.signer.canonicalRequest(request, payloadHash: Self.empty)
        #expect(canonical == """
            GET
            /test.txt

            host:examplebucket.s3.amazonaws.com
            range:bytes=0-9
            x-amz-content-sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            x-amz-date:20130524T000000Z

            host;range;x-amz-content-sha256;x-amz-date
            e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855
            """)
        #expect(signedHeaders == "host;range;x-amz-content-sha256;x-amz-date")
        let stringToSign = Self.signer.stringToSign(canonicalRequest: canonical, at: Self.timestamp)
        #expect(stringToSign == """
            AWS4-HMAC-SHA256
            20130524T000000Z
            20130524/us-east-1/s3/aws4_request
            7344ae5b7ee6c3e7e6b0fe0640412a37625d1fbfff95c48bbb2dc43964946972
            """)
        #expect(Self.signer.signature(stringToSign: stringToSign, at: Self.timestamp) == "f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    /// `sign` adds x-amz-date and x-amz-content-sha256 itself and gives the published header.
    @Test func signAddsHeadersAndAuthorization() {
        var request = SigV4Request(method: "GET", encodedPath: "/test.txt", headers: [("host", Self.host), ("range", "bytes=0-9")])
        Self.signer.sign(&request, payloadHash: Self.empty, at: Self.timestamp)
        let headers = Dictionary(request.headers.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        #expect(headers["x-amz-date"] == "20130524T000000Z")
        #expect(headers["x-amz-content-sha256"] == Self.empty)
        #expect(headers["x-amz-security-token"] == nil)
        #expect(headers["Authorization"] == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;range;x-amz-content-sha256;x-amz-date,Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41")
    }

    @Test func putObjectWithEncodedKeyAndPayloadHash() {
        let payload = Array("Welcome to Amazon S3.".utf8)
        let hash = SigV4Signer.payloadHash(payload)
        #expect(hash == "44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072")
        let path = "/" + SigV4Signer.uriEncode("test$file.text", keepingSlash: true)
        #expect(path == "/test%24file.text")
        let request = SigV4Request(method: "PUT", encodedPath: path, headers: [
            ("Date", "Fri, 24 May 2013 00:00:00 GMT"), ("Host", Self.host), ("x-amz-date", "20130524T000000Z"),
            ("x-amz-storage-class", "REDUCED_REDUNDANCY"), ("x-amz-content-sha256", hash),
        ])
        let (canonical, _) = Self.signer.canonicalRequest(request, payloadHash: hash)
        #expect(canonical == """
            PUT
            /test%24file.text

            date:Fri, 24 May 2013 00:00:00 GMT
            host:examplebucket.s3.amazonaws.com
            x-amz-content-sha256:44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072
            x-amz-date:20130524T000000Z
            x-amz-storage-class:REDUCED_REDUNDANCY

            date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class
            44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072
            """)
        let stringToSign = Self.signer.stringToSign(canonicalRequest: canonical, at: Self.timestamp)
        #expect(stringToSign.hasSuffix("\n9e0e90d9c76de8fa5b200d8c849cd5b8dc7a3be3951ddb7f6a76b4158342019d"))
        #expect(Self.signer.signature(stringToSign: stringToSign, at: Self.timestamp) == "98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd")
    }

    @Test func getBucketLifecycleSignsEmptyQueryValue() {
        var request = SigV4Request(method: "GET", encodedPath: "/", query: [("lifecycle", "")], headers: [("host", Self.host)])
        #expect(request.canonicalQuery == "lifecycle=")
        Self.signer.sign(&request, payloadHash: Self.empty, at: Self.timestamp)
        #expect(request.headers.last?.value == "AWS4-HMAC-SHA256 Credential=AKIAIOSFODNN7EXAMPLE/20130524/us-east-1/s3/aws4_request,SignedHeaders=host;x-amz-content-sha256;x-amz-date,Signature=fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543")
    }

    @Test func listObjectsSortsQuery() {
        var request = SigV4Request(method: "GET", encodedPath: "/", query: [("prefix", "J"), ("max-keys", "2")], headers: [("host", Self.host)])
        #expect(request.canonicalQuery == "max-keys=2&prefix=J")
        let (canonical, _) = Self.signer.canonicalRequest(
            SigV4Request(method: "GET", encodedPath: "/", query: request.query, headers: request.headers + [("x-amz-date", "20130524T000000Z"), ("x-amz-content-sha256", Self.empty)]),
            payloadHash: Self.empty)
        #expect(Self.signer.stringToSign(canonicalRequest: canonical, at: Self.timestamp).hasSuffix("df57d21db20da04d7fa30298dd4488ba3a2b47ca3a489c74750e0f1e7df1b9b7"))
        Self.signer.sign(&request, payloadHash: Self.empty, at: Self.timestamp)
        #expect(request.headers.last?.value.hasSuffix("Signature=34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7") == true)
    }

    @Test func uriEncodingFollowsSigV4Rules() {
        #expect(SigV4Signer.uriEncode("a b/c+d=é~_.-", keepingSlash: true) == "a%20b/c%2Bd%3D%C3%A9~_.-")
        #expect(SigV4Signer.uriEncode("a/b", keepingSlash: false) == "a%2Fb")
        #expect(SigV4Signer.trimmedHeaderValue("  a   b  c ") == "a b c")
    }

    @Test func sessionTokenIsSentAndSigned() {
        var signer = Self.signer
        signer.sessionToken = "token/with+chars"
        var request = SigV4Request(method: "GET", encodedPath: "/k", headers: [("host", Self.host)])
        signer.sign(&request, payloadHash: Self.empty, at: Self.timestamp)
        #expect(request.headers.contains { $0.name == "x-amz-security-token" && $0.value == "token/with+chars" })
        #expect(request.headers.last?.value.contains("SignedHeaders=host;x-amz-content-sha256;x-amz-date;x-amz-security-token,") == true)
    }

    /// The client's virtual-host addressing puts the bucket in the host and reproduces the GET
    /// Object example exactly.
    @Test func clientVirtualHostRequestMatchesTheExample() throws {
        let config = S3Config(endpoint: "https://s3.amazonaws.com", accessKeyID: "AKIAIOSFODNN7EXAMPLE",
                              secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", addressing: .virtualHost)
        let client = try S3Client(config: config)
        defer { try? client.shutdown() }
        let request = S3Request(method: "GET", bucket: "examplebucket", key: "test.txt", headers: [("range", "bytes=0-9")])
        let signed = client.signedRequest(request, at: Self.timestamp)
        #expect(signed.encodedPath == "/test.txt")
        #expect(signed.headers.first { $0.name == "host" }?.value == Self.host)
        #expect(signed.headers.last?.value.hasSuffix("Signature=f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41") == true)
        let httpRequest = try client.makeHTTPRequest(request, at: Self.timestamp)
        #expect(httpRequest.url.absoluteString == "https://examplebucket.s3.amazonaws.com/test.txt")
        // A bucket name with dots cannot be a TLS host name: it falls back to the path.
        #expect(client.encodedPath(for: S3Request(method: "GET", bucket: "my.bucket", key: "k")) == "/my.bucket/k")
    }

    @Test func clientPathStyleURLEncodesKeySegments() throws {
        let client = try S3Client(config: S3Config(endpoint: "http://127.0.0.1:9000", accessKeyID: "a", secretAccessKey: "b"))
        defer { try? client.shutdown() }
        #expect(client.config.addressing == .pathStyle)
        let request = S3Request(method: "GET", bucket: "bucket", query: [("prefix", "a b/"), ("list-type", "2")])
        let httpRequest = try client.makeHTTPRequest(request, at: Self.timestamp)
        #expect(httpRequest.url.absoluteString == "http://127.0.0.1:9000/bucket?list-type=2&prefix=a%20b%2F")
        let object = try client.makeHTTPRequest(S3Request(method: "PUT", bucket: "bucket", key: "dir/a b$é.txt"), at: Self.timestamp)
        #expect(object.url.absoluteString == "http://127.0.0.1:9000/bucket/dir/a%20b%24%C3%A9.txt")
        #expect(object.header("host") == "127.0.0.1:9000")
    }

    @Test func awsDefaultEndpointIsRegional() throws {
        let client = try S3Client(config: S3Config(region: "eu-west-1", accessKeyID: "a", secretAccessKey: "b"))
        defer { try? client.shutdown() }
        let httpRequest = try client.makeHTTPRequest(S3Request(method: "GET", bucket: "data", key: "x"), at: Self.timestamp)
        #expect(httpRequest.url.absoluteString == "https://data.s3.eu-west-1.amazonaws.com/x")
    }
}
