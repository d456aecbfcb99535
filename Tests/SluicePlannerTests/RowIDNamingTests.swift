import Testing

@testable import SluicePlanner

/// Which statements name a table's hidden `_row_id` (and so read it from their scans).
@Suite struct RowIDNamingTests {
    @Test func aStatementNamesItAsAWordOrQuoted() {
        #expect(Binder.namesRowID("SELECT _row_id FROM t"))
        #expect(Binder.namesRowID("select t._ROW_ID, a from t"))
        #expect(Binder.namesRowID("DELETE FROM t WHERE \"_row_id\" = 3"))
        #expect(Binder.namesRowID("SELECT _row_row_id FROM t") == false)
        #expect(Binder.namesRowID("SELECT '_row_id' FROM t") == false, "a string is no name")
        #expect(Binder.namesRowID("SELECT a FROM t -- _row_id") == false, "nor a comment")
        #expect(Binder.namesRowID("SELECT \"_ROW_ID\" FROM t") == false, "a quoted name keeps its case")
        #expect(Binder.namesRowID("") == false)
        #expect(Binder.namesRowID("_row_i") == false)
        #expect(Binder.namesRowID("_row__row_id") == false, "one word, not the name")
        #expect(Binder.namesRowID("x+_row_id"))
    }
}
