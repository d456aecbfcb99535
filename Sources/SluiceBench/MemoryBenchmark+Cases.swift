import Foundation
import SluiceCore
import SluiceGen

extension MemoryBenchmark {
    /// One statement that `sluice bench memory` measures against `big` of N rows (N a multiple
    /// of 6): `id` is 1…N, `k` is `id % (N/3)` (N/3 values, each three times), `v` is
    /// `id * 7 - 3` and `s` is `'str' || id % (N/2) || 'xxxxxxxxxx'` (N/2 values, each twice).
    package enum Case: String, CaseIterable, Sendable {
        /// `INSERT INTO big SELECT … FROM generate_series(1, N)` into an empty table.
        case insert
        /// `\copy big FROM` a text file of the same N rows, into an empty table.
        case copy
        /// A GROUP BY view over `big` (`agg`), backfilled from the loaded table.
        case mv
        /// A GROUP BY view over `agg` (`agg2`), on a server where `agg` was made beforehand.
        case viewOnView = "view-on-view"
        /// A view joining `big` with `other` (N/3 rows, one per `k`).
        case joinView = "join-view"
        /// `SELECT count(DISTINCT s) FROM big`.
        case distinct
        /// The most frequent `k`: a GROUP BY, a sort and a LIMIT.
        case topN = "top-n"
        /// A window function over `big` as one partition: a sum over each row and the two before.
        case window
        /// `UPDATE big SET v = v + 1 WHERE id <= N/6`.
        case update
        /// `DELETE FROM big WHERE id % 6 = 0`.
        case delete
    }

    /// The data directory a case's server starts from.
    enum Start {
        /// A new directory; `big` is created (empty) before the idle baseline is read.
        case empty
        /// A copy of the prepared one: `big` with N rows and `other` with N/3.
        case loaded
        /// A copy of the prepared one in which `agg` was made too.
        case withAggregate
    }

    /// `big`'s definition, as `sluice bench copy` has it.
    static let bigDefinition = "big (id bigint PRIMARY KEY, k bigint, v bigint, s varchar)"

    /// The `agg` view: one row per `k`, its count named `n`.
    static let aggregateView = "CREATE MATERIALIZED VIEW agg AS SELECT k, count(*) AS n, sum(v), max(v), min(s) FROM big GROUP BY k"

    /// `INSERT … SELECT` of `big`'s rows `first`…`last`.
    static func insertStatement(rows: Int, from first: Int, through last: Int) -> String {
        "INSERT INTO big SELECT g, g % \(rows / 3), g * 7 - 3, 'str' || (g % \(rows / 2)) || 'xxxxxxxxxx' FROM generate_series(\(first), \(last)) g"
    }

    /// What makes the prepared directory: `big` loaded a million rows a statement (so that no
    /// statement of the preparation is one of the measured ones), then `other`.
    static func preparation(rows: Int) -> [String] {
        var statements = ["CREATE TABLE \(bigDefinition)", "CREATE TABLE other (k bigint PRIMARY KEY, w bigint)"]
        for first in stride(from: 1, through: rows, by: 1_000_000) {
            statements.append(insertStatement(rows: rows, from: first, through: min(rows, first + 999_999)))
        }
        statements.append("INSERT INTO other SELECT g, g * 11 FROM generate_series(0, \(rows / 3 - 1)) g")
        return statements
    }

    /// Writes `big`'s N rows in COPY's text format to `path`; returns its size in bytes.
    static func writeCopyFile(rows: Int, to path: String) throws -> Int {
        let output = try CopyDataFile.Output(path: path)
        let writer = output.writer
        for id in 1 ... rows {
            writer.appendDecimal(id)
            writer.append(UInt8(ascii: "\t"))
            writer.appendDecimal(id % (rows / 3))
            writer.append(UInt8(ascii: "\t"))
            writer.appendDecimal(id * 7 - 3)
            writer.append("\tstr")
            writer.appendDecimal(id % (rows / 2))
            writer.append("xxxxxxxxxx\n")
            if writer.count >= 1 << 20 { try output.flush() }
        }
        return try output.finish().bytes
    }
}

