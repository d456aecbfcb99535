import SluiceCore
import SluiceFormats
import Testing
@testable import SluiceLakehouse

@Suite struct IcebergScanPruningTests {
    static let schema = IcebergSchema(fields: [
        IcebergNestedField(id: 1, name: "id", isRequired: false, type: .long),
        IcebergNestedField(id: 2, name: "score", isRequired: false, type: .double),
        IcebergNestedField(id: 3, name: "tag", isRequired: false, type: .string),
    ])
    static let columns = schema.fields.map { ParquetColumnSchema(name: $0.name, type: try! $0.type.sluiceType(), fieldID: Int32($0.id)) }

    /// Ids `ids`; score = id / 2 (NaN for id 1000); tag null for even ids, else "t<id % 3>".
    static func chunk(_ ids: ClosedRange<Int64>) -> Chunk {
        Chunk(columns: [
            Column(type: .int64, values: ids.map { .int64($0) }),
            Column(type: .float64, values: ids.map { $0 == 1000 ? .float64(.nan) : .float64(Double($0) / 2) }),
            Column(type: .varchar, values: ids.map { $0 % 2 == 0 ? .null : .string("t\($0 % 3)") }),
        ])
    }

    /// Four files: ids 1–10, 11–20, 21–30, and 40 and 42 (whose tags are all null).
    static func threeFileTable(_ label: String) throws -> IcebergScanTestTable {
        let table = IcebergScanTestTable(label, schema: schema)
        var files: [IcebergDataFile] = []
        for range: ClosedRange<Int64> in [1 ... 10, 11 ... 20, 21 ... 30] {
            files.append(try table.writeFile(columns, rowGroups: [chunk(range)]))
        }
        // A file of only even ids: its tags are all null.
        files.append(try table.writeFile(columns, rowGroups: [Chunk(columns: [
            Column(type: .int64, values: [.int64(40), .int64(42)]),
            Column(type: .float64, values: [.float64(20), .float64(21)]),
            Column(type: .varchar, values: [.null, .null]),
        ])]))
        try table.commit(data: files)
        return table
    }

    /// The plan's counters and the sorted ids it reads.
    static func planned(_ table: IcebergScanTestTable, _ terms: [IcebergScanTerm]) throws -> (IcebergScanCounters, [Int64]) {
        let plan = try table.scan.plan(fields: [1], predicate: IcebergScanPredicate(terms))
        var statistics = IcebergScanReadStatistics()
        let ids = try table.scan.rows(plan, statistics: &statistics).compactMap { row -> Int64? in
            if case .int64(let id)? = row.first { return id }
            return nil
        }
        return (plan.counters, ids.sorted())
    }

