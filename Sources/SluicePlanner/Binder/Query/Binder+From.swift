import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

extension Binder {
    /// The FROM clause: several items are cross-joined; no items give one empty row.
    mutating func bindFrom(_ references: [TableReference]) throws(SluiceError) -> BoundQuery {
        guard var result = try references.first.map({ (reference) throws(SluiceError) -> BoundQuery in try bindTableReference(reference) }) else {
            return BoundQuery(plan: .values(rows: [[]], types: []), scope: Scope())
        }
        for reference in references.dropFirst() {
            let (right, isCorrelated) = try bindTableReference(reference, lateralTo: result.scope)
            try checkDuplicateAliases(result.scope, right.scope)
            result = BoundQuery(
                plan: isCorrelated
                    ? .apply(input: result.plan, subquery: right.plan, kind: .lateral)
                    : .nestedLoopJoin(left: result.plan, right: right.plan, kind: .inner, predicate: nil),
                scope: result.scope + right.scope)
        }
        return result
    }

    /// A FROM item that may refer to the columns of the items before it (`scope`): a LATERAL
    /// subquery, or a function (implicitly lateral, as in PostgreSQL). `isCorrelated` says
    /// whether it does; then its plan's outer references index `scope`'s columns.
    private mutating func bindTableReference(_ reference: TableReference, lateralTo scope: Scope) throws(SluiceError) -> (BoundQuery, isCorrelated: Bool) {
        switch reference {
        case .subquery(let query, let alias, true, _):
            var (bound, isCorrelated) = try bindSubquery(query, outer: scope)
            applyAlias(alias, defaultQualifier: nil, to: &bound.scope)
            return (bound, isCorrelated)
        case .function(let call, let alias, _, _, let position) where TimeWindowKind(rawValue: call.name.name) != nil && call.name.qualifier.isEmpty:
            return (try bindTimeWindow(call, alias: alias, position: position.errorPosition), false)
        case .function(let call, let alias, _, _, let position):
            var inner = Binder(catalog: catalog, session: session, parameterTypes: parameterTypes, parameterValues: parameterValues)
            inner.outerScope = scope
            inner.rowIDs = rowIDs
            var bound = try inner.bindTableFunction(call, position: position.errorPosition)
            parameterTypes = inner.parameterTypes
            applyAlias(alias, defaultQualifier: call.name.name, to: &bound.scope)
            if let alias, alias.columns.isEmpty, bound.scope.entries.count == 1, !bound.scope.entries[0].answersToQualifier {
                bound.scope.entries[0].name = alias.name
            }
            return (bound, inner.usesOuterReferences)
        default:
            return (try bindTableReference(reference), false)
        }
    }

    private func checkDuplicateAliases(_ left: Scope, _ right: Scope) throws(SluiceError) {
        let leftNames = Set(left.entries.compactMap(\.qualifier))
        if let clash = Set(right.entries.compactMap(\.qualifier)).first(where: { leftNames.contains($0) }) {
            throw SluiceError(.duplicateAlias, "table name \"\(clash)\" specified more than once")
        }
    }

    mutating func bindTableReference(_ reference: TableReference) throws(SluiceError) -> BoundQuery {
        switch reference {
        case .table(let name, let alias, let position):
            var bound = try bindNamedRelation(name, position: position.errorPosition)
            applyAlias(alias, defaultQualifier: name.name, to: &bound.scope)
            return bound
        case .processingTime(let name, let alias, let position):
            var bound = try bindNamedRelation(name, position: position.errorPosition)
            guard case .scan(var scan) = bound.plan, let relation = catalog.relation(id: scan.tableID),
                relation.kind == .table || relation.kind == .materializedView
            else {
                throw SluiceError(
                    .featureNotSupported, "FOR SYSTEM_TIME AS OF PROCTIME() reads a table or a materialized view, not \"\(name.name)\"",
                    hint: "Look rows up in a table or a materialized view; a source or a view has no rows of its own to look up.",
                    position: position.errorPosition)
            }
            scan.asOfProcessingTime = true
            bound.plan = .scan(scan)
            applyAlias(alias, defaultQualifier: name.name, to: &bound.scope)
            return bound
        case .subquery(let query, let alias, let isLateral, let position):
            _ = isLateral  // (with nothing before it to refer to, LATERAL changes nothing)
            var bound = try bindQuery(query)
            applyAlias(alias, defaultQualifier: nil, to: &bound.scope)
            return bound
        case .function(let call, let alias, _, _, let position) where TimeWindowKind(rawValue: call.name.name) != nil && call.name.qualifier.isEmpty:
            return try bindTimeWindow(call, alias: alias, position: position.errorPosition)
        case .function(let call, let alias, _, _, let position):
            var bound = try bindTableFunction(call, position: position.errorPosition)
            applyAlias(alias, defaultQualifier: call.name.name, to: &bound.scope)
            // A function returning one column takes the alias as the column's name too
            // (`FROM generate_series(1, 3) AS g` has a column `g`), as in Postgres.
            if let alias, alias.columns.isEmpty, bound.scope.entries.count == 1, !bound.scope.entries[0].answersToQualifier {
                bound.scope.entries[0].name = alias.name
            }
            return bound
        case .join(let join):
            return try bindJoin(join)
        }
    }

