import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL
import Testing

@testable import SluicePlanner

/// Stored stream plans (`StreamPlan+Storage.swift`): every view the goldens and a broad list
/// below bind to is written and read back as an equal plan, with the same fingerprint and
/// EXPLAIN lines, and written again to the same bytes (so functions come back with the same
/// origins, the values their kernels capture included).
@Suite struct StoredPlanTests {
    /// View and sink definitions over `Goldens/schema.sql`, one for each kind of node,
    /// expression and function origin.
    static let definitions: [String] = [
        "CREATE MATERIALIZED VIEW m AS SELECT s, count(*) AS n, count(v) AS c, sum(v) AS total, avg(v) AS mean, min(v) AS lo, max(s) AS hi FROM t GROUP BY s",
        "CREATE MATERIALIZED VIEW m AS SELECT s, bool_and(v > 0) AS a, bool_or(v < 0) AS o, bit_and(v) AS ba, string_agg(s, ',' ORDER BY k DESC) AS names FROM t GROUP BY s",
        "CREATE MATERIALIZED VIEW m AS SELECT s, count(DISTINCT v) AS d, sum(v) FILTER (WHERE v > 2) AS f, array_agg(k) AS ks FROM t GROUP BY s",
        "CREATE MATERIALIZED VIEW m AS SELECT s, stddev_samp(v) AS sd, var_pop(v) AS vp FROM t GROUP BY s",
        "CREATE MATERIALIZED VIEW m AS SELECT count(*) AS n, sum(amount) AS total FROM orders",
        "CREATE MATERIALIZED VIEW m AS SELECT t.k, u.w FROM t LEFT JOIN u ON t.k = u.k AND u.w > t.v",
        "CREATE MATERIALIZED VIEW m AS SELECT t.k, u.w FROM t FULL JOIN u ON t.k = u.k",
        "CREATE MATERIALIZED VIEW m AS SELECT c.region, sum(o.amount) AS total FROM orders o JOIN customers c ON o.customer = c.id GROUP BY c.region",
        "CREATE MATERIALIZED VIEW m AS SELECT k FROM t WHERE EXISTS (SELECT 1 FROM u WHERE u.k = t.k)",
        "CREATE MATERIALIZED VIEW m AS SELECT k FROM t WHERE NOT EXISTS (SELECT 1 FROM u WHERE u.k = t.k)",
        "CREATE MATERIALIZED VIEW m AS SELECT e.player, c.region FROM events e JOIN customers FOR SYSTEM_TIME AS OF PROCTIME() c ON e.score = c.id",
        "CREATE MATERIALIZED VIEW m AS SELECT a.page, a.at, b.who FROM clicks a JOIN clicks b ON a.page = b.page AND a.at BETWEEN b.at AND b.at + INTERVAL '1 MINUTE'",
        "CREATE MATERIALIZED VIEW m AS SELECT k FROM t UNION ALL SELECT k FROM u",
        "CREATE MATERIALIZED VIEW m AS SELECT page, window_start, window_end, count(*) AS n FROM TUMBLE(clicks, at, INTERVAL '1 MINUTE', INTERVAL '10 SECONDS') GROUP BY page, window_start, window_end",
        "CREATE MATERIALIZED VIEW m AS SELECT page, window_start, window_end, count(*) AS n FROM HOP(clicks, at, INTERVAL '5 SECONDS', INTERVAL '20 SECONDS') GROUP BY page, window_start, window_end",
        "CREATE MATERIALIZED VIEW m AS SELECT page, window_start, count(*) AS n FROM TUMBLE(clicks, at, INTERVAL '1 MINUTE') GROUP BY page, window_start EMIT ON WINDOW CLOSE",
        "CREATE MATERIALIZED VIEW m AS SELECT k, v FROM t ORDER BY v DESC, k LIMIT 10 OFFSET 2",
        "CREATE MATERIALIZED VIEW m AS SELECT player, score FROM (SELECT player, score, rank() OVER (PARTITION BY player ORDER BY score DESC) AS r FROM events) AS x WHERE r <= 2",
        "CREATE MATERIALIZED VIEW m AS SELECT player, score FROM (SELECT player, score, row_number() OVER (PARTITION BY player ORDER BY ts DESC) AS r FROM events) AS x WHERE r = 1",
        "CREATE MATERIALIZED VIEW m AS SELECT player, score, sum(score) OVER (PARTITION BY player ORDER BY ts ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS s3, lag(score, 2) OVER (PARTITION BY player ORDER BY ts) AS before FROM events",
        "CREATE MATERIALIZED VIEW m AS SELECT player, count(*) OVER (PARTITION BY player ORDER BY ts RANGE BETWEEN INTERVAL '1 HOUR' PRECEDING AND CURRENT ROW) AS recent, first_value(score) OVER (PARTITION BY player ORDER BY ts) AS first, row_number() OVER (PARTITION BY player ORDER BY ts) AS n FROM events",
        "CREATE MATERIALIZED VIEW m AS SELECT player, score FROM events WHERE ts > now() - INTERVAL '1 HOUR' AND ts <= now() + INTERVAL '1 MINUTE'",
        "CREATE MATERIALIZED VIEW m AS SELECT k, unnest(ARRAY[k, v]) AS x FROM t",
        "CREATE MATERIALIZED VIEW m AS SELECT t.k, x FROM t CROSS JOIN unnest(ARRAY[t.k, t.v]) AS x",
        "CREATE MATERIALIZED VIEW m AS SELECT * FROM generate_series(1, 10) AS g",
        "CREATE MATERIALIZED VIEW m AS SELECT * FROM (VALUES (1, 'a'), (2, 'b')) AS x(n, name)",
        "CREATE MATERIALIZED VIEW m AS SELECT k, CASE WHEN v > 10 THEN 'big' WHEN v > 5 THEN 'mid' ELSE 'small' END AS size, coalesce(s, 'none') AS name, v::varchar AS text, k::bigint * 2 AS twice, nullif(v, 0) AS nz, greatest(k, v) AS g FROM t",
        "CREATE MATERIALIZED VIEW m AS SELECT k, -v AS negative, abs(v) AS a, v % 3 AS r, v IS NULL AS missing, NOT (v > 1) AS small FROM t WHERE v IN (1, 2, 3) OR s NOT IN ('a', 'b') OR v IS DISTINCT FROM 3",
        "CREATE MATERIALIZED VIEW m AS SELECT k FROM t WHERE s LIKE 'a%' OR s ILIKE '%B' OR s NOT LIKE 'z_' OR s ~ '^x[0-9]+' OR s !~* 'y'",
        "CREATE MATERIALIZED VIEW m AS SELECT k, regexp_replace(s, 'a+', 'b', 'g') AS r, regexp_match(s, '(x)(y)') AS g, upper(s) AS u, length(s) AS n, substring(s from 2 for 3) AS part, s || '!' AS loud, concat(s, k) AS c FROM t",
        "CREATE MATERIALIZED VIEW m AS SELECT k, ('{\"a\": ' || v || '}')::jsonb -> 'a' AS a, ('{\"a\": ' || v || '}')::jsonb ->> 'a' AS b FROM t",
        "CREATE MATERIALIZED VIEW m AS SELECT k, e FROM t CROSS JOIN jsonb_array_elements(('[' || k || ', 2]')::jsonb) AS e",
        "CREATE MATERIALIZED VIEW m AS SELECT id, placed AT TIME ZONE 'America/New_York' AS local, date_trunc('day', placed) AS day, extract(hour from placed) AS hour, placed + INTERVAL '1 DAY' AS later, to_char(placed, 'YYYY-MM-DD') AS text FROM orders",
        "CREATE MATERIALIZED VIEW m AS SELECT id, amount * 1.5 AS more, round(amount, 2) AS rounded, amount::numeric(10,2) AS fixed, amount / 3 AS third FROM orders",
        "CREATE MATERIALIZED VIEW m AS SELECT k, ARRAY[k, v][1] AS first, cardinality(ARRAY[k]) AS n, array_to_string(ARRAY[s, s], '-') AS joined, (ARRAY[k, v, k])[2:3] AS slice FROM t",
        "CREATE MATERIALIZED VIEW m AS SELECT k FROM t WHERE v > ANY (ARRAY[1, 2]) AND v < ALL (ARRAY[10, 20])",
        "CREATE MATERIALIZED VIEW m AS SELECT s, v FROM t WHERE v > 2 ORDER BY v LIMIT 3",
        "CREATE MATERIALIZED VIEW m AS SELECT k, generate_series(1, v) AS n, generate_series(k, 10, 2) AS m FROM t",
        "CREATE MATERIALIZED VIEW m AS SELECT t.k, g FROM t CROSS JOIN generate_series(1, t.v) AS g",
        "CREATE MATERIALIZED VIEW m AS SELECT k, ROW(k, s) AS pair, (ROW(k, s)).f2 AS second FROM t",
        "CREATE MATERIALIZED VIEW m AS SELECT k, jsonb_build_object('k', k, 's', s, 'v', v) AS doc FROM t",
        "CREATE MATERIALIZED VIEW m AS SELECT k FROM t INTERSECT SELECT k FROM u",
        "CREATE MATERIALIZED VIEW m AS SELECT k FROM t EXCEPT ALL SELECT k FROM u",
        "CREATE MATERIALIZED VIEW m AS SELECT s, v, GROUPING(s, v) AS g, count(*) AS n FROM t GROUP BY GROUPING SETS ((s, v), (s), ())",
        "CREATE SINK k AS SELECT s, count(*) AS n FROM t GROUP BY s WITH (connector = 'blackhole')",
        "CREATE SINK k AS SELECT k, v FROM t WITH (connector = 'blackhole', type = 'upsert', primary_key = 'k', force_append_only = 'false')",
    ]