    @Test func filesAreSkippedByBoundsAndNullCounts() throws {
        let table = try Self.threeFileTable("metrics")
        // Each expectation: how many of the 4 files metrics prune (worked out from the ranges).
        let cases: [([IcebergScanTerm], Int)] = [
            ([.compare(fieldID: 1, .greaterThan, .int64(25))], 2),           // only 21–30 and 40–42 remain
            ([.compare(fieldID: 1, .greaterThan, .int64(30))], 3),
            ([.compare(fieldID: 1, .greaterThanOrEqual, .int64(30))], 2),
            ([.compare(fieldID: 1, .lessThan, .int64(11))], 3),
            ([.compare(fieldID: 1, .lessThanOrEqual, .int64(11))], 2),
            ([.compare(fieldID: 1, .equal, .int32(15))], 3),                 // an int literal against a long column
            ([.compare(fieldID: 1, .equal, .decimal(Decimal(mantissa: 155, scale: 1)))], 3),
            ([.isIn(fieldID: 1, [.int64(5), .int64(41), .null])], 2),
            ([.isIn(fieldID: 1, [.int64(35), .int64(100)])], 4),
            ([.isNull(fieldID: 1)], 4),                                      // no id is null
            ([.isNotNull(fieldID: 3)], 1),                                   // the 40/42 file has only null tags
            ([.compare(fieldID: 3, .equal, .string("t1"))], 1),
            ([.compare(fieldID: 3, .greaterThan, .string("t2"))], 4),         // tags are t0, t1, t2
            ([.compare(fieldID: 2, .lessThan, .float64(1))], 3),            // scores: 0.5–5, 5.5–10, 10.5–15, 20–21
            ([.compare(fieldID: 2, .greaterThan, .float64(15))], 3),             // no NaNs, so upper bounds hold
            ([.compare(fieldID: 1, .greaterThan, .int64(5)), .compare(fieldID: 1, .lessThan, .int64(12))], 2),
            ([.compare(fieldID: 1, .equal, .string("x"))], 0),               // incomparable: never prunes
            ([.compare(fieldID: 1, .equal, .null)], 0),
            ([.compare(fieldID: 99, .equal, .int64(1))], 0),                 // unknown column: never prunes
        ]
        for (terms, pruned) in cases {
            let (counters, ids) = try Self.planned(table, terms)
            #expect(counters.dataFiles == 4)
            #expect(counters.dataFilesPrunedByMetrics == pruned, "\(terms)")
            // Conservative: every row that satisfies the terms is still read.
            let allIDs: [Int64] = Array(1 ... 30) + [40, 42]
            for id in allIDs where Self.satisfies(id, terms) { #expect(ids.contains(id), "\(terms) lost \(id)") }
        }
    }

    @Test func aFloatUpperBoundDoesNotPruneGreaterThanWhenTheFileMayHoldNaN() throws {
        let table = IcebergScanTestTable("nan", schema: Self.schema)
        var file = try table.writeFile(Self.columns, rowGroups: [Self.chunk(999 ... 1000)])
        // The writer counts the NaN; without a NaN count a reader must assume NaNs may be there.
        #expect(file.nanValueCounts?[2] == 1)
        try table.commit(data: [file])
        let (withNaN, _) = try Self.planned(table, [.compare(fieldID: 2, .greaterThan, .float64(1000))])
        #expect(withNaN.dataFilesPrunedByMetrics == 0)  // NaN sorts above 1000
        let (below, _) = try Self.planned(table, [.compare(fieldID: 2, .lessThan, .float64(10))])
        #expect(below.dataFilesPrunedByMetrics == 1)    // NaN is never below 10; 499.5 is the lower bound

        let other = IcebergScanTestTable("no-nan", schema: Self.schema)
        file = try other.writeFile(Self.columns, rowGroups: [Self.chunk(1 ... 4)])
        try other.commit(data: [file])
        let (noNaN, _) = try Self.planned(other, [.compare(fieldID: 2, .greaterThan, .float64(1000))])
        #expect(noNaN.dataFilesPrunedByMetrics == 1)
    }

    @Test func rowGroupsAreSkippedByParquetStatistics() throws {
        let table = IcebergScanTestTable("row-groups", schema: Self.schema)
        // Metrics off, so only row-group statistics can prune.
        let file = try table.writeFile(Self.columns, rowGroups: [Self.chunk(1 ... 10), Self.chunk(11 ... 20), Self.chunk(21 ... 30)], metrics: false)
        try table.commit(data: [file])
        let predicate = IcebergScanPredicate([.compare(fieldID: 1, .greaterThanOrEqual, .int64(21))])

        // At plan time, reading the footer.
        let plan = try table.scan.plan(fields: [1], predicate: predicate, choosingRowGroups: true)
        #expect(plan.counters.dataFilesPruned == 0)
        #expect(plan.counters.rowGroups == 3 && plan.counters.rowGroupsPruned == 2)
        #expect(plan.tasks.first?.rowGroups == [2])
        var statistics = IcebergScanReadStatistics()
        #expect(try table.scan.rows(plan, statistics: &statistics) == (21 ... 30).map { [.int64($0)] })

        // At read time.
        let lazyPlan = try table.scan.plan(fields: [1], predicate: IcebergScanPredicate([
            .compare(fieldID: 1, .lessThan, .int64(15)), .isNotNull(fieldID: 3),
        ]))
        #expect(lazyPlan.counters.rowGroups == 0 && lazyPlan.tasks.first?.rowGroups == nil)
        statistics = IcebergScanReadStatistics()
        let ids = try table.scan.rows(lazyPlan, statistics: &statistics)
        #expect(statistics.rowGroups == 3 && statistics.rowGroupsPruned == 1 && statistics.rowsRead == 20)
        #expect(ids == (1 ... 20).map { [.int64($0)] })
    }

    @Test func aColumnAddedAfterAFileWasWrittenIsNullThroughoutIt() throws {
        let table = IcebergScanTestTable("added-column", schema: Self.schema)
        let old = try table.writeFile(Self.columns, rowGroups: [Self.chunk(1 ... 3)], metrics: false)
        try table.commit(data: [old])
        try table.evolve(to: IcebergSchema(fields: Self.schema.fields + [IcebergNestedField(id: 4, name: "extra", isRequired: false, type: .long)]))
        let predicate = IcebergScanPredicate([.compare(fieldID: 4, .equal, .int64(1))])
        let plan = try table.scan.plan(fields: [1, 4], predicate: predicate, choosingRowGroups: true)
        #expect(plan.counters.rowGroupsPruned == 1)
        let nullPlan = try table.scan.plan(fields: [1, 4], predicate: IcebergScanPredicate([.isNull(fieldID: 4)]), choosingRowGroups: true)
        #expect(nullPlan.counters.rowGroupsPruned == 0)
    }

    static func satisfies(_ id: Int64, _ terms: [IcebergScanTerm]) -> Bool {
        let row = chunk(id ... id).row(0)
        let values: [Int: Value] = [1: row[0], 2: id == 40 ? .float64(20) : id == 42 ? .float64(21) : row[1], 3: id >= 40 ? .null : row[2]]
        return terms.allSatisfy { term in
            let value = values[term.fieldID] ?? .null
            switch term {
            case .isNull: return value.isNull
            case .isNotNull: return !value.isNull
            case .compare(_, let comparison, let literal):
                guard !value.isNull, let order = IcebergValueOrder.compare(value, literal) else { return false }
                switch comparison {
                case .equal: return order == 0
                case .lessThan: return order < 0
                case .lessThanOrEqual: return order <= 0
                case .greaterThan: return order > 0
                case .greaterThanOrEqual: return order >= 0
                }
            case .isIn(_, let literals):
                return !value.isNull && literals.contains { IcebergValueOrder.compare(value, $0) == 0 }
            }
        }
    }
}
