import SluiceCore
import SluiceSQL

/// The dedup clauses of CREATE TABLE and CREATE SOURCE: RisingWave's `ON CONFLICT DO UPDATE …
/// WITH VERSION COLUMN(c)`, and the options `dedup.key` and `dedup.window`, which the binder
/// takes out of the WITH options before the connector sees them (every connector takes them).
extension Binder {
    /// The option names of event deduplication.
    static let dedupKeyOption = "dedup.key"
    static let dedupWindowOption = "dedup.window"

    /// Removes `dedup.key` and `dedup.window` from `options` and returns them.
    static func takeDedupOptions(_ options: inout [WithOption]) -> [WithOption] {
        let taken = options.filter { $0.key == dedupKeyOption || $0.key == dedupWindowOption }
        options.removeAll { $0.key == dedupKeyOption || $0.key == dedupWindowOption }
        return taken
    }

    /// `dedup.key` and `dedup.window` of `relation` (a source, or a table, its watermark bound),
    /// checked: both given, once each; the key's columns exist; the window is a positive
    /// interval; and the relation has a watermark, whose column measures the window (the
    /// window is event time, as the watermark cleans it; processing time would make a replay
    /// after a crash judge repeats differently). A table must be APPEND ONLY.
    func bindDedup(_ options: [WithOption], of relation: RelationDefinition) throws(SluiceError) -> DedupSpec? {
        guard !options.isEmpty else { return nil }
        let values = try optionsByKey(options)
        guard let key = values[Self.dedupKeyOption] else {
            throw SluiceError(
                .syntaxError, "option \"\(Self.dedupWindowOption)\" needs option \"\(Self.dedupKeyOption)\"",
                hint: "Name the columns that identify an event, as in dedup.key = 'event_id'.")
        }
        guard let window = values[Self.dedupWindowOption] else {
            throw SluiceError(
                .syntaxError, "option \"\(Self.dedupKeyOption)\" needs option \"\(Self.dedupWindowOption)\"",
                hint: "Say how long an event's key is remembered, as in dedup.window = '1 hour'. A table with a primary key and ON CONFLICT DO NOTHING drops repeats for ever.")
        }
        if relation.kind == .table && relation.appendOnly != true {
            throw SluiceError(
                .invalidTableDefinition, "dedup.key is for sources and APPEND ONLY tables",
                hint: "A table with a primary key drops repeated keys with ON CONFLICT DO NOTHING.")
        }
        var keyColumns: [Int] = []
        for (name, column) in Self.columnList(key.value.text, of: relation) {
            guard let column else {
                throw SluiceError(
                    .undefinedColumn, "column \"\(name)\" named in dedup.key does not exist", position: key.position.errorPosition)
            }
            guard !keyColumns.contains(column) else {
                throw SluiceError(.duplicateColumn, "column \"\(name)\" is named twice in dedup.key", position: key.position.errorPosition)
            }
            keyColumns.append(column)
        }
        guard !keyColumns.isEmpty else {
            throw SluiceError(.invalidParameterValue, "option \"\(Self.dedupKeyOption)\" must name at least one column", position: key.position.errorPosition)
        }
        let windowText = window.value.text
        let interval: Interval
        do {
            interval = try Interval(parsingText: windowText)
        } catch {
            throw SluiceError(
                .invalidParameterValue, "option \"\(Self.dedupWindowOption)\" must be an interval, as '1 hour', not '\(windowText)'",
                position: window.position.errorPosition)
        }
        let microseconds = interval.fixedMicroseconds
        guard let microseconds, microseconds > 0 else {
            throw SluiceError(
                .invalidParameterValue, "option \"\(Self.dedupWindowOption)\" must be a positive interval, not '\(windowText)'",
                position: window.position.errorPosition)
        }
        guard let watermark = relation.watermark else {
            throw SluiceError(
                .invalidTableDefinition, "dedup.window needs a WATERMARK on the \(relation.kind == .table ? "table" : "source")",
                hint: "The window is measured in event time: add WATERMARK FOR ts AS ts - INTERVAL '5 seconds' for the column that says when an event happened. Keys are forgotten as the watermark passes them.")
        }
        return DedupSpec(keyColumns: keyColumns, timeColumn: watermark.column, windowMicroseconds: microseconds, stateTableID: catalog.allocateID())
    }

    /// The column of `ON CONFLICT DO UPDATE … WITH VERSION COLUMN(c)`, checked: only with DO
    /// UPDATE (FULL or IF NOT NULL), as RisingWave has it, and naming a column of the table.
    func versionColumn(_ create: CreateTable, of relation: RelationDefinition) throws(SluiceError) -> Int? {
        guard let name = create.versionColumn else { return nil }
        if create.onConflict == .ignore {
            throw SluiceError(
                .invalidTableDefinition, "WITH VERSION COLUMN needs ON CONFLICT DO UPDATE",
                hint: "DO NOTHING keeps the first row of a key whatever its version; write ON CONFLICT DO UPDATE FULL WITH VERSION COLUMN(\(name)).")
        }
        guard let column = relation.columnIndex(named: name) else {
            throw SluiceError(.undefinedColumn, "column \"\(name)\" named in WITH VERSION COLUMN does not exist")
        }
        switch relation.columns[column].type {
        case .jsonb, .list, .structure:
            throw SluiceError(
                .datatypeMismatch, "the version column \"\(name)\" must have an ordered type, not \(relation.columns[column].type)",
                hint: "Use a number, a timestamp or text that orders versions.")
        default:
            return column
        }
    }
}
