import AsyncHTTPClient
import NIOCore
import SluiceCore

/// One HTTP request sent with the process's HTTP client, its answer waited for on the calling
/// thread: for callers off the event loops that need an answer before they go on (a connector's
/// thread looking up a schema registry, a CREATE checking one).
///
/// Never call it from an event loop: the wait would block the loop that serves the answer.
package struct BlockingHTTPRequest: Sendable {
    package var method: String
    package var url: String
    package var headers: [(name: String, value: String)]
    package var body: [UInt8]?
    package var timeout: Duration

    package init(method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8]? = nil, timeout: Duration = .seconds(10)) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// Sends the request and returns the status and body (at most 64 MiB).
    /// - Throws: `unableToEstablishConnection` when no answer comes (refused, timed out).
    package static let maximumBodyBytes = 64 << 20

    package func send() throws(SluiceError) -> (status: Int, body: [UInt8]) {
        do {
            var request = try HTTPClient.Request(url: url, method: .init(rawValue: method))
            request.headers.add(name: "User-Agent", value: "Sluice")
            for header in headers { request.headers.replaceOrAdd(name: header.name, value: header.value) }
            if let body { request.body = .bytes(body) }
            // A body past the bound fails the request rather than growing without end.
            let accumulator = ResponseAccumulator(request: request, maxBodySize: Self.maximumBodyBytes)
            let response = try IcebergRESTCatalogClient.sharedHTTPClient.execute(
                request: request, delegate: accumulator, deadline: NIODeadline.now() + TimeAmount(timeout)
            ).wait()
            return (Int(response.status.code), response.body.map { Array(buffer: $0) } ?? [])
        } catch {
            throw SluiceError(.unableToEstablishConnection, URLCredentials.masking(in: "HTTP request \(method) \(url) failed: \(error)"))
        }
    }
}