extension MemoryBenchmark.Case {
    /// The name printed at the start of the case's line.
    var label: String { rawValue.padding(toLength: 13, withPad: " ", startingAt: 0) }

    var start: MemoryBenchmark.Start {
        switch self {
        case .insert, .copy: .empty
        case .viewOnView: .withAggregate
        case .mv, .joinView, .distinct, .topN, .window, .update, .delete: .loaded
        }
    }

    /// The measured statement, as psql's `-c` takes it.
    func statement(rows: Int, copyFile: String) -> String {
        switch self {
        case .insert: MemoryBenchmark.insertStatement(rows: rows, from: 1, through: rows)
        case .copy: "\\copy big FROM '\(copyFile)'"
        case .mv: MemoryBenchmark.aggregateView
        case .viewOnView: "CREATE MATERIALIZED VIEW agg2 AS SELECT n, count(*) AS c FROM agg GROUP BY n"
        case .joinView: "CREATE MATERIALIZED VIEW j AS SELECT b.id, b.v, o.w FROM big b JOIN other o ON b.k = o.k"
        case .distinct: "SELECT count(DISTINCT s) FROM big"
        case .topN: "SELECT k, count(*) AS n FROM big GROUP BY k ORDER BY n DESC, k LIMIT 1"
        case .window: "SELECT sum(w) FROM (SELECT sum(v) OVER (ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS w FROM big) t"
        case .update: "UPDATE big SET v = v + 1 WHERE id <= \(rows / 6)"
        case .delete: "DELETE FROM big WHERE id % 6 = 0"
        }
    }

    /// What psql prints for the statement (unaligned, tuples only): its command tag, or the
    /// query's one row.
    func answer(rows: Int) -> String {
        switch self {
        case .insert: "INSERT 0 \(rows)"
        case .copy: "COPY \(rows)"
        case .mv, .viewOnView, .joinView: "CREATE_MATERIALIZED_VIEW"
        case .distinct: "\(rows / 2)"
        case .topN: "0|3"
        // Each v is in the frames of its row and the two after, but the last two rows' values
        // in only one and two: 3 × sum(v) − 2 v(N) − v(N−1), with v(id) = 7 id − 3.
        case .window: "\(3 * (7 * rows * (rows + 1) / 2 - 3 * rows) - 2 * (7 * rows - 3) - (7 * rows - 10))"
        case .update: "UPDATE \(rows / 6)"
        case .delete: "DELETE \(rows / 6)"
        }
    }

    /// A query run after the peak is read, and its answer, showing the statement did its work.
    func check(rows: Int) -> (query: String, answer: String)? {
        let keys = rows / 3
        switch self {
        case .insert, .copy: return ("SELECT count(*), sum(v) FROM big", "\(rows)|\(7 * rows * (rows + 1) / 2 - 3 * rows)")
        case .mv: return ("SELECT count(*), sum(n) FROM agg", "\(keys)|\(rows)")
        case .viewOnView: return ("SELECT n, c FROM agg2", "3|\(keys)")
        // Every row of big meets its k's row of other, whose w is 11 k; each k is in three rows.
        case .joinView: return ("SELECT count(*), sum(w) FROM j", "\(rows)|\(33 * keys * (keys - 1) / 2)")
        case .distinct, .topN, .window: return nil
        case .update: return ("SELECT count(*) FROM big WHERE v = id * 7 - 2", "\(rows / 6)")
        case .delete: return ("SELECT count(*), min(id % 6), max(id % 6) FROM big", "\(rows - rows / 6)|1|5")
        }
    }

    /// The rows a second are of the rows the statement takes in: those it writes for the
    /// table's statements, those it reads for views and queries (`agg`'s for view-on-view).
    func rowsTaken(rows: Int) -> Int {
        switch self {
        case .insert, .copy, .mv, .joinView, .distinct, .topN, .window: rows
        case .viewOnView: rows / 3
        case .update, .delete: rows / 6
        }
    }
}
