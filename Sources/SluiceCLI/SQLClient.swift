import Foundation
import SluiceCommandLine
import SluiceCore
import SluiceNet

/// `sluice sql --dialect flink`: Flink's SQL client of our own, in gateway mode. It speaks
/// Flink's SQL Gateway REST API to `sluice serve --flink-gateway-listen` (as Flink's
/// `sql-client.sh gateway --endpoint` does), at a `Flink SQL>` prompt or over a script (`-f`),
/// and answers as Flink's client does: `[INFO]` for statements, `[ERROR]` with the reason,
/// results as `SET 'sql-client.execution.result-mode'` says: `tableau` (the default here, as
/// this client is not full-screen) and `changelog` print each row with its change kind (`op`),
/// `table` prints the rows as a table holds them, without it.
struct SQLClient: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sql",
        abstract: "Flink's SQL client against Sluice's Flink SQL gateway: a Flink SQL> prompt, or a script with -f.",
        discussion: "Statements end with ';'. QUIT; or EXIT; ends the session. psql speaks Sluice's own dialect on port 4566.")

    @Option(help: "The SQL dialect the client speaks: flink.")
    var dialect = "flink"

    @Option(help: "The Flink SQL gateway's address (sluice serve --flink-gateway-listen).")
    var endpoint = "127.0.0.1:8083"

    @Option(name: NameSpecification([.customShort("f"), .long]), help: "Run the statements of this file, then exit.")
    var file: String?

    func run() async throws {
        guard dialect.lowercased() == "flink" else {
            throw ValidationError("--dialect takes flink (for Sluice's own dialect, use psql on port 4566)")
        }
        let client = FlinkGatewayConsole(endpoint: endpoint)
        try await client.open()
        var failed = false
        if let file {
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { throw ValidationError("cannot read \(file)") }
            // As Flink's client does with -f: the script stops at its first failed statement.
            for statement in FlinkStatementSplitter.split(text) {
                if try await !client.run(statement) {
                    failed = true
                    break
                }
                if client.quit { break }
            }
        } else {
            let interactive = isatty(0) != 0
            var splitter = FlinkStatementSplitter()
            if interactive { print("Flink SQL> ", terminator: "") }
            while let line = readLine(strippingNewline: false) {
                for statement in splitter.feed(line) {
                    if try await !client.run(statement) { failed = true }
                    if client.quit { break }
                    if interactive { print("") }
                }
                if client.quit { break }
                if interactive { print(splitter.isEmpty ? "Flink SQL> " : "> ", terminator: "") }
            }
        }
        await client.close()
        if failed && file != nil { throw ExitCode(1) }
    }
}

/// Cuts a script into statements at a `;` that ends a line, outside quotes and comments, as
/// Flink's SQL client does.
struct FlinkStatementSplitter {
    private var pending = ""

    var isEmpty: Bool { pending.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }

    static func split(_ text: String) -> [String] {
        var splitter = FlinkStatementSplitter()
        var statements: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) { statements += splitter.feed(String(line) + "\n") }
        if !splitter.isEmpty { statements.append(splitter.pending.trimmingCharacters(in: .whitespacesAndNewlines)) }
        return statements
    }

    /// The statements `line` completes.
    mutating func feed(_ line: String) -> [String] {
        pending += line
        var statements: [String] = []
        var quote: Character?
        var start = pending.startIndex
        var index = pending.startIndex
        var inComment = false
        while index < pending.endIndex {
            let character = pending[index]
            if inComment {
                if character == "\n" { inComment = false }
            } else if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "`" || character == "\"" {
                quote = character
            } else if character == "-", pending[index...].hasPrefix("--") {
                inComment = true
            } else if character == ";" {
                let rest = pending[pending.index(after: index)...]
                let lineEnd = rest.firstIndex(of: "\n") ?? rest.endIndex
                // Only a `;` that ends its line ends the statement.
                if rest[..<lineEnd].trimmingCharacters(in: .whitespaces).isEmpty {
                    let statement = pending[start ..< index].trimmingCharacters(in: .whitespacesAndNewlines)
                    if !Self.isOnlyComments(statement) { statements.append(statement + ";") }
                    start = pending.index(after: index)
                }
            }
            index = pending.index(after: index)
        }
        pending = String(pending[start...])
        return statements
    }

    private static func isOnlyComments(_ text: String) -> Bool {
        text.split(separator: "\n").allSatisfy { $0.trimmingCharacters(in: .whitespaces).isEmpty || $0.trimmingCharacters(in: .whitespaces).hasPrefix("--") }
    }
}