    /// `unnest(array)` and `generate_series(start, stop[, step])`; arguments may use outer
    /// references (a correlated subquery) but not other FROM items.
    mutating func bindTableFunction(_ call: FunctionCall, position: Int?) throws(SluiceError) -> BoundQuery {
        var context = ExpressionContext(scope: Scope(), clause: "FROM")
        context.allowsSubqueries = false
        var arguments: [ScalarExpr] = []
        for argument in call.arguments { arguments.append(try bindExpression(argument, &context)) }
        if let function = Self.jsonbSetReturning(call.name.name), arguments.count == 1, case .list(let element) = function.resultType {
            // The document's parts as rows: a list unnested, a member's key and value as columns.
            let list = ScalarExpr.call(function, [try coerce(arguments[0], to: .jsonb, position: position)])
            let rows = BatchPlan.tableFunction(.unnest, arguments: [list], types: [element])
            guard case .structure(let fields) = element else {
                let name = call.name.name.hasSuffix("object_keys") ? call.name.name : "value"
                var entry = Scope.Entry(qualifier: nil, name: name, type: element)
                entry.answersToQualifier = name == "value"
                return BoundQuery(plan: rows, scope: Scope(entries: [entry]))
            }
            let columns = fields.indices.map { ScalarExpr.call(StructFunctions.field($0, of: element), [.column(0, element)]) }
            return BoundQuery(
                plan: .project(input: rows, expressions: columns),
                scope: Scope(entries: fields.map { Scope.Entry(qualifier: nil, name: $0.name, type: $0.type) }))
        }
        if call.name.name == "file_scan" { return try bindFileScan(arguments, position: position) }
        switch (call.name.name, arguments.count) {
        case ("unnest", 1):
            guard case .list(let element) = arguments[0].type else {
                throw SluiceError(.undefinedFunction, "function unnest(\(arguments[0].type.sqlName)) does not exist", position: position)
            }
            return BoundQuery(
                plan: .tableFunction(.unnest, arguments: arguments, types: [element]),
                scope: Scope(entries: [Scope.Entry(qualifier: nil, name: "unnest", type: element)]))
        case (let name, 3) where (name == "generate_series" || name == "range")
            && (arguments[2].type == .interval || arguments.prefix(2).contains(where: { [.timestamp, .timestamptz, .date].contains($0.type) })):
            // Over timestamps: with time zone when either end has one (or is a date), as
            // PostgreSQL resolves the overloads.
            let type: DataType = arguments.prefix(2).contains(where: { $0.type == .timestamp }) && !arguments.prefix(2).contains(where: { $0.type == .timestamptz || $0.type == .date })
                ? .timestamp : .timestamptz
            let coerced = [
                try coerce(arguments[0], to: type, position: position), try coerce(arguments[1], to: type, position: position),
                try coerce(arguments[2], to: .interval, position: position),
            ]
            let function: TableFunction = call.name.name == "range" ? .timestampRange : .generateTimestampSeries
            return BoundQuery(
                plan: .tableFunction(function, arguments: coerced, types: [type]),
                scope: Scope(entries: [Scope.Entry(qualifier: nil, name: call.name.name, type: type)]))
        case ("generate_series", 2), ("generate_series", 3), ("range", 2), ("range", 3):
            let allSmall = arguments.allSatisfy { $0.type == .int32 || $0.type == .int16 || $0.type == .unknown }
            var coerced: [ScalarExpr] = []
            for argument in arguments { coerced.append(try coerce(argument, to: .int64, position: position)) }
            let type: DataType = allSmall ? .int32 : .int64
            return BoundQuery(
                plan: .tableFunction(call.name.name == "range" ? .range : .generateSeries, arguments: coerced, types: [type]),
                scope: Scope(entries: [Scope.Entry(qualifier: nil, name: call.name.name, type: type)]))
        default:
            throw SluiceError(.featureNotSupported, "table function \(call.name.description) is not supported yet", position: position)
        }
    }

