import Foundation
import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL
import Testing

@testable import SluicePlanner

/// The planner's shapes as goldens: each case of `Goldens/*.golden` is a statement, and the
/// EXPLAIN lines it must give, over the schema of `Goldens/schema.sql`. The expected plans were
/// read and checked by hand once (each optimizer rule and stream shape does what its case says);
/// a change to a rule that changes a plan shows here, to be reviewed the same way.
///
/// A case is `-- name` on its own line, the statement, `----`, then the expected lines up to a
/// blank line. `SLUICE_GOLDEN_SHOW=1` prints what each case gives instead of failing silently.
@Suite struct ExplainGoldenTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Goldens")

    struct Case: CustomStringConvertible {
        var file: String
        var name: String
        var sql: String
        var expected: [String]
        var description: String { "\(file): \(name)" }
    }

    static func cases() -> [Case] {
        let files = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        var cases: [Case] = []
        for file in files.sorted() where file.hasSuffix(".golden") {
            guard let text = try? String(contentsOf: directory.appendingPathComponent(file), encoding: .utf8) else { continue }
            for block in text.components(separatedBy: "\n\n") where block.hasPrefix("-- ") {
                let lines = block.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
                guard let divider = lines.firstIndex(of: "----") else { continue }
                cases.append(Case(
                    file: file, name: String(lines[0].dropFirst(3)), sql: lines[1 ..< divider].joined(separator: "\n"),
                    expected: lines[(divider + 1)...].filter { !$0.isEmpty }))
            }
        }
        return cases
    }

    /// A catalog holding the relations `Goldens/schema.sql` creates.
    static func catalog() throws -> Catalog {
        let catalog = Catalog()
        let schema = try String(contentsOf: directory.appendingPathComponent("schema.sql"), encoding: .utf8)
        for statement in try SQLParser.parse(schema) {
            var binder = Binder(catalog: catalog, session: SessionInfo(user: "root", database: "dev"))
            switch try binder.bind(statement) {
            case .createTable(var relation, _), .createSource(var relation), .createMaterializedView(var relation, _), .createView(var relation, _):
                relation.id = catalog.allocateID()
                try catalog.add(relation)
            default:
                throw SluiceError.internalError("schema.sql may only create relations: \(statement.sourceText)")
            }
        }
        return catalog
    }

    @Test func theGoldensHaveCases() {
        #expect(Self.cases().count >= 20)
    }

    @Test(arguments: ExplainGoldenTests.cases())
    func planIsTheGolden(_ golden: Case) throws {
        let catalog = try Self.catalog()
        var binder = Binder(catalog: catalog, session: SessionInfo(user: "root", database: "dev"))
        binder.optimizer = Optimizer(foldingContext: EvaluationContext())
        guard case .explain(let lines) = try binder.bind(try SQLParser.parse(golden.sql)[0]) else {
            Issue.record("not an EXPLAIN: \(golden.sql)")
            return
        }
        if ProcessInfo.processInfo.environment["SLUICE_GOLDEN_SHOW"] == "1" {
            print("-- \(golden.name)\n\(golden.sql)\n----\n\(lines.joined(separator: "\n"))\n")
        }
        #expect(lines == golden.expected, "\(golden)")
    }
}
