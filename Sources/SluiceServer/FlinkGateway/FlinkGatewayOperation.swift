import Foundation
import Synchronization
import SluiceCore
import SluiceFormats
import SluiceNet
import SluicePGWire

/// One statement submitted to the gateway: it runs once, then its result is read page by page.
///
/// Flink's tokens: page `n` may be fetched again until page `n + 1` is asked for, which drops it;
/// any other token is refused. The rows not yet fetched stay in the statement's result stream,
/// so an operation holds about a page of rows whatever the result's size.
final class FlinkGatewayOperation: Sendable {
    enum Status: String {
        case running = "RUNNING"
        case finished = "FINISHED"
        case error = "ERROR"
        case canceled = "CANCELED"
        case closed = "CLOSED"
    }

    /// What a finished statement produced, for the pages to describe.
    struct Outcome: Sendable {
        var columns: [PGColumn]
        /// Whether it returned rows of its own (`SUCCESS_WITH_CONTENT`) or only "OK" (`SUCCESS`).
        var hasContent: Bool
        var isQuery: Bool
        var jobID: String?
    }

    /// A page as served: its rows' JSON (`{"kind":"INSERT","fields":[…]}` joined by commas),
    /// and whether more may follow (`PAYLOAD` with a next token) or the result ended (`EOS`).
    struct Page: Sendable {
        var rows: [UInt8]
        var isEnd: Bool
        var isReady = true
    }

    let handle: String
    private struct State {
        var status = Status.running
        var task: Task<Void, Never>?
        var error: SluiceError?
        var outcome: Outcome?
        /// Who waits for the statement to stop running, by a number of their own.
        var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
        var nextWaiter = 0
    }
    private let state = Mutex(State())

    /// The unread rows and the last page served (fetches of one operation take turns here).
    private struct Reader: @unchecked Sendable {
        var pending: [Chunk] = []
        var stream: PGRowStream?
        var encoder: RowTextEncoder?
        var served: (token: Int, page: Page)?
        var ended = false
        var okPending = false
    }
    private let reader = Mutex(Reader())

    init(handle: String) {
        self.handle = handle
    }

    var status: Status { state.withLock { $0.status } }
    var outcome: Outcome? { state.withLock { $0.outcome } }
    var error: SluiceError? { state.withLock { $0.error } }

    func attach(_ task: Task<Void, Never>) {
        let finishedAlready = state.withLock { state in
            state.task = task
            return state.status != .running
        }
        if finishedAlready, status == .canceled || status == .closed { task.cancel() }
    }

    /// Runs the statement in `sql` and keeps its result (or its error).
    func run(_ statement: String, in sql: SQLSession) async {
        do throws(SluiceError) {
            let prepared = try await sql.prepare(statement, parameterTypes: [])
            guard prepared.count == 1, let only = prepared.first else {
                throw SluiceError(.syntaxError, prepared.isEmpty ? "Non-query expression encountered in illegal context: the statement is empty"
                    : "Only a single statement is supported at a time, but there are \(prepared.count).")
            }
            let result = try await sql.execute(only, parameters: [])
            if let copyIn = result.copyIn {
                copyIn.failed()
                throw SluiceError(.featureNotSupported, "COPY … FROM STDIN is not supported through the SQL gateway")
            }
            guard result.copyOut == nil else { throw SluiceError(.featureNotSupported, "COPY … TO STDOUT is not supported through the SQL gateway") }
            finish(result)
        } catch {
            fail(error)
        }
    }

    private func finish(_ result: PGStatementResult) {
        let columns = result.columns ?? []
        let isQuery = result.columns != nil && (result.commandTag.hasPrefix("SELECT") || result.commandTag.hasPrefix("VALUES"))
        let outcome = Outcome(
            columns: columns.isEmpty ? [PGColumn(name: "result", type: .varchar)] : columns, hasContent: result.columns != nil,
            isQuery: isQuery, jobID: isQuery ? UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased() : nil)
        reader.withLock { reader in
            reader.pending = result.chunks
            reader.stream = result.stream
            reader.okPending = result.columns == nil
            if result.columns != nil {
                let lines = JSONArrayLines(open: #"{"kind":"INSERT","fields":["#, close: "]}", terminator: UInt8(ascii: ","))
                reader.encoder = RowTextEncoder(kind: .jsonArray(lines), columnNames: columns.map(\.name))
            }
        }
        settle { state in
            state.outcome = outcome
            state.status = .finished
        }
    }

    private func fail(_ error: SluiceError) {
        settle { state in
            state.error = error
            state.status = .error
        }
    }

    /// Ends a running statement as `body` says (nothing when it was cancelled or closed
    /// meanwhile), and wakes whoever waits for it.
    private func settle(_ body: (inout State) -> Void) {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            if state.status == .running { body(&state) }
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the statement no longer runs, or after `limit`: a short statement's first
    /// status is then its last, sparing its client a round of polling.
    func waitWhileRunning(upTo limit: Duration) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ticket = state.withLock { state -> Int? in
                guard state.status == .running else { return nil }
                state.nextWaiter += 1
                state.waiters[state.nextWaiter] = continuation
                return state.nextWaiter
            }
            guard let ticket else { return continuation.resume() }
            Task { [weak self] in
                try? await Task.sleep(for: limit)
                self?.state.withLock { $0.waiters.removeValue(forKey: ticket) }?.resume()
            }
        }
    }

