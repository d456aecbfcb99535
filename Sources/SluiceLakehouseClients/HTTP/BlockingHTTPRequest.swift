import NIOCore
import SluiceCore
import SluiceLakehouse
import SluiceNet

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
    package func send() throws(SluiceError) -> (status: Int, body: [UInt8]) {
        do {
            // A body past the bound (the shared client's, 64 MiB) fails the request rather than
            // growing without end.
            let request = try HTTPClientRequest(method: method, url: url, headers: headers, body: body)
            let response = try IcebergRESTCatalogClient.sharedHTTPClient.execute(request, deadline: NIODeadline.now() + HTTPClient.timeAmount(timeout)).wait()
            return (response.status, response.body)
        } catch {
            throw SluiceError(.unableToEstablishConnection, URLCredentials.masking(in: "HTTP request \(method) \(url) failed: \(error)"))
        }
    }
}
