import SluiceCore
import Testing

@testable import SluiceSQL

@Suite struct StatementTests {
    @Test(arguments: Corpus.all)
    func corpusParses(sql: String) throws {
        #expect(try SQLParser.parse(sql).count == 1)
    }

    @Test func emptyInputGivesNoStatements() throws {
        #expect(try SQLParser.parse("").isEmpty)
        #expect(try SQLParser.parse(" ;; -- nothing\n /* here */ ;").isEmpty)
    }

    @Test func splitsStatementsAndKeepsTheirText() throws {
        let statements = try SQLParser.parse("SELECT 1;  FLUSH ;\nselect 'a;b'")
        #expect(statements.map(\.sourceText) == ["SELECT 1", "FLUSH", "select 'a;b'"])
        #expect(statements.map(\.position.value) == [1, 12, 20])
    }

    @Test func createSourceFromSeed() throws {
        let statement = try parseOne(Corpus.seeds[0])
        guard case .createSource(let source) = statement.kind else {
            Issue.record("not a source")
            return
        }
        #expect(source.ifNotExists)
        #expect(source.name == ObjectName("balloon_game_events"))
        #expect(source.columns.map(\.name) == ["player", "balloon_color", "score", "page_id", "favorite_color_bonus", "event_ts"])
        #expect(try source.columns.map { try $0.type?.resolvedDataType() } == [.varchar, .varchar, .int32, .int32, .boolean, .timestamptz])
        #expect(source.options.map(\.key) == ["connector", "topic", "properties.bootstrap.server", "scan.startup.mode"])
        #expect(source.options.map(\.value.text) == ["kafka", "t", "localhost:9092", "latest"])
        #expect(source.format == FormatEncode(format: "PLAIN", encode: "JSON"))
    }

    @Test func createMaterializedViewKeepsQueryText() throws {
        let statement = try parseOne(Corpus.seeds[2] + ";")
        guard case .createView(let view) = statement.kind else {
            Issue.record("not a view")
            return
        }
        #expect(view.isMaterialized && view.ifNotExists)
        #expect(view.queryText.hasPrefix("SELECT player, sum(score)"))
        #expect(view.queryText.hasSuffix("GROUP BY player, window_start, window_end"))
        guard case .select(let select) = view.query.body, case .function(let call, _, _, _, _) = select.from.first else {
            Issue.record("no table function")
            return
        }
        #expect(call.name == ObjectName("tumble"))
        #expect(call.arguments.count == 3)
        #expect(call.arguments[2].node == .interval("15 SECONDS", nil))
    }

    @Test func createSinkFromSeed() throws {
        guard case .createSink(let sink) = try parseOne(Corpus.seeds[3]).kind else {
            Issue.record("not a sink")
            return
        }
        #expect(sink.input == .relation(ObjectName("mv_leaderboard")))
        #expect(sink.options.first { $0.key == "s3.path.style.access" }?.value == .string("true"))
        #expect(sink.options.first { $0.key == "type" }?.value == .string("append-only"))
    }

