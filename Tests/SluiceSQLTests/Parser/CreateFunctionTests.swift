import SluiceCore
import Testing

@testable import SluiceSQL

@Suite struct CreateFunctionTests {
    @Test func returnFormWithNamedParameter() throws {
        let statement = try parseOne("CREATE FUNCTION f(a INT) RETURNS INT LANGUAGE SQL RETURN a + 1;")
        guard case .createFunction(let create) = statement.kind else { Issue.record("not CREATE FUNCTION: \(statement)"); return }
        #expect(create.name == ObjectName("f"))
        #expect(!create.orReplace)
        #expect(create.parameters == [FunctionParameter(name: "a", type: TypeName("int"))])
        #expect(create.returnType == TypeName("int"))
        #expect(create.language == "sql")
        #expect(create.body == .returnExpression(Expression(.binary(column("a"), .plus, integer(1)))))
    }

    @Test func optionsInAnyOrderAndUnnamedParameters() throws {
        let statement = try parseOne(
            "create or replace function public.add(int, double precision) returns double precision as $$ select $1 + $2 $$ immutable language sql returns null on null input")
        guard case .createFunction(let create) = statement.kind else { Issue.record("not CREATE FUNCTION: \(statement)"); return }
        #expect(create.orReplace)
        #expect(create.name == ObjectName(["public", "add"]))
        #expect(create.parameters.map(\.name) == [nil, nil])
        #expect(create.parameters.map(\.type) == [TypeName("int"), TypeName("double precision")])
        #expect(create.body == .string(" select $1 + $2 "))
        #expect(create.volatility == .immutable)
        #expect(create.isStrict == true)
    }

    @Test func calledOnNullInputAndStable() throws {
        guard case .createFunction(let create) = try parseOne("CREATE FUNCTION g(x varchar) LANGUAGE SQL STABLE CALLED ON NULL INPUT RETURNS varchar AS 'select x'").kind
        else { Issue.record("not CREATE FUNCTION"); return }
        #expect(create.isStrict == false)
        #expect(create.volatility == .stable)
        #expect(create.parameters == [FunctionParameter(name: "x", type: TypeName("varchar"))])
    }

    @Test func missingPartsAreErrors() {
        #expect(parseError("CREATE FUNCTION f(a int) LANGUAGE SQL RETURN a")?.code == .invalidFunctionDefinition)
        #expect(parseError("CREATE FUNCTION f(a int) RETURNS int LANGUAGE SQL")?.code == .invalidFunctionDefinition)
        #expect(parseError("CREATE FUNCTION f(a int) RETURNS int RETURNS int LANGUAGE SQL RETURN a")?.code == .syntaxError)
        #expect(parseError("CREATE FUNCTION f(OUT a int) RETURNS int LANGUAGE SQL RETURN 1")?.code == .featureNotSupported)
        #expect(parseError("CREATE FUNCTION f(a int RETURNS int LANGUAGE SQL RETURN a")?.code == .syntaxError)
    }

    @Test func dropFunctionWithAndWithoutTypes() throws {
        guard case .dropFunction(let drop) = try parseOne("DROP FUNCTION IF EXISTS f(int, a text), s.g, h() CASCADE").kind else {
            Issue.record("not DROP FUNCTION")
            return
        }
        #expect(drop.ifExists && drop.cascade)
        #expect(
            drop.targets == [
                DropFunction.Target(name: ObjectName("f"), parameterTypes: [TypeName("int"), TypeName("text")]),
                DropFunction.Target(name: ObjectName(["s", "g"])),
                DropFunction.Target(name: ObjectName("h"), parameterTypes: []),
            ])
        guard case .dropFunction(let restrict) = try parseOne("drop function f restrict").kind else { Issue.record("not DROP FUNCTION"); return }
        #expect(!restrict.cascade)
    }

    @Test(arguments: [
        "CREATE FUNCTION f(a integer) RETURNS integer LANGUAGE SQL RETURN a + 1",
        "CREATE OR REPLACE FUNCTION s.f(integer, b double precision) RETURNS double precision LANGUAGE SQL IMMUTABLE RETURNS NULL ON NULL INPUT AS 'select $1 + b'",
        "CREATE FUNCTION g() RETURNS varchar LANGUAGE SQL CALLED ON NULL INPUT AS 'select ''it''''s'''",
        "CREATE FUNCTION h(x int[]) RETURNS int LANGUAGE SQL STABLE RETURN x[1]",
        "DROP FUNCTION IF EXISTS f(integer), g, h() CASCADE",
    ])
    func roundTrips(sql: String) throws {
        let statement = try parseOne(sql)
        let printed = statement.description
        #expect(try SQLParser.parse(printed) == [statement], "printed: \(printed)")
        #expect(try SQLParser.parse(printed).first?.description == printed)
    }

    @Test func printsInPostgresOrder() throws {
        #expect(
            try parseOne("create function f(a int) language sql as 'select a' returns int immutable").description
                == "CREATE FUNCTION f(a int) RETURNS int LANGUAGE SQL IMMUTABLE AS 'select a'")
    }
}
