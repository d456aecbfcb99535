import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL
import Testing

@testable import SluicePlanner

/// Binding of SQL functions: CREATE checks the body, calls inline it.
@Suite struct SQLFunctionTests {
    private func bind(_ sql: String, _ catalog: Catalog) throws -> PlannedStatement {
        var binder = Binder(catalog: catalog, session: SessionInfo(user: "root", database: "dev"))
        return try binder.bindUnoptimized(try SQLParser.parse(sql)[0])
    }

    /// Binds and adds each CREATE FUNCTION, as the server's handler does.
    private func create(_ sqls: String..., in catalog: Catalog) throws {
        for sql in sqls {
            guard case .createFunction(let function, _) = try bind(sql, catalog) else {
                Issue.record("not CREATE FUNCTION: \(sql)")
                return
            }
            try catalog.addFunction(function)
        }
    }

    /// The expressions of a `SELECT` without FROM.
    private func selected(_ sql: String, _ catalog: Catalog) throws -> [ScalarExpr] {
        guard case .query(let plan, _) = try bind(sql, catalog), case .project(_, let expressions) = plan else {
            Issue.record("not a projection: \(sql)")
            return []
        }
        return expressions
    }

    private func code(_ sql: String, _ catalog: Catalog) -> SQLState? {
        do {
            _ = try bind(sql, catalog)
            return nil
        } catch let error as SluiceError {
            return error.code
        } catch {
            return nil
        }
    }

    @Test func createBindsTheBodyAndKeepsTypes() throws {
        let catalog = Catalog()
        guard case .createFunction(let function, let replacing) = try bind("CREATE FUNCTION f(a INT, b bigint) RETURNS numeric LANGUAGE SQL AS 'SELECT a + $2'", catalog)
        else { Issue.record("not CREATE FUNCTION"); return }
        #expect(!replacing)
        #expect(function.parameterNames == ["a", "b"])
        #expect(function.parameterTypes == [.int32, .int64])
        #expect(function.returnType == .decimal(precision: nil, scale: nil))
        #expect(function.body == "SELECT a + $2")
        // RETURN expr is kept as SELECT expr.
        guard case .createFunction(let returning, _) = try bind("CREATE FUNCTION g(a INT) RETURNS INT LANGUAGE SQL RETURN (a + 1) * 2", catalog)
        else { Issue.record("not CREATE FUNCTION"); return }
        #expect(returning.body == "SELECT (a + 1) * 2")
    }

    @Test func callIsInlinedWithArgumentsCastToParameterTypes() throws {
        let catalog = Catalog()
        try create("CREATE FUNCTION add1(a INT) RETURNS INT LANGUAGE SQL RETURN a + 1", in: catalog)
        // A smallint argument is widened to the parameter's integer; a literal folds whole.
        let expressions = try selected("SELECT add1(2::smallint), add1(41)", catalog)
        #expect(expressions.map(\.type) == [.int32, .int32])
        #expect(expressions[1] == .literal(.int32(42), .int32))
    }

    @Test func nestedFunctionsAndStrictness() throws {
        let catalog = Catalog()
        try create(
            "CREATE FUNCTION add1(a INT) RETURNS INT LANGUAGE SQL RETURN a + 1",
            "CREATE FUNCTION twice(a INT) RETURNS bigint LANGUAGE SQL RETURNS NULL ON NULL INPUT RETURN add1(a) * 2", in: catalog)
        let twice = catalog.functions(named: "twice", schema: "public")[0]
        #expect(twice.dependencies == [catalog.functions(named: "add1", schema: "public")[0].id])
        #expect(try selected("SELECT twice(4)", catalog) == [.literal(.int64(10), .int64)])
        #expect(try selected("SELECT twice(NULL)", catalog) == [.literal(.null, .int64)])
        guard case .caseWhen = try selected("SELECT twice(a) FROM (VALUES (1)) AS v (a)", catalog)[0] else {
            Issue.record("a strict function's call is not guarded")
            return
        }
    }