    /// Definitions whose plans hold a function made by the planner itself (a table function's
    /// rows as an array over columns, a system function that reads the catalog), which has no
    /// origin: they are not stored, and bound from their SQL at start.
    static let unstorable: [String] = [
        "CREATE MATERIALIZED VIEW m AS SELECT t.k, r FROM t CROSS JOIN range(1, t.v) AS r",
        "CREATE MATERIALIZED VIEW m AS SELECT k, pg_get_userbyid(k) AS owner FROM t",
    ]

    /// The golden cases that explain a materialized view or sink, without `EXPLAIN`.
    static func goldenDefinitions() -> [String] {
        ExplainGoldenTests.cases().compactMap { golden in
            guard golden.sql.hasPrefix("EXPLAIN CREATE MATERIALIZED VIEW") || golden.sql.hasPrefix("EXPLAIN CREATE SINK") else { return nil }
            return String(golden.sql.dropFirst("EXPLAIN ".count))
        }
    }

    /// The stream plan `sql` binds to over the goldens' schema.
    static func plan(_ sql: String) throws -> StreamPlan {
        var binder = Binder(catalog: try ExplainGoldenTests.catalog(), session: SessionInfo(user: "root", database: "dev"))
        binder.optimizer = Optimizer(foldingContext: EvaluationContext())
        switch try binder.bind(try SQLParser.parse(sql)[0]) {
        case .createMaterializedView(let relation, let plan), .createSink(let relation, let plan):
            #expect(relation.storedPlan == plan.storedText)
            return plan
        default:
            throw SluiceError.internalError("not a materialized view or sink: \(sql)")
        }
    }