    @Test func flinkCreateTable() throws {
        guard case .createTable(let table) = try parseOne(Corpus.seeds[8]).kind else {
            Issue.record("not a table")
            return
        }
        #expect(table.name == ObjectName(["kafka_catalog", "payments_db", "payment_charges"]))
        #expect(table.columns.map(\.name) == ["event_id", "amount", "metadata", "3ds_authenticated", "created_at"])
        #expect(try table.columns[1].type?.resolvedDataType() == .decimal(precision: 10, scale: 2))
        #expect(
            try table.columns[2].type?.resolvedDataType()
                == .structure([StructField(name: "order_id", type: .varchar), StructField(name: "user_email", type: .varchar)]))
        #expect(table.columns[4].type?.modifiers == [3])
        #expect(table.watermarks.map(\.column) == ["created_at"])
        #expect(table.watermarks.first?.expression.description == "created_at - INTERVAL '5' SECOND")
        #expect(table.options.map(\.key) == ["connector", "format"])
    }

    @Test func dropAndShowAndSet() throws {
        #expect(try parseOne(Corpus.seeds[4]).kind == .drop(Drop(objectType: .source, ifExists: true, names: [ObjectName("user_events")], cascade: true)))
        #expect(try parseOne("SHOW TRANSACTION ISOLATION LEVEL").kind == .show(.variable("transaction_isolation")))
        #expect(try parseOne("show search_path").kind == .show(.variable("search_path")))
        #expect(try parseOne("SHOW CREATE MATERIALIZED VIEW s.mv").kind == .show(.create(.materializedView, ObjectName(["s", "mv"]))))
        #expect(try parseOne("SET extra_float_digits = 3").kind == .setVariable(SetVariable(name: "extra_float_digits", value: .values(["3"]))))
        #expect(try parseOne("SET TIME ZONE 'UTC'").kind == .setVariable(SetVariable(name: "timezone", value: .values(["UTC"]))))
        #expect(try parseOne("SET search_path TO public, \"$user\"").kind == .setVariable(SetVariable(name: "search_path", value: .values(["public", "$user"]))))
        #expect(try parseOne("RESET ALL").kind == .reset("all"))
        // Flink's spellings: a quoted configuration key, and the bare forms.
        #expect(try parseOne("SET 'execution.checkpointing.interval' = '10s'").kind
            == .setVariable(SetVariable(name: "execution.checkpointing.interval", value: .values(["10s"]))))
        #expect(try parseOne("SET 'Pipeline.Name' = 'x';").kind == .setVariable(SetVariable(name: "Pipeline.Name", value: .values(["x"]))))
        #expect(try parseOne("SET").kind == .show(.all))
        #expect(try parseOne("RESET 'execution.checkpointing.interval'").kind == .reset("execution.checkpointing.interval"))
        #expect(try parseOne("RESET;").kind == .reset("all"))
        #expect(throws: SluiceError.self) { try parseOne("SET 'a.b' 'c'") }
        #expect(throws: SluiceError.self) { try parseOne("SET 'a.b' = 10") }
        #expect(try parseOne("BEGIN READ ONLY").kind == .begin(["read only"]))
        #expect(try parseOne("START TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ WRITE").kind == .begin(["isolation level repeatable read", "read write"]))
    }

    @Test func explainWrapsAStatement() throws {
        guard case .explain(let explain) = try parseOne("EXPLAIN (verbose, trace) CREATE MATERIALIZED VIEW m AS SELECT 1").kind else {
            Issue.record("not explain")
            return
        }
        #expect(explain.options == [ExplainOption(name: "verbose"), ExplainOption(name: "trace")])
        #expect(explain.statement.sourceText == "CREATE MATERIALIZED VIEW m AS SELECT 1")
        guard case .createView(let view) = explain.statement.kind else {
            Issue.record("not a view")
            return
        }
        #expect(view.queryText == "SELECT 1")
    }

    @Test func insertUpdateDelete() throws {
        guard case .insert(let insert) = try parseOne("INSERT INTO s.t (a, b) VALUES (1, DEFAULT) RETURNING a AS x").kind else {
            Issue.record("not insert")
            return
        }
        #expect(insert.table == ObjectName(["s", "t"]))
        #expect(insert.columns == ["a", "b"])
        #expect(insert.source?.body == .values([[integer(1), Expression(.defaultValue)]]))
        #expect(insert.returning == [.expression(column("a"), alias: "x")])
        guard case .update(let update) = try parseOne("UPDATE t SET a = 1 WHERE b").kind else {
            Issue.record("not update")
            return
        }
        #expect(update.assignments == [Assignment(column: "a", value: integer(1))])
        #expect(update.filter == column("b"))
        #expect(try parseOne("DELETE FROM t WHERE a = 1").kind == .delete(Delete(table: ObjectName("t"), filter: Expression(.binary(column("a"), .equal, integer(1))))))
    }

    @Test func alterParsesGenerically() throws {
        #expect(try parseOne("ALTER TABLE t ADD COLUMN x int").kind == .alter(objectType: "TABLE", name: ObjectName("t")))
    }

    @Test func selectStructure() throws {
        let query = try parseQuery("SELECT t.*, a AS b, c d, * FROM t WHERE x GROUP BY a HAVING count(*) > 1 ORDER BY 1 LIMIT 2")
        guard case .select(let select) = query.body else {
            Issue.record("not a select")
            return
        }
        #expect(select.projection == [
            .wildcard(qualifier: ["t"], position: .none), .expression(column("a"), alias: "b"), .expression(column("c"), alias: "d"),
            .wildcard(qualifier: [], position: .none),
        ])
        #expect(select.from == [.table(ObjectName("t"), alias: nil, position: .none)])
        #expect(select.groupBy == [column("a")])
        #expect(query.limit == integer(2))
        #expect(query.orderBy == [OrderByItem(expression: integer(1))])
    }

    @Test func joinsNestLeftToRight() throws {
        let query = try parseQuery("SELECT * FROM a JOIN b ON TRUE LEFT JOIN c USING (x)")
        guard case .select(let select) = query.body, case .join(let outer) = select.from.first, case .join(let inner) = outer.left else {
            Issue.record("unexpected shape")
            return
        }
        #expect(outer.kind == .left)
        #expect(outer.condition == .using(["x"]))
        #expect(inner.kind == .inner)
    }
}