    @Test func overloadsResolveAsPostgres() throws {
        let catalog = Catalog()
        try create(
            "CREATE FUNCTION f(a INT) RETURNS varchar LANGUAGE SQL RETURN 'int'",
            "CREATE FUNCTION f(a varchar) RETURNS varchar LANGUAGE SQL RETURN 'text'",
            "CREATE FUNCTION f(a double precision) RETURNS varchar LANGUAGE SQL RETURN 'double'", in: catalog)
        // (A smallint fits both integer and double precision by implicit cast: PostgreSQL takes
        // double precision, its numeric category's preferred type.)
        #expect(try selected("SELECT f(1), f('x'), f(1.5), f(2::smallint), f(3::bigint)", catalog) == ["int", "text", "double", "double", "double"].map {
            .literal(.string($0), .varchar)
        })
    }

    @Test func errorsHaveTheirSQLStates() throws {
        let catalog = Catalog()
        try create("CREATE FUNCTION f(a INT) RETURNS INT LANGUAGE SQL RETURN a", in: catalog)
        #expect(code("SELECT f('x'::varchar)", catalog) == .undefinedFunction)
        #expect(code("SELECT f(1.5)", catalog) == .undefinedFunction)
        #expect(code("CREATE FUNCTION f(b INT) RETURNS INT LANGUAGE SQL RETURN b", catalog) == .duplicateFunction)
        #expect(code("CREATE FUNCTION abs(a INT) RETURNS INT LANGUAGE SQL RETURN a", catalog) == .duplicateFunction)
        #expect(code("CREATE FUNCTION g(a INT) RETURNS INT LANGUAGE SQL RETURN b", catalog) == .undefinedColumn)
        #expect(code("CREATE FUNCTION g(a INT) RETURNS INT LANGUAGE SQL RETURN $2", catalog) == .undefinedParameter)
        #expect(code("CREATE FUNCTION g(a INT) RETURNS INT LANGUAGE SQL RETURN 'x'::varchar", catalog) == .invalidFunctionDefinition)
        #expect(code("CREATE FUNCTION g(a INT) RETURNS INT LANGUAGE SQL AS 'SELECT a FROM t'", catalog) == .featureNotSupported)
        #expect(code("CREATE FUNCTION g(a INT) RETURNS INT LANGUAGE python AS 'x'", catalog) == .featureNotSupported)
        #expect(code("CREATE FUNCTION g(a INT) RETURNS INT LANGUAGE SQL AS 'SELECT a FROM'", catalog) == .syntaxError)
        #expect(code("CREATE FUNCTION g(a INT) RETURNS INT LANGUAGE SQL AS 'a +'", catalog) == .syntaxError)
        #expect(code("CREATE FUNCTION g(a INT) RETURNS INT LANGUAGE SQL AS 'SELECT 1; SELECT 2'", catalog) == .featureNotSupported)
        #expect(code("CREATE FUNCTION g(a INT) RETURNS bigint LANGUAGE SQL RETURN sum(a)", catalog) == .groupingError)
        #expect(code("CREATE FUNCTION g(a INT) RETURNS INT LANGUAGE SQL RETURN (SELECT max(x) FROM t)", catalog) == .featureNotSupported)
        #expect(code("CREATE FUNCTION g(a INT, a INT) RETURNS INT LANGUAGE SQL RETURN 1", catalog) == .invalidFunctionDefinition)
        #expect(code("CREATE OR REPLACE FUNCTION f(a INT) RETURNS bigint LANGUAGE SQL RETURN a", catalog) == .invalidFunctionDefinition)
        #expect(code("DROP FUNCTION nope", catalog) == .undefinedFunction)
        #expect(code("DROP FUNCTION f(bigint)", catalog) == .undefinedFunction)
    }

    @Test func recursionIsRefusedAtCreate() throws {
        let catalog = Catalog()
        try create("CREATE FUNCTION f(a INT) RETURNS INT LANGUAGE SQL RETURN a", "CREATE FUNCTION g(a INT) RETURNS INT LANGUAGE SQL RETURN f(a) + 1", in: catalog)
        #expect(code("CREATE OR REPLACE FUNCTION f(a INT) RETURNS INT LANGUAGE SQL RETURN f(a)", catalog) == .invalidFunctionDefinition)
        #expect(code("CREATE OR REPLACE FUNCTION f(a INT) RETURNS INT LANGUAGE SQL RETURN g(a)", catalog) == .invalidFunctionDefinition)
        // Not yet there: the call names nothing.
        #expect(code("CREATE FUNCTION h(a INT) RETURNS INT LANGUAGE SQL RETURN h(a)", catalog) == .undefinedFunction)
    }

    @Test func dropNeedsTypesWhenOverloadedAndNamesCallers() throws {
        let catalog = Catalog()
        try create(
            "CREATE FUNCTION f(a INT) RETURNS INT LANGUAGE SQL RETURN a",
            "CREATE FUNCTION f(a bigint) RETURNS bigint LANGUAGE SQL RETURN a",
            "CREATE FUNCTION g(a INT) RETURNS INT LANGUAGE SQL RETURN f(a)", in: catalog)
        #expect(code("DROP FUNCTION f", catalog) == .ambiguousFunction)
        #expect(code("DROP FUNCTION f(int)", catalog) == .dependentObjectsStillExist)
        guard case .dropFunctions(let functions, let relations) = try bind("DROP FUNCTION f(int) CASCADE", catalog) else {
            Issue.record("not DROP FUNCTION")
            return
        }
        #expect(Set(functions.map(\.name)) == ["f", "g"] && relations.isEmpty)
        guard case .dropFunctions(let only, _) = try bind("DROP FUNCTION f(bigint)", catalog) else { Issue.record("not DROP FUNCTION"); return }
        #expect(only.map(\.parameterTypes) == [[.int64]])
    }

    @Test func deepAndExplodingNestingIsBounded() throws {
        let catalog = Catalog()
        try create("CREATE FUNCTION n0(a INT) RETURNS INT LANGUAGE SQL RETURN a", in: catalog)
        // Each level calls the one below twice: 2^20 inlined calls at level 20.
        var level = 1
        var refused: SQLState?
        while level <= 20 && refused == nil {
            let sql = "CREATE FUNCTION n\(level)(a INT) RETURNS INT LANGUAGE SQL RETURN n\(level - 1)(a) + n\(level - 1)(a)"
            refused = code(sql, catalog)
            if refused == nil { try create(sql, in: catalog) }
            level += 1
        }
        #expect(refused == .statementTooComplex)
        // A chain deeper than the limit.
        try create("CREATE FUNCTION c0(a INT) RETURNS INT LANGUAGE SQL RETURN a", in: catalog)
        var chainRefused: SQLState?
        for depth in 1...40 where chainRefused == nil {
            let sql = "CREATE FUNCTION c\(depth)(a INT) RETURNS INT LANGUAGE SQL RETURN c\(depth - 1)(a) + 1"
            chainRefused = code(sql, catalog)
            if chainRefused == nil { try create(sql, in: catalog) }
        }
        #expect(chainRefused == .statementTooComplex)
    }
}