/// One gateway session, and how its answers are printed.
final class FlinkGatewayConsole {
    private let base: String
    private let http = HTTPClient(configuration: .init(connectTimeout: .seconds(5), readTimeout: .seconds(600)))
    private var session = ""
    private(set) var quit = false
    /// `sql-client.execution.result-mode`: `tableau`, `table` or `changelog`.
    private(set) var resultMode = "tableau"
    static let resultModeKey = "sql-client.execution.result-mode"

    init(endpoint: String) {
        base = endpoint.hasPrefix("http://") || endpoint.hasPrefix("https://") ? endpoint : "http://\(endpoint)"
    }

    func open() async throws {
        let answer = try await call("POST", "/v3/sessions", body: .object(["sessionName": .string("sluice sql")]))
        guard let handle = answer["sessionHandle"]?.stringValue else { throw ValidationError("the gateway at \(base) did not open a session") }
        session = handle
    }

    func close() async {
        _ = try? await call("DELETE", "/v3/sessions/\(session)")
        http.shutdown()
    }

    /// Runs one statement and prints what Flink's client prints; false when it failed.
    func run(_ statement: String) async throws -> Bool {
        let words = statement.uppercased().split(whereSeparator: { $0.isWhitespace || $0 == ";" }).map(String.init)
        switch words.first {
        case "QUIT"?, "EXIT"?:
            quit = true
            print("Shutting down the session...\ndone.")
            return true
        case "HELP"?:
            print(Self.help)
            return true
        case "CLEAR"?:
            return true
        default:
            break
        }
        let mode = Self.resultMode(setBy: statement)
        if let mode, !["tableau", "table", "changelog"].contains(mode) {
            print("[ERROR] Could not execute SQL statement. Reason:\njava.lang.IllegalArgumentException: Could not parse value '\(mode)' for key '\(Self.resultModeKey)'.")
            return false
        }
        do {
            let operation = try await call(
                "POST", "/v3/sessions/\(session)/statements", body: .object(["statement": .string(statement)]))["operationHandle"]?.stringValue ?? ""
            var columns: [(name: String, type: String)] = []
            var rows: [[String]] = []
            var kind = ""
            var isQuery = false
            var path = "/v3/sessions/\(session)/operations/\(operation)/result/0?rowFormat=JSON"
            while true {
                let page = try await call("GET", path)
                if kind.isEmpty, let resultKind = page["resultKind"]?.stringValue { kind = resultKind }
                if case .bool(true)? = page["isQueryResult"] { isQuery = true }
                if columns.isEmpty, case .array(let list)? = page["results"]?["columns"] {
                    columns = list.map { ($0["name"]?.stringValue ?? "", $0["logicalType"]?["type"]?.stringValue ?? "") }
                }
                if case .array(let data)? = page["results"]?["data"] {
                    for row in data {
                        guard case .array(let fields)? = row["fields"] else { continue }
                        rows.append((isQuery ? [Self.opText(row["kind"]?.stringValue)] : []) + fields.map(Self.text))
                    }
                }
                guard let next = page["nextResultUri"]?.stringValue else { break }
                if page["resultType"]?.stringValue == "NOT_READY" { try await Task.sleep(for: .milliseconds(10)) }
                path = next
            }
            _ = try? await call("DELETE", "/v3/sessions/\(session)/operations/\(operation)/close")
            if let mode { resultMode = mode }
            if words.first == "RESET", words.count == 1 || statement.contains(Self.resultModeKey) { resultMode = "tableau" }
            if isQuery && resultMode == "table" {
                // The rows as the result table holds them: no change kinds.
                print(Self.render(statement: words, kind: kind, isQuery: false, columns: columns, rows: rows.map { Array($0.dropFirst()) }))
            } else {
                print(Self.render(statement: words, kind: kind, isQuery: isQuery, columns: columns, rows: rows))
            }
            return true
        } catch let failure as GatewayFailure {
            print("[ERROR] Could not execute SQL statement. Reason:\n\(failure.reason)")
            return false
        }
    }

    /// The result mode `statement` sets (`SET 'sql-client.execution.result-mode' = 'x'`), lower
    /// case; nil when it sets none.
    static func resultMode(setBy statement: String) -> String? {
        let parts = statement.split(separator: "'", omittingEmptySubsequences: false)
        guard statement.trimmingCharacters(in: .whitespaces).uppercased().hasPrefix("SET"), parts.count >= 4,
              parts[1] == resultModeKey, parts[2].trimmingCharacters(in: .whitespaces) == "="
        else { return nil }
        return parts[3].lowercased()
    }