    /// A table of a Flink Iceberg catalog of the session (`catalog.database.table`): a scan of
    /// the table as it is when the query runs, which the server resolves.
    private func bindIcebergCatalogTable(_ name: ObjectName, catalog options: [String: String], position: Int?) throws(SluiceError) -> BoundQuery {
        guard let externalRelations else {
            throw SluiceError(
                .featureNotSupported, "the tables of Iceberg catalog \"\(name.qualifier[0])\" are read in a query, not in a view, materialized view or sink",
                hint: "Create a source over the table: CREATE SOURCE … WITH (connector = 'iceberg', …).", position: position)
        }
        var arguments = [name.qualifier[1], name.name]
        for key in options.keys.sorted() { arguments += [key, options[key] ?? ""] }
        guard let found = try externalRelations.relation(function: "iceberg", arguments: arguments) else {
            throw SluiceError(.featureNotSupported, "Iceberg catalogs are not readable here", position: position)
        }
        let scan = TableScan(
            tableID: found.id, tableName: name.name, columns: Array(found.columns.indices), columnTypes: found.columns.map(\.type), isAppendOnly: true)
        return BoundQuery(plan: .scan(scan), scope: Scope(entries: found.columns.map { Scope.Entry(qualifier: name.name, name: $0.name, type: $0.type) }))
    }

    /// RisingWave's `file_scan('parquet', 's3', region, access key, secret key, location)`
    /// (and `'posix_fs'` with a folder or file): a scan of files, which the server resolves.
    private func bindFileScan(_ arguments: [ScalarExpr], position: Int?) throws(SluiceError) -> BoundQuery {
        guard let externalRelations else {
            throw SluiceError(
                .featureNotSupported, "file_scan reads files in a query, not in a view, materialized view or sink",
                hint: "Create a source over the files: CREATE SOURCE … WITH (connector = 'posix_fs' | 's3', …).", position: position)
        }
        var texts: [String] = []
        for argument in arguments {
            guard case .literal(let value, _) = argument, case .string(let text) = value else {
                throw SluiceError(.invalidParameterValue, "file_scan's arguments must be text constants", position: position)
            }
            texts.append(text)
        }
        guard let found = try externalRelations.relation(function: "file_scan", arguments: texts) else {
            throw SluiceError(.featureNotSupported, "table function file_scan is not supported", position: position)
        }
        let scan = TableScan(
            tableID: found.id, tableName: "file_scan", columns: Array(found.columns.indices), columnTypes: found.columns.map(\.type), isAppendOnly: true)
        return BoundQuery(plan: .scan(scan), scope: Scope(entries: found.columns.map { Scope.Entry(qualifier: nil, name: $0.name, type: $0.type) }))
    }

    /// `a [INNER|CROSS|LEFT] JOIN LATERAL (…) ON …` whose right side refers to the left's
    /// columns: an apply. An inner join filters its rows by the condition; a left join takes
    /// only a condition that is always true (`ON true`), as the subquery's own WHERE says the rest.
    private mutating func bindLateralJoin(_ join: Join, left: BoundQuery, right: BoundQuery) throws(SluiceError) -> BoundQuery {
        let scope = left.scope + right.scope
        var condition: ScalarExpr?
        switch join.condition {
        case .none:
            break
        case .on(let expression):
            var context = ExpressionContext(scope: scope, clause: "JOIN/ON")
            condition = try coerce(try bindExpression(expression, &context), to: .boolean, position: expression.position.errorPosition, clause: "JOIN/ON")
        case .using, .natural:
            throw SluiceError(.featureNotSupported, "USING and NATURAL with a LATERAL subquery are not supported yet")
        }
        let isTrue = condition == nil || condition == .literal(.bool(true), .boolean)
        switch join.kind {
        case .inner, .cross:
            let plan = BatchPlan.apply(input: left.plan, subquery: right.plan, kind: .lateral)
            return BoundQuery(plan: isTrue ? plan : .filter(input: plan, predicate: condition!), scope: scope)
        case .left where isTrue:
            return BoundQuery(plan: .apply(input: left.plan, subquery: right.plan, kind: .lateralLeft), scope: scope)
        default:
            throw SluiceError(
                .featureNotSupported, "only INNER, CROSS and LEFT … ON true joins with a LATERAL subquery are supported",
                hint: "Put the condition in the subquery's WHERE clause.")
        }
    }

