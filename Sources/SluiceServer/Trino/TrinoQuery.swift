import Dispatch
import SluiceCore
import SluicePGWire
import Synchronization

/// What running a statement gave: rows to page, an update, a `USE`, or an error.
enum TrinoOutcome: Sendable {
    case rows(columns: [(name: String, type: DataType)], chunks: [Chunk], stream: PGRowStream?)
    case update(type: String, count: Int?)
    case use(TrinoSessionNames)
    /// `PREPARE`: the client is to keep the statement under its name.
    case prepared(name: String, statement: String)
    /// `DEALLOCATE PREPARE`: the client is to forget it.
    case deallocated(name: String)
    case failed(TrinoError)
}

/// One query of Trino's client protocol: its statement runs in the background from the POST;
/// each GET of its `nextUri` (token 1, 2, …) takes the next page of rows, at most about
/// ``pageBytes`` of JSON, pulled from the result's stream as it is asked for, so a result of
/// any size holds about a page in memory. A GET of the token just served answers the same page
/// again (a client's retry). A DELETE, or no GET for a while (``TrinoQueries``), cancels it.
final class TrinoQuery: Sendable {
    let id: String
    /// A random part of the `nextUri`: only who got it can page the query.
    let slug: String
    let session: SQLSession
    private let execution: Task<TrinoOutcome, Never>
    private let cursor = Mutex<Cursor>(Cursor())
    /// When a client last asked (`DispatchTime` nanoseconds), for dropping abandoned queries.
    private let touched = Atomic<UInt64>(DispatchTime.now().uptimeNanoseconds)

    /// A page's JSON grows to about this before it is sent.
    static let pageBytes = 1 << 20

    /// The paging state: what was served last, and the rows not yet sent.
    private struct Cursor {
        var outcome: TrinoOutcome?
        var servedToken = 0
        var lastPage: TrinoPage?
        var pending: [Chunk] = []
        var pendingIndex = 0
        var isFinished = false
    }

    init(id: String, slug: String, session: SQLSession, run: @escaping @Sendable () async -> TrinoOutcome) {
        self.id = id
        self.slug = slug
        self.session = session
        execution = Task { await run() }
    }

    /// QUEUED until the first page is asked for, then RUNNING (a query whose last page went
    /// out is no longer kept).
    var state: String { cursor.withLock { $0.servedToken == 0 ? "QUEUED" : "RUNNING" } }

    var lastTouched: UInt64 { touched.load(ordering: .relaxed) }

    func touch() {
        touched.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
    }

    /// Stops the statement and any rows still to come.
    func cancel() {
        session.cancel()
        execution.cancel()
        cursor.withLock { cursor in
            cursor.pending = []
            cursor.outcome = nil
            cursor.isFinished = true
        }
    }