    struct GatewayFailure: Error {
        var reason: String
    }

    private func call(_ method: String, _ path: String, body: JSONDocument? = nil) async throws -> JSONDocument {
        var headers: [(name: String, value: String)] = []
        if body != nil { headers.append(("content-type", "application/json")) }
        let request = try HTTPClientRequest(method: method, url: base + path, headers: headers, body: body?.bytes)
        let response: HTTPClientResponse
        do {
            response = try await http.execute(request)
        } catch {
            throw ValidationError("could not reach the Flink SQL gateway at \(base): \(error) (is sluice serve running?)")
        }
        let document = (try? JSONDocument.parse(response.body)) ?? .null
        guard response.status == 200 else {
            var reason = "the gateway answered \(response.status)"
            if case .array(let errors)? = document["errors"], let last = errors.last?.stringValue {
                // The server side's cause, as Flink's client shows it.
                reason = last.components(separatedBy: "\n").first { $0.hasPrefix("Caused by: ") }.map { String($0.dropFirst("Caused by: ".count)) } ?? last
            }
            throw GatewayFailure(reason: reason)
        }
        return document
    }

    static func opText(_ kind: String?) -> String {
        switch kind {
        case "UPDATE_BEFORE"?: "-U"
        case "UPDATE_AFTER"?: "+U"
        case "DELETE"?: "-D"
        default: "+I"
        }
    }

    static func text(_ value: JSONDocument) -> String {
        switch value {
        case .null: "<NULL>"
        case .string(let text): text
        case .bool(let flag): flag ? "TRUE" : "FALSE"
        default: value.text
        }
    }

    /// What Flink's client prints for a statement's result: `[INFO]` for one without rows; a
    /// query's rows in tableau form, each with its changelog kind (`op`) as a streaming query's
    /// are; other rows (SHOW's) in a table without it.
    static func render(statement words: [String], kind: String, isQuery: Bool, columns: [(name: String, type: String)], rows: [[String]]) -> String {
        if kind == "SUCCESS" {
            if words.first == "SET" || words.first == "RESET" { return "[INFO] Execute statement succeeded." }
            if words.first == "INSERT" || (words.first == "CREATE" && words.contains("AS") && words.contains("SELECT")) {
                return "[INFO] Submitting SQL update statement to the cluster...\n[INFO] SQL update statement has been successfully submitted to the cluster."
            }
            return "[INFO] Execute statement succeeded."
        }
        if rows.isEmpty { return "Empty set" }
        // The tableau form: op first for a query (the changelog's kind), fields right-aligned.
        let header = (isQuery ? ["op"] : []) + columns.map(\.name)
        var widths = header.map(\.count)
        for row in rows {
            for (index, field) in row.enumerated() where index < widths.count { widths[index] = max(widths[index], field.count) }
        }
        let rule = "+" + widths.map { String(repeating: "-", count: $0 + 2) }.joined(separator: "+") + "+"
        func line(_ fields: [String]) -> String {
            "|" + fields.enumerated().map { index, field in
                " " + String(repeating: " ", count: max(0, widths[index] - field.count)) + field + " "
            }.joined(separator: "|") + "|"
        }
        var out = [rule, line(header), rule]
        for row in rows { out.append(line(row)) }
        out.append(rule)
        out.append(isQuery ? "Received a total of \(rows.count) row\(rows.count == 1 ? "" : "s")" : "\(rows.count) row\(rows.count == 1 ? "" : "s") in set")
        return out.joined(separator: "\n")
    }

    static let help = """
        The following commands are available:

        CLEAR\t\tClears the current terminal.
        HELP\t\tPrints the available commands.
        QUIT/EXIT\tQuits the SQL CLI client.
        SET\t\tSets a session configuration property. Syntax: "SET '<key>'='<value>';". Use "SET;" for listing all properties.
        RESET\t\tResets a session configuration property. Syntax: "RESET '<key>';". Use "RESET;" for reset all session properties.
        SHOW JOBS\tShows the jobs (sinks and materialized views).
        STOP JOB\tStops a job. Syntax: "STOP JOB '<job id>';".

        Hint: Make sure that a statement ends with ";" for finalizing (multi-line) statements.
        """
}
