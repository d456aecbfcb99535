import Foundation
import SluiceCore

/// Seed inputs for the fuzzers: statements of every kind the SQL core accepts, plus any
/// sqllogictest files given with `--corpus`.
enum FuzzCorpus {
    static let setup = [
        "CREATE TABLE t1 (a int, b varchar, c double precision, d timestamp, e numeric(10,2))",
        "CREATE TABLE t2 (k bigint PRIMARY KEY, a int, s string, flag boolean, at timestamptz, span interval, doc jsonb)",
        "INSERT INTO t1 VALUES (1, 'x', 1.5, '2024-01-01 10:00:00', 3.25), (2, NULL, -0.5, NULL, 100), (NULL, 'yy', 'NaN', '2024-02-29 23:59:59.999', NULL)",
        "INSERT INTO t2 VALUES (1, 1, 'a', true, '2024-01-01 00:00:00+00', '1 day', '{\"a\": 1}'), (2, 3, 'b', false, NULL, '-1 hour', '[1, 2]'), (3, NULL, NULL, NULL, '2023-12-31 23:00:00-05', NULL, NULL)",
    ]

    static let sqlStatements: [String] = setup + [
        "COPY t1 FROM STDIN WITH (FORMAT csv, HEADER true, FORCE_NULL (b), \"Delimiter\" ';')",
        "COPY t1 (a, b) TO STDOUT WITH CSV HEADER DELIMITER ';' FORCE QUOTE *",
        "COPY (SELECT a FROM t1 ORDER BY a) TO STDOUT (FORMAT text, NULL 'x', header)",
        "SELECT a, b FROM t1 WHERE a > 1 ORDER BY a DESC NULLS FIRST LIMIT 2 OFFSET 1",
        "SELECT b, count(*), sum(a), avg(c), min(d), max(e), string_agg(b, ',' ORDER BY a), bool_and(a > 0) FROM t1 GROUP BY b HAVING count(*) > 0",
        "SELECT t1.a, t2.s FROM t1 LEFT JOIN t2 ON t1.a = t2.a AND t2.flag FULL JOIN t1 AS t3 USING (a)",
        "SELECT * FROM t1 WHERE a IN (SELECT a FROM t2) AND NOT EXISTS (SELECT 1 FROM t2 WHERE t2.k = t1.a)",
        "SELECT (SELECT max(k) FROM t2), a IS DISTINCT FROM NULL, coalesce(b, 'z'), nullif(a, 1), CASE WHEN a = 0 THEN 0 ELSE 10 / a END FROM t1",
        "SELECT count(DISTINCT a) FILTER (WHERE a > 0) FROM t1 UNION ALL SELECT k FROM t2 EXCEPT SELECT 1",
        "WITH w AS (SELECT a, b FROM t1) SELECT * FROM w JOIN w AS v ON w.a = v.a",
        "SELECT upper(b), length(b), substr(b, 2, 1), trim(b), replace(b, 'x', 'y'), split_part(b, ',', 1), b || 'z' FROM t1",
        "SELECT abs(c), round(e, 1), floor(c), ceil(e), date_trunc('month', d), extract(epoch from d), to_timestamp(0), d + interval '1 day' FROM t1",
        "SELECT b LIKE '%y', b ILIKE 'Y_', b ~ '^x', a BETWEEN 0 AND 5, a::text, '12'::int, 1::numeric(5,2) / 3 FROM t1",
        "SELECT doc->'a', doc->>0, span * 2, at - interval '1 hour', s FROM t2 ORDER BY at",
        "SELECT unnest(ARRAY[1, 2, NULL]), generate_series(1, 3)",
        "SELECT * FROM generate_series(1, 5) g(x) WHERE x % 2 = 1",
        "VALUES (1, 'a'), (2, NULL)",
        "INSERT INTO t2 VALUES (1, 9, 'upsert', true, now(), '1 minute', 'null')",
        "INSERT INTO t1 SELECT a + 1, b, c, d, e FROM t1 WHERE a IS NOT NULL",
        "UPDATE t1 SET a = a * 2, b = upper(b) WHERE a < (SELECT avg(a) FROM t1)",
        "DELETE FROM t2 WHERE k IN (SELECT a FROM t1)",
        "SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace WHERE c.relname OPERATOR(pg_catalog.~) '^(t1)$' COLLATE pg_catalog.default",
        "SELECT a.attname, pg_catalog.format_type(a.atttypid, a.atttypmod) FROM pg_catalog.pg_attribute a WHERE a.attrelid = 't1'::regclass AND a.attnum > 0",
        "SELECT table_name, column_name, data_type FROM information_schema.columns ORDER BY 1, 2",
        "SHOW TABLES", "DESCRIBE t2", "SHOW timezone", "SET application_name = 'fuzz'", "BEGIN", "COMMIT", "ROLLBACK",
        "SELECT 2147483647 + 1", "SELECT 1 / 0", "SELECT 'abc'::int", "SELECT -9223372036854775808 / -1",
        "EXPLAIN SELECT a FROM t1 WHERE a = 1", "DROP TABLE IF EXISTS nope CASCADE",
    ]

    /// The statements of every `.slt` file under `directory`.
    static func statements(fromSLTUnder directory: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: directory) else { return [] }
        var result: [String] = []
        for case let path as String in enumerator where path.hasSuffix(".slt") {
            guard let text = try? String(contentsOfFile: directory + "/" + path, encoding: .utf8) else { continue }
            var current: [String]? = nil
            for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("statement") || line.hasPrefix("query") {
                    current = []
                } else if line == "----" || line.trimmingCharacters(in: .whitespaces).isEmpty {
                    if let statement = current, !statement.isEmpty { result.append(statement.joined(separator: "\n")) }
                    current = nil
                } else if current != nil {
                    current!.append(String(line))
                }
            }
            if let statement = current, !statement.isEmpty { result.append(statement.joined(separator: "\n")) }
        }
        return result
    }

    /// A statement for the engine: a seed, often mutated at the token level.
    static func engineStatement(random: inout SplitMix64, seeds: [String]) -> String {
        let seed = seeds[random.next(below: seeds.count)]
        if random.next(below: 4) == 0 { return seed }
        return String(decoding: Mutator.mutate(Array(seed.utf8), seeds: seeds, random: &random), as: UTF8.self)
    }
}