    func applyAlias(_ alias: TableAlias?, defaultQualifier: String?, to scope: inout Scope) {
        let qualifier = alias?.name ?? defaultQualifier
        for index in scope.entries.indices {
            scope.entries[index].qualifier = qualifier
            if let alias, index < alias.columns.count { scope.entries[index].name = alias.columns[index] }
        }
    }

    mutating func bindNamedRelation(_ name: ObjectName, position: Int?) throws(SluiceError) -> BoundQuery {
        var name = name
        if name.qualifier.isEmpty {
            for level in commonTables.reversed() {
                if let table = level[name.name] { return BoundQuery(plan: table.plan, scope: table.scope) }
            }
        }
        // A front door's own names (Trino's catalogs) become the catalog's, or an outside table.
        switch try externalRelations?.resolve(name) {
        case .catalog(let renamed)?:
            name = renamed
        case .external(let id, let columns)?:
            let scan = TableScan(tableID: id, tableName: name.name, columns: Array(columns.indices), columnTypes: columns.map(\.type), isAppendOnly: true)
            return BoundQuery(plan: .scan(scan), scope: Scope(entries: columns.map { Scope.Entry(qualifier: name.name, name: $0.name, type: $0.type) }))
        case nil:
            break
        }
        if let system = try SystemCatalog.relation(named: name, catalog: catalog, session: session) {
            return system
        }
        if name.qualifier.count == 2, let options = session.catalogs[name.qualifier[0]], options["type"] == "iceberg" {
            return try bindIcebergCatalogTable(name, catalog: options, position: position)
        }
        let relation = try relation(named: name, position: position)
        try requirePrivilege(.select, on: relation, position: position)
        if !referencedRelations.contains(relation.id) { referencedRelations.append(relation.id) }
        if relation.kind == .view { return try bindView(relation, position: position) }
        if relation.kind == .sink {
            throw SluiceError(.wrongObjectType, "\"\(relation.name)\" is a sink, not a relation that can be queried", position: position)
        }
        if relation.kind == .source, relation.columns.isEmpty, relation.connector?.connector.hasSuffix("-cdc") ?? false {
            throw SluiceError(
                .featureNotSupported, "\"\(relation.name)\" is a CDC source: its upstream tables are read through tables made from it",
                hint: "CREATE TABLE t (… PRIMARY KEY (…)) FROM \(relation.name) TABLE 'public.t', then read t.", position: position)
        }
        var scan = TableScan(
            tableID: relation.id, tableName: relation.name, columns: Array(relation.columns.indices),
            columnTypes: relation.columns.map(\.type), isAppendOnly: relation.isAppendOnly)
        scan.watermarkColumn = relation.watermark?.column
        var entries = relation.columns.enumerated().map { index, column in
            Scope.Entry(qualifier: relation.name, name: column.name, type: column.type, tableID: relation.id, columnNumber: index + 1)
        }
        if relation.hasRowIDs, rowIDs != .notNamed, relation.columnIndex(named: Self.rowIDName) == nil {
            // The hidden row id, after the stored columns: `*` leaves it out.
            guard rowIDs == .read else {
                throw SluiceError(
                    .featureNotSupported, "a view, materialized view or sink cannot read \(Self.rowIDName) of table \"\(relation.name)\" yet",
                    hint: "Queries, UPDATE and DELETE read it; give the table a primary key to key a view by.", position: position)
            }
            scan.columns.append(relation.columns.count)
            scan.columnTypes.append(TableScan.rowIDType)
            entries.append(Scope.Entry(qualifier: relation.name, name: Self.rowIDName, type: TableScan.rowIDType, isHidden: true, tableID: relation.id))
        }
        return BoundQuery(plan: .scan(scan), scope: Scope(entries: entries))
    }

