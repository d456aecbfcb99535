import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL
import Testing

@testable import SluicePlanner

/// ORDER BY … LIMIT becomes a bounded top-N in batch queries, above a GROUP BY, a join or a
/// scan, with the select list computed above it; a sort without a limit, a limit without a
/// sort and views keep their plans. The EXPLAIN texts were checked by hand.
@Suite struct TopNSelectionTests {
    func explain(_ sql: String) throws -> String {
        let catalog = Catalog()
        for (name, columns) in [("t", ["k", "v", "s"]), ("u", ["k", "w"])] {
            let types: [DataType] = columns.map { $0 == "s" ? .varchar : .int64 }
            try catalog.add(RelationDefinition(
                id: catalog.allocateID(), name: name, kind: .table,
                columns: zip(columns, types).map { CatalogColumn(name: $0, type: $1) }, definition: ""))
        }
        var binder = Binder(catalog: catalog, session: SessionInfo(user: "root", database: "dev"))
        binder.optimizer = Optimizer(foldingContext: EvaluationContext())
        guard case .query(let plan, _) = try binder.bind(try SQLParser.parse(sql)[0]) else { throw SluiceError.internalError("not a query") }
        return plan.description
    }

    @Test func aLimitOverASortAboveAGroupByIsATopN() throws {
        #expect(try explain("SELECT k, count(*) AS n FROM t GROUP BY k ORDER BY n DESC, k LIMIT 1") == """
            BatchTopN { order: [$1 DESC, $0 ASC], limit: 1, offset: 0 }
              └─BatchProject { exprs: [$0, $1] }
                └─BatchHashAgg { group_key: [0], aggs: [count(*)] }
                  └─BatchProject { exprs: [$0] }
                    └─BatchScan { table: t, columns: [0] }
            """)
    }

    /// The select list (without the sort key) is computed over the top-N's rows.
    @Test func theSelectListGoesAboveTheTopN() throws {
        #expect(try explain("SELECT s FROM t ORDER BY v DESC LIMIT 5 OFFSET 2") == """
            BatchProject { exprs: [$0] }
              └─BatchTopN { order: [$1 DESC], limit: 5, offset: 2 }
                └─BatchProject { exprs: [$1, $0] }
                  └─BatchScan { table: t, columns: [1, 2] }
            """)
    }

    @Test func aTopNAboveAJoinAndInASubquery() throws {
        #expect(try explain("SELECT t.s, u.w FROM t JOIN u ON t.k = u.k ORDER BY u.w LIMIT 10") == """
            BatchTopN { order: [$1 ASC], limit: 10, offset: 0 }
              └─BatchProject { exprs: [$1, $3] }
                └─BatchHashJoin { type: inner, left_keys: [0], right_keys: [0] }
                  └─BatchScan { table: t, columns: [0, 2] }
                  └─BatchScan { table: u, columns: [0, 1] }
            """)
        #expect(try explain("SELECT * FROM (SELECT k FROM t ORDER BY k LIMIT 3) AS top WHERE k > 1") == """
            BatchProject { exprs: [$0] }
              └─BatchFilter { predicate: >($0, 1) }
                └─BatchTopN { order: [$0 ASC], limit: 3, offset: 0 }
                  └─BatchProject { exprs: [$0] }
                    └─BatchScan { table: t, columns: [0] }
            """)
    }

    @Test func aSortWithoutALimitAndALimitWithoutASortStay() throws {
        #expect(try explain("SELECT s FROM t ORDER BY s").hasPrefix("BatchSort { order: [$0 ASC] }"))
        #expect(try explain("SELECT s FROM t LIMIT 3").hasPrefix("BatchLimit { limit: 3, offset: 0 }"))
        #expect(try explain("SELECT s FROM t ORDER BY s LIMIT ALL OFFSET 4").hasPrefix("""
            BatchLimit { limit: all, offset: 4 }
              └─BatchSort { order: [$0 ASC] }
            """))
    }

    /// A view's plan (optimized without a folding context) keeps its limit and sort for the
    /// stream planner's top-N.
    @Test func viewsKeepTheirLimitAndSort() {
        let scan = BatchPlan.scan(TableScan(tableID: 1, tableName: "t", columns: [0], columnTypes: [.int64]))
        let plan = BatchPlan.limit(input: .sort(input: scan, keys: [SortKey(column: 0)]), limit: 3, offset: 0)
        #expect(Optimizer().optimize(plan) == plan)
        #expect(Optimizer(foldingContext: EvaluationContext()).optimize(plan) == .topN(input: scan, keys: [SortKey(column: 0)], limit: 3, offset: 0))
    }
}