    /// Stops the statement if it still runs; its result is gone.
    func cancel() {
        end(as: .canceled)
    }

    func close() {
        end(as: .closed)
    }

    private func end(as status: Status) {
        let (task, waiters) = state.withLock { state -> (Task<Void, Never>?, [CheckedContinuation<Void, Never>]) in
            if status == .closed || state.status == .running || state.status == .finished { state.status = status }
            defer { state.waiters.removeAll() }
            return (state.task, Array(state.waiters.values))
        }
        task?.cancel()
        for waiter in waiters { waiter.resume() }
        release()
    }

    /// Drops the unread rows now, unless a fetch is reading them: a cancel never waits for a
    /// page (the fetch's next call sees the status; the rows go with the operation).
    private func release() {
        reader.withLockIfAvailable { reader in
            reader.pending = []
            reader.stream = nil
            reader.served = nil
            reader.ended = true
        }
    }

    /// Page `token`: the one served last again, or the next one.
    func page(_ token: Int) throws(FlinkGatewayError) -> Page {
        switch status {
        case .running: return Page(rows: [], isEnd: false, isReady: false)
        case .error:
            throw FlinkGatewayError(status: .internalServerError, FlinkGatewayResponses.exceptionText(error ?? SluiceError(.internalError, "failed"), operation: handle))
        case .canceled, .closed:
            throw FlinkGatewayError(status: .internalServerError, "Can not fetch results from the operation \(handle) in status \(status.rawValue).")
        case .finished: break
        }
        return try reader.withLock { (reader) throws(FlinkGatewayError) -> Page in
            if let served = reader.served, served.token == token { return served.page }
            let expected = (reader.served?.token ?? -1) + 1
            guard token == expected else {
                throw FlinkGatewayError(
                    status: .badRequest, "Expecting token to be \(max(expected - 1, 0)) or \(expected), but found \(token).")
            }
            let page: Page
            do throws(SluiceError) {
                page = try Self.nextPage(&reader)
            } catch {
                throw FlinkGatewayError(status: .internalServerError, FlinkGatewayResponses.exceptionText(error, operation: handle))
            }
            reader.served = (token, page)
            return page
        }
    }

    private static func nextPage(_ reader: inout Reader) throws(SluiceError) -> Page {
        if reader.okPending {
            reader.okPending = false
            return Page(rows: Array(#"{"kind":"INSERT","fields":["OK"]}"#.utf8), isEnd: false)
        }
        guard !reader.ended, var encoder = reader.encoder else { return Page(rows: [], isEnd: true) }
        var rows: [UInt8] = []
        var count = 0
        while count < FlinkGateway.pageRows && rows.count < FlinkGateway.pageBytes {
            let chunk: Chunk
            if !reader.pending.isEmpty {
                chunk = reader.pending.removeFirst()
            } else if let next = try reader.stream?.next() {
                chunk = next
            } else {
                reader.ended = true
                break
            }
            guard chunk.count > 0 else { continue }
            if count + chunk.count > FlinkGateway.pageRows && count > 0 {
                // The rest of this chunk starts the next page.
                let room = FlinkGateway.pageRows - count
                encoder.append(chunk.slice(0 ..< room), to: &rows)
                reader.pending.insert(chunk.slice(room ..< chunk.count), at: 0)
                count += room
                break
            }
            encoder.append(chunk, to: &rows)
            count += chunk.count
        }
        reader.encoder = encoder
        if rows.last == UInt8(ascii: ",") { rows.removeLast() }
        return Page(rows: rows, isEnd: count == 0 && reader.ended)
    }
}