    private mutating func bindJoin(_ join: Join) throws(SluiceError) -> BoundQuery {
        let left = try bindTableReference(join.left)
        let (right, isLateral) = try bindTableReference(join.right, lateralTo: left.scope)
        try checkDuplicateAliases(left.scope, right.scope)
        if isLateral { return try bindLateralJoin(join, left: left, right: right) }
        var scope = left.scope + right.scope
        let leftWidth = left.scope.entries.count
        let kind: SluicePlan.JoinKind
        switch join.kind {
        case .inner, .cross: kind = .inner
        case .left: kind = .left
        case .right: kind = .right
        case .full: kind = .full
        case .asof, .asofLeft:
            guard case .on(let condition) = join.condition else { throw SluiceError(.syntaxError, "ASOF JOIN needs an ON condition") }
            var context = ExpressionContext(scope: scope, clause: "JOIN/ON")
            let bound = try coerce(try bindExpression(condition, &context), to: .boolean, position: condition.position.errorPosition, clause: "JOIN/ON")
            let plan = try asofJoin(
                left.plan, right.plan, on: bound.conjuncts, keepsUnmatched: join.kind == .asofLeft, position: condition.position.errorPosition)
            return BoundQuery(plan: plan, scope: scope)
        }
        var conjuncts: [ScalarExpr] = []
        switch join.condition {
        case .none:
            break
        case .on(let condition):
            var context = ExpressionContext(scope: scope, clause: "JOIN/ON")
            let bound = try coerce(try bindExpression(condition, &context), to: .boolean, position: condition.position.errorPosition, clause: "JOIN/ON")
            conjuncts = bound.conjuncts
        case .using(let names):
            for name in names {
                conjuncts.append(try usingCondition(name, left: left.scope, right: right.scope, leftWidth: leftWidth))
                if let rightIndex = right.scope.entries.firstIndex(where: { $0.name == name }) {
                    scope.entries[leftWidth + rightIndex].isHidden = true
                    scope.entries[leftWidth + rightIndex].name = "\u{0}using.\(name)"
                }
            }
        case .natural:
            let common = left.scope.entries.map(\.name).filter { name in right.scope.entries.contains { $0.name == name } }
            for name in common {
                conjuncts.append(try usingCondition(name, left: left.scope, right: right.scope, leftWidth: leftWidth))
                if let rightIndex = right.scope.entries.firstIndex(where: { $0.name == name }) {
                    scope.entries[leftWidth + rightIndex].isHidden = true
                    scope.entries[leftWidth + rightIndex].name = "\u{0}using.\(name)"
                }
            }
        }
        var plan = BatchPlan.join(left.plan, right.plan, kind: kind, on: conjuncts)
        // A USING column is one column: in a right join it comes from the right side, in a full
        // join from whichever side has the row.
        if kind == .right || kind == .full {
            var expressions = scope.types.enumerated().map { ScalarExpr.column($0.offset, $0.element) }
            var merged = false
            for (leftIndex, entry) in left.scope.entries.enumerated() {
                guard let rightIndex = scope.entries.firstIndex(where: { $0.name == "\u{0}using.\(entry.name)" }) else { continue }
                let rightColumn = ScalarExpr.column(rightIndex, scope.types[rightIndex])
                let leftColumn = ScalarExpr.column(leftIndex, entry.type)
                let type = scope.types[leftIndex]
                expressions[leftIndex] = kind == .right ? castIfNeeded(rightColumn, to: type) : .coalesce([leftColumn, castIfNeeded(rightColumn, to: type)], type)
                merged = true
            }
            if merged { plan = .project(input: plan, expressions: expressions) }
        }
        return BoundQuery(plan: plan, scope: scope)
    }

    private func usingCondition(_ name: String, left: Scope, right: Scope, leftWidth: Int) throws(SluiceError) -> ScalarExpr {
        guard let leftIndex = left.entries.firstIndex(where: { $0.name == name }),
            let rightIndex = right.entries.firstIndex(where: { $0.name == name })
        else {
            throw SluiceError(.undefinedColumn, "column \"\(name)\" specified in USING clause does not exist in both tables")
        }
        let type = try FunctionRegistry.commonType(left.entries[leftIndex].type, right.entries[rightIndex].type, context: "JOIN/USING")
        let lhs = castIfNeeded(.column(leftIndex, left.entries[leftIndex].type), to: type)
        let rhs = castIfNeeded(.column(leftWidth + rightIndex, right.entries[rightIndex].type), to: type)
        return .call(.comparison(.equal, type), [lhs, rhs])
    }

    func castIfNeeded(_ expression: ScalarExpr, to type: DataType) -> ScalarExpr {
        expression.type == type ? expression : .cast(expression, type)
    }
}