    @Test func theGoldensHoldViews() {
        #expect(Self.goldenDefinitions().count >= 10)
    }

    @Test(arguments: StoredPlanTests.goldenDefinitions() + StoredPlanTests.definitions)
    func aStoredPlanReadsBackAsTheSamePlan(_ sql: String) throws {
        let plan = try Self.plan(sql)
        let bytes = try plan.storedBytes()
        let decoded = try StreamPlan(storedBytes: bytes)
        #expect(decoded == plan, "\(sql)")
        #expect(decoded.fingerprint == plan.fingerprint)
        #expect(decoded.explainLines == plan.explainLines)
        #expect(decoded.outputTypes == plan.outputTypes)
        #expect(decoded.streamKey == plan.streamKey)
        #expect(decoded.watermarkColumns == plan.watermarkColumns)
        #expect(decoded.isAppendOnly == plan.isAppendOnly)
        #expect(try decoded.storedBytes() == bytes, "\(sql): written again differently")
        #expect(try StreamPlan(storedText: try #require(plan.storedText)) == plan)
    }

    @Test func everyNodeTypeIsAmongTheStoredPlans() throws {
        var seen = Set<ObjectIdentifier>()
        func visit(_ plan: StreamPlan) {
            seen.insert(ObjectIdentifier(type(of: plan.node)))
            for input in plan.inputs { visit(input) }
        }
        for sql in Self.goldenDefinitions() + Self.definitions { visit(try Self.plan(sql)) }
        for nodeType in StreamPlan.nodeTypes {
            #expect(seen.contains(ObjectIdentifier(nodeType)), "no definition plans a \(nodeType)")
        }
    }