    /// The answer to the POST: the first page when the statement ends within `wait` (a trivial
    /// statement then takes one round trip, not two), else ``queuedPage(_:)``.
    func firstPage(_ uris: TrinoURIs, waiting wait: Duration) async -> TrinoPage {
        let execution = execution
        let endedInTime = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let resumed = OnceFlag()
            let finish: @Sendable (Bool) -> Void = { ended in
                if resumed.set() { continuation.resume(returning: ended) }
            }
            Task {
                _ = await execution.value
                finish(true)
            }
            Task {
                try? await Task.sleep(for: wait)
                finish(false)
            }
        }
        if endedInTime, let page = await page(1, uris) { return page }
        return queuedPage(uris)
    }

    /// The query is queued, its first page is token 1.
    func queuedPage(_ uris: TrinoURIs) -> TrinoPage {
        var page = TrinoQueryResults(id: id, infoURI: uris.info(id))
        page.nextURI = uris.next(id, slug, token: 1)
        page.state = "QUEUED"
        return TrinoPage(body: page.encoded(), hasNext: true)
    }

    /// The page of `token`: the next one, or the last one again; nil for any other token.
    func page(_ token: Int, _ uris: TrinoURIs) async -> TrinoPage? {
        touch()
        // The wait for a page does not count against the client: the clock starts once it is out.
        defer { touch() }
        let outcome = await execution.value
        return cursor.withLock { cursor -> TrinoPage? in
            if token == cursor.servedToken, let last = cursor.lastPage { return last }
            guard token == cursor.servedToken + 1, !cursor.isFinished || cursor.outcome != nil else { return nil }
            if cursor.outcome == nil, !cursor.isFinished {
                cursor.outcome = outcome
                if case .rows(_, let chunks, _) = outcome { cursor.pending = chunks }
            }
            let page = Self.nextPage(&cursor, token: token, id: id, slug: slug, uris)
            cursor.servedToken = token
            cursor.lastPage = page
            return page
        }
    }

    private static func nextPage(_ cursor: inout Cursor, token: Int, id: String, slug: String, _ uris: TrinoURIs) -> TrinoPage {
        var results = TrinoQueryResults(id: id, infoURI: uris.info(id))
        var headers: [(String, String)] = []
        switch cursor.outcome {
        case nil:
            results.error = TrinoError(name: "USER_CANCELED", code: 3, message: "Query was canceled", sqlState: "57014")
            results.state = "FAILED"
        case .failed(let error)?:
            results.error = error
            results.state = "FAILED"
        case .update(let type, let count)?:
            results.updateType = type
            results.updateCount = count
        case .use(let names)?:
            results.updateType = "USE"
            for prefix in ["X-Trino-", "X-Presto-"] {
                if let catalog = names.catalog { headers.append((prefix + "Set-Catalog", catalog)) }
                if let schema = names.schema { headers.append((prefix + "Set-Schema", schema)) }
            }
        case .prepared(let name, let statement)?:
            results.updateType = "PREPARE"
            for prefix in ["X-Trino-", "X-Presto-"] { headers.append((prefix + "Added-Prepare", name + "=" + TrinoPreparedStatements.encode(statement))) }
        case .deallocated(let name)?:
            results.updateType = "DEALLOCATE"
            for prefix in ["X-Trino-", "X-Presto-"] { headers.append((prefix + "Deallocated-Prepare", name)) }
        case .rows(let columns, _, let stream)?:
            results.columns = columns
            var data = TrinoJSONWriter(reservingCapacity: pageBytes + (pageBytes >> 3))
            data.byte("[")
            var rowCount = 0
            do throws(SluiceError) {
                // (A stream that ended is not asked again.)
                while !cursor.isFinished, data.bytes.count < pageBytes {
                    let chunk: Chunk
                    if cursor.pendingIndex < cursor.pending.count {
                        chunk = cursor.pending[cursor.pendingIndex]
                        cursor.pendingIndex += 1
                    } else if let next = try stream?.next() {
                        chunk = next
                    } else {
                        cursor.isFinished = true
                        break
                    }
                    writeRows(chunk, rowCount: &rowCount, to: &data)
                }
                data.byte("]")
                if rowCount > 0 { results.data = data.bytes }
                if !cursor.isFinished {
                    results.nextURI = uris.next(id, slug, token: token + 1)
                    results.state = "RUNNING"
                }
            } catch {
                results.error = TrinoError(error)
                results.state = "FAILED"
                cursor.isFinished = true
            }
            if cursor.isFinished { cursor.pending = [] }
            return TrinoPage(body: results.encoded(), headers: headers, hasNext: results.nextURI != nil)
        }
        cursor.isFinished = true
        cursor.pending = []
        return TrinoPage(body: results.encoded(), headers: headers)
    }

    /// Appends a chunk's rows to `data`'s array, each as a JSON array of values.
    private static func writeRows(_ chunk: Chunk, rowCount: inout Int, to data: inout TrinoJSONWriter) {
        let writers = chunk.columns.map(TrinoColumnWriter.init)
        for rowIndex in 0 ..< chunk.count {
            if rowCount > 0 { data.byte(",") }
            data.byte("[")
            for columnIndex in writers.indices {
                if columnIndex > 0 { data.byte(",") }
                writers[columnIndex].write(rowIndex, to: &data)
            }
            data.byte("]")
            rowCount += 1
        }
    }
}

/// An answer's JSON body and its extra headers (`X-Trino-Set-Catalog` after `USE`).
struct TrinoPage: Sendable {
    var body: [UInt8]
    var headers: [(String, String)] = []
    /// Whether it gives a `nextUri`: else the query is over.
    var hasNext = false
}

/// The addresses a QueryResults gives, on the host the client reached.
struct TrinoURIs: Sendable {
    /// `http://host:port`
    var base: String

    func next(_ id: String, _ slug: String, token: Int) -> String {
        "\(base)/v1/statement/executing/\(id)/\(slug)/\(token)"
    }

    func info(_ id: String) -> String {
        "\(base)/ui/query.html?\(id)"
    }
}

/// Set once, from any thread: the first ``set()`` returns true.
private final class OnceFlag: Sendable {
    private let isSet = Atomic<Bool>(false)

    func set() -> Bool {
        isSet.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
    }
}
