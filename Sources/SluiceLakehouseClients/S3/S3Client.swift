import NIOCore
import SluiceCore
import SluiceLakehouse
import SluiceNet
import Synchronization

/// A small S3 client over the project's HTTP client (``HTTPClient``): signs requests with SigV4, retries 5xx answers and
/// transport errors with exponential backoff, and turns failures into ``SluiceError``s.
///
/// Every operation is an ``S3Operation`` value — the request and how to read its answer — run
/// either from async code (``run(_:)``) or from a plain thread that may block
/// (``runBlocking(_:)``), which waits on the NIO future: the request itself runs on NIO's
/// event loops, so blocking a caller never starves them, nor Swift's cooperative pool. Never
/// call ``runBlocking(_:)`` on an event loop.
///
/// One `HTTPClient` (on NIO's singleton event loop group) serves all requests and keeps their
/// connections; call ``shutdown()`` when done. A client dropped without it closes its
/// connections in the background.
package final class S3Client: Sendable {
    package let config: S3Config
    let endpoint: S3Endpoint
    private let http: HTTPClient
    private let isShutDown = Atomic(false)

    package init(config: S3Config) throws(SluiceError) {
        self.config = config
        endpoint = try S3Endpoint(config: config)
        // A refused connection fails the request at once; the retry policy here decides. An
        // object of any size may be read (the callers bound what they ask for).
        var configuration = HTTPClient.Configuration(connectTimeout: config.connectTimeout, readTimeout: config.readTimeout, maximumBodyBytes: Int.max)
        configuration.idleConnectionsPerOrigin = 16
        http = HTTPClient(configuration: configuration)
    }

    deinit {
        // Never blocks: the last reference may go on an event loop.
        if !isShutDown.exchange(true, ordering: .acquiringAndReleasing) { http.shutdown() }
    }

    /// Closes the connections; the client serves no request after. A second call does nothing.
    @available(*, noasync, message: "use the async shutdown() from async code")
    package func shutdown() throws(SluiceError) {
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        http.shutdown()
    }

    package func shutdown() async throws(SluiceError) {
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        http.shutdown()
    }

    /// Runs `operation` from async code.
    package func run<Result>(_ operation: S3Operation<Result>) async throws(SluiceError) -> Result {
        let response: S3Response
        do {
            response = try await send(operation).get()
        } catch {
            throw transportFailure(error, operation)
        }
        return try operation.interpret(response)
    }

    /// Runs `operation`, blocking the calling thread until it ends. Not on an event loop.
    @available(*, noasync, message: "use run(_:) from async code")
    package func runBlocking<Result>(_ operation: S3Operation<Result>) throws(SluiceError) -> Result {
        let response: S3Response
        do {
            response = try send(operation).wait()
        } catch {
            throw transportFailure(error, operation)
        }
        return try operation.interpret(response)
    }

    // MARK: Sending

    private func send<Result>(_ operation: S3Operation<Result>) -> EventLoopFuture<S3Response> {
        let promise = http.eventLoopGroup.any().makePromise(of: S3Response.self)
        attempt(1, operation.request, name: operation.name, location: operation.location, promise: promise)
        return promise.futureResult
    }

    /// Sends attempt `number` of `request`, and schedules the next after a 5xx answer or a
    /// transport error while attempts remain.
    private func attempt(_ number: Int, _ request: S3Request, name: String, location: String, promise: EventLoopPromise<S3Response>) {
        let httpRequest: HTTPClientRequest
        do {
            httpRequest = try makeHTTPRequest(request)
        } catch {
            promise.fail(error)
            return
        }
        let policy = config.retry
        http.execute(httpRequest).whenComplete { result in
            let retry: Bool
            switch result {
            case .success(let response):
                let status = response.status
                retry = status >= 500 && number < policy.maxAttempts
                if !retry {
                    promise.succeed(S3Response(
                        status: status, eTag: response.header("etag"),
                        contentLength: response.header("content-length").flatMap { Int($0) },
                        body: response.body, operation: name, location: location))
                }
            case .failure(let error):
                retry = Self.isRetryable(error) && number < policy.maxAttempts
                if !retry { promise.fail(error) }
            }
            guard retry else { return }
            let delay = policy.delay(after: number)
            let jittered = delay + delay * Double.random(in: 0 ... 0.5)
            promise.futureResult.eventLoop.scheduleTask(in: HTTPClient.timeAmount(jittered)) {
                self.attempt(number + 1, request, name: name, location: location, promise: promise)
            }
        }
    }

    /// The signed HTTP request: the bucket in the host (virtual-host addressing, when its name
    /// is DNS-safe) or in the path, the key URI-encoded per segment.
    func makeHTTPRequest(_ request: S3Request, at timestamp: SigV4Timestamp = .now()) throws(HTTPClientError) -> HTTPClientRequest {
        let signed = signedRequest(request, at: timestamp)
        let query = signed.canonicalQuery
        let url = "\(endpoint.scheme)://\(authority(for: request))\(signed.encodedPath)\(query.isEmpty ? "" : "?\(query)")"
        // (The signed headers carry the host; the client sends it once.)
        return try HTTPClientRequest(method: request.method, url: url, headers: signed.headers.map { ($0.0, $0.1) },
                                     body: request.body.isEmpty ? nil : request.body)
    }

    /// `request` with its host header and SigV4 headers, as sent.
    func signedRequest(_ request: S3Request, at timestamp: SigV4Timestamp) -> SigV4Request {
        var signing = SigV4Request(method: request.method, encodedPath: encodedPath(for: request), query: request.query,
                                   headers: [("host", authority(for: request))] + request.headers)
        let signer = SigV4Signer(accessKeyID: config.accessKeyID, secretAccessKey: config.secretAccessKey,
                                 sessionToken: config.sessionToken, region: config.region, service: request.service)
        signer.sign(&signing, payloadHash: SigV4Signer.payloadHash(request.body), at: timestamp)
        return signing
    }

    func usesVirtualHost(_ bucket: String?) -> Bool {
        guard config.addressing == .virtualHost, let bucket else { return false }
        // A name that is not a DNS label sequence (or has dots, which TLS wildcards don't
        // cover) falls back to the path, as AWS's SDKs do.
        return !bucket.isEmpty && bucket.utf8.count <= 63 && !(endpoint.isSecure && bucket.contains("."))
            && bucket.utf8.allSatisfy { ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: ".") }
    }

    func authority(for request: S3Request) -> String {
        endpoint.authority(bucket: usesVirtualHost(request.bucket) ? request.bucket : nil)
    }

    func encodedPath(for request: S3Request) -> String {
        let key = request.key.map { SigV4Signer.uriEncode($0, keepingSlash: true) }
        guard let bucket = request.bucket, !usesVirtualHost(bucket) else { return "/" + (key ?? "") }
        let bucketPath = "/" + SigV4Signer.uriEncode(bucket, keepingSlash: false)
        return key.map { "\(bucketPath)/\($0)" } ?? bucketPath
    }

    // MARK: Failures

    /// Whether a transport error may pass on a later attempt: anything but a client that is shut
    /// down or a cancelled request (a request that cannot be built fails before it is sent).
    private static func isRetryable(_ error: any Error) -> Bool {
        if let error = error as? HTTPClientError { return error.isTransient }
        return true
    }

    /// The error for a request that got no answer: one that never connected is `HV00N` naming
    /// the endpoint; one that broke off while talking is `58030`.
    private func transportFailure<Result>(_ error: any Error, _ operation: S3Operation<Result>) -> SluiceError {
        let endpointText = config.endpoint ?? "https://\(endpoint.host)"
        if let error = error as? HTTPClientError, [.timedOut, .closedByPeer].contains(error) {
            return SluiceError(.ioError, "S3 \(operation.name) on \(operation.location) failed: the connection to \(endpointText) broke off (\(error))")
        }
        let attempts = config.retry.maxAttempts
        return SluiceError(FileIOErrorCode.unableToConnect, "could not connect to the S3 endpoint \(endpointText) for \(operation.name) on \(operation.location): \(error)",
                           detail: "Tried \(attempts) time\(attempts == 1 ? "" : "s").",
                           hint: "Check that the endpoint (AWS_ENDPOINT_URL_S3) is right and the store is running.")
    }
}