    @Test(arguments: StoredPlanTests.unstorable)
    func aPlanWithAFunctionWithoutOriginIsNotStored(_ sql: String) throws {
        let plan = try Self.plan(sql)
        #expect(plan.storedText == nil, "\(sql)")
        #expect(throws: SluiceError.self) { try plan.storedBytes() }
    }

    @Test func hopWindowsOfOtherSizesAreStoredApart() throws {
        // `hop_starts($1)` prints the same for any slide; the stored origin keeps the slide.
        let narrow = try Self.plan("CREATE MATERIALIZED VIEW m AS SELECT page, window_start FROM HOP(clicks, at, INTERVAL '5 SECONDS', INTERVAL '20 SECONDS')")
        let wide = try Self.plan("CREATE MATERIALIZED VIEW m AS SELECT page, window_start FROM HOP(clicks, at, INTERVAL '10 SECONDS', INTERVAL '20 SECONDS')")
        #expect(try narrow.storedBytes() != wide.storedBytes())
        #expect(try StreamPlan(storedBytes: try wide.storedBytes()).storedBytes() == wide.storedBytes())
    }

    @Test func groupingCallsOfOtherArgumentsAreStoredApart() throws {
        // `grouping($n)` prints the same for any arguments; the stored origin keeps the masks.
        func sql(_ arguments: String) -> String {
            "CREATE MATERIALIZED VIEW m AS SELECT s, v, GROUPING(\(arguments)) AS g FROM t GROUP BY GROUPING SETS ((s, v), (s))"
        }
        let first = try Self.plan(sql("s, v"))
        let second = try Self.plan(sql("v, s"))
        #expect(try first.storedBytes() != second.storedBytes())
    }

    @Test func anotherFormatVersionIsRefused() throws {
        var bytes = try Self.plan(Self.definitions[0]).storedBytes()
        bytes[2] = UInt8(StreamPlan.storageFormatVersion + 1)
        #expect(throws: SluiceError.self) { try StreamPlan(storedBytes: bytes) }
        do {
            _ = try StreamPlan(storedBytes: bytes)
        } catch {
            #expect(error.code == .featureNotSupported)
            #expect(error.message.contains("format version"))
        }
        #expect(throws: SluiceError.self) { try StreamPlan(storedBytes: Array("XP".utf8) + bytes.dropFirst(2)) }
        #expect(throws: SluiceError.self) { try StreamPlan(storedBytes: []) }
        #expect(throws: SluiceError.self) { try StreamPlan(storedText: "not base64!") }
    }

    @Test func everyTruncationThrows() throws {
        for sql in Self.definitions.prefix(12) {
            let bytes = try Self.plan(sql).storedBytes()
            for length in 0 ..< bytes.count {
                #expect(throws: SluiceError.self, "\(sql) cut to \(length) bytes") { try StreamPlan(storedBytes: Array(bytes.prefix(length))) }
            }
            #expect(throws: SluiceError.self) { try StreamPlan(storedBytes: bytes + [0]) }
        }
    }

    /// Random truncations, byte flips, deletions and duplications of real stored plans, from a
    /// fixed seed: each reads back as some plan or throws, never traps; what reads back can be
    /// printed, fingerprinted and written again.
    @Test func corruptedPlansThrowAndNeverTrap() throws {
        let encodings = try (Self.goldenDefinitions() + Self.definitions).map { sql in try Self.plan(sql).storedBytes() }
        var random = SplitMix64(seed: 0x5107_ED91_A115)
        var (thrown, read) = (0, 0)
        for _ in 0 ..< 20_000 {
            var bytes = encodings[random.next(below: encodings.count)]
            for _ in 0 ... random.next(below: 3) {
                switch random.next(below: 5) {
                case 0: ByteMutations.truncate(&bytes, random: &random)
                case 1, 2: ByteMutations.overwriteByte(&bytes, random: &random)
                case 3: ByteMutations.deleteRun(&bytes, upTo: 4, random: &random)
                default: ByteMutations.duplicateRun(&bytes, upTo: 8, random: &random)
                }
            }
            do {
                let plan = try StreamPlan(storedBytes: bytes)
                _ = (plan.fingerprint, plan.explainLines, plan.outputTypes, plan.streamKey, plan.watermarkColumns, plan.isAppendOnly)
                _ = try? plan.storedBytes()
                read += 1
            } catch {
                thrown += 1
            }
        }
        #expect(thrown > 10_000, "\(thrown) of 20000 corrupted plans threw, \(read) read back")
    }
}
