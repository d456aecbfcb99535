import Foundation
import SluiceCore

/// How requests name the bucket: in the path (`http://host/bucket/key`, what MinIO, moto and
/// most S3-compatible stores expect) or in the host name (`https://bucket.host/key`, what AWS
/// prefers).
package enum S3Addressing: String, Sendable, Hashable {
    case pathStyle
    case virtualHost
}

/// How failed requests are retried: 5xx answers and transport errors (refused or dropped
/// connections, timeouts) are tried again after an exponentially growing, jittered delay.
package struct S3RetryPolicy: Sendable, Hashable {
    /// Attempts in all, the first included; 1 means no retry.
    package var maxAttempts: Int
    /// The delay before the second attempt; each further one doubles it, up to `maxDelay`.
    package var baseDelay: Duration
    package var maxDelay: Duration

    /// 4 attempts after 100, 200 and 400 ms (plus up to 50% jitter): about a second of waiting.
    package static let standard = S3RetryPolicy(maxAttempts: 4, baseDelay: .milliseconds(100), maxDelay: .seconds(2))
    package static let none = S3RetryPolicy(maxAttempts: 1, baseDelay: .zero, maxDelay: .zero)

    package init(maxAttempts: Int, baseDelay: Duration, maxDelay: Duration) {
        self.maxAttempts = max(1, maxAttempts)
        self.baseDelay = baseDelay
        self.maxDelay = maxDelay
    }

    /// The delay before attempt `attempt + 1` (attempt counted from 1), without jitter.
    package func delay(after attempt: Int) -> Duration {
        var delay = baseDelay
        for _ in 1 ..< max(1, attempt) where delay < maxDelay { delay *= 2 }
        return min(delay, maxDelay)
    }
}

/// Where an S3 store is and how to sign for it.
package struct S3Config: Sendable, Hashable, CustomStringConvertible {
    /// The store's base URL (`http://127.0.0.1:9000`); nil means AWS, `https://s3.<region>.amazonaws.com`.
    package var endpoint: String?
    package var region: String
    package var accessKeyID: String
    package var secretAccessKey: String
    /// Temporary credentials' token, sent as `x-amz-security-token`.
    package var sessionToken: String?
    package var addressing: S3Addressing
    package var retry: S3RetryPolicy
    /// The longest a connection may take to open.
    package var connectTimeout: Duration
    /// The longest the store may stay silent while answering.
    package var readTimeout: Duration
    /// The size of a multipart upload's parts, and the size above which writes use one; at
    /// least 5 MiB, S3's minimum for every part but the last.
    package var partSize: Int

    /// S3's smallest part size for all parts but the last.
    package static let minimumPartSize = 5 << 20
    package static let defaultPartSize = 8 << 20

    /// `addressing` defaults to virtual-host for AWS and path-style for an explicit endpoint,
    /// which is what S3-compatible stores serve without DNS set up per bucket.
    package init(
        endpoint: String? = nil, region: String = "us-east-1", accessKeyID: String, secretAccessKey: String,
        sessionToken: String? = nil, addressing: S3Addressing? = nil, retry: S3RetryPolicy = .standard,
        connectTimeout: Duration = .seconds(5), readTimeout: Duration = .seconds(30),
        partSize: Int = S3Config.defaultPartSize
    ) {
        self.endpoint = endpoint
        self.region = region
        self.accessKeyID = accessKeyID
        self.secretAccessKey = secretAccessKey
        self.sessionToken = sessionToken
        self.addressing = addressing ?? (endpoint == nil ? .virtualHost : .pathStyle)
        self.retry = retry
        self.connectTimeout = connectTimeout
        self.readTimeout = readTimeout
        self.partSize = max(partSize, Self.minimumPartSize)
    }

    /// A configuration from the AWS environment variables, each overridden by the matching
    /// argument when that is given: `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`,
    /// `AWS_SESSION_TOKEN`, `AWS_REGION` (else `AWS_DEFAULT_REGION`, else `us-east-1`) and
    /// `AWS_ENDPOINT_URL_S3` (else `AWS_ENDPOINT_URL`). Missing keys are a `28000` error.
    package static func fromEnvironment(
        _ environment: [String: String] = ProcessInfo.processInfo.environment,
        endpoint: String? = nil, region: String? = nil, accessKeyID: String? = nil, secretAccessKey: String? = nil,
        sessionToken: String? = nil, addressing: S3Addressing? = nil
    ) throws(SluiceError) -> S3Config {
        func value(_ names: String...) -> String? {
            for name in names { if let value = environment[name], !value.isEmpty { return value } }
            return nil
        }
        guard let accessKeyID = accessKeyID ?? value("AWS_ACCESS_KEY_ID"),
              let secretAccessKey = secretAccessKey ?? value("AWS_SECRET_ACCESS_KEY")
        else {
            throw SluiceError(.invalidAuthorizationSpecification, "no S3 credentials are configured",
                              hint: "Set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or give the access key and secret explicitly.")
        }
        return S3Config(
            endpoint: endpoint ?? value("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL"),
            region: region ?? value("AWS_REGION", "AWS_DEFAULT_REGION") ?? "us-east-1",
            accessKeyID: accessKeyID, secretAccessKey: secretAccessKey,
            sessionToken: sessionToken ?? value("AWS_SESSION_TOKEN"),
            addressing: addressing)
    }

    /// The configuration without its secrets, for messages and logs.
    package var description: String {
        "S3Config(endpoint: \(endpoint ?? "AWS"), region: \(region), accessKeyID: \(accessKeyID), addressing: \(addressing.rawValue))"
    }
}
