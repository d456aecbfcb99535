import SluiceCore
import SluiceExpr

// How each node of StreamNodes.swift is stored (StreamPlan+Storage.swift): its fields in
// declaration order, inputs nested. Reading checks that column indexes fit the input.

extension ScanNode {
    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        try table.encode(into: &writer)
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        self.init(table: try TableScan(from: &reader))
    }
}

extension ValuesNode {
    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        writer.write(unsigned: UInt64(rows.count))
        for row in rows { try writer.write(list: row) }
        try writer.write(list: types)
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        let count = try reader.readCount()
        var rows: [[ScalarExpr]] = []
        for _ in 0 ..< count { rows.append(try reader.readList(ScalarExpr.self)) }
        let types = try reader.readList(DataType.self)
        guard rows.allSatisfy({ $0.count == types.count }) else { throw PlanReader.corrupted("values rows are not \(types.count) wide") }
        self.init(rows: rows, types: types)
    }
}

extension ProjectNode {
    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        try input.encode(into: &writer)
        try writer.write(optional: predicate)
        try writer.write(list: expressions)
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        let input = try StreamPlan(from: &reader)
        let predicate = try reader.readOptional(ScalarExpr.self)
        let expressions = try reader.readList(ScalarExpr.self)
        let width = input.outputTypes.count
        try PlanReader.require(expressions + (predicate.map { [$0] } ?? []), readingBelow: width, in: "a projection")
        self.init(input: input, predicate: predicate, expressions: expressions)
    }
}

extension HashAggregateNode {
    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        try input.encode(into: &writer)
        writer.write(int: groupCount)
        try writer.write(list: aggregates)
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        let input = try StreamPlan(from: &reader)
        let groupCount = try reader.readIndex()
        let aggregates = try reader.readList(AggregateCall.self)
        let width = input.outputTypes.count
        guard groupCount <= width else { throw PlanReader.corrupted("a group key of \(groupCount) columns of \(width)") }
        try PlanReader.require(aggregates.flatMap(\.readColumns), below: width, in: "an aggregate")
        self.init(input: input, groupCount: groupCount, aggregates: aggregates)
    }
}

extension HashJoinNode {
    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        try join.encode(into: &writer)
        writer.write(bool: isLookup)
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        let join = try StreamHashJoinPlan(from: &reader)
        let (leftWidth, rightWidth) = (join.left.outputTypes.count, join.right.outputTypes.count)
        try PlanReader.require(join.leftKeys, below: leftWidth, in: "a join's left keys")
        try PlanReader.require(join.rightKeys, below: rightWidth, in: "a join's right keys")
        try PlanReader.require(join.residual.map { [$0] } ?? [], readingBelow: leftWidth + rightWidth, in: "a join condition")
        self.init(join: join, isLookup: try reader.readBool())
    }
}

extension UnionNode {
    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        try writer.write(list: inputs)
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        self.init(inputs: try reader.readList(StreamPlan.self))
    }
}

extension ProjectSetNode {
    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        try input.encode(into: &writer)
        try writer.write(list: expressions)
        writer.write(bools: expands)
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        let input = try StreamPlan(from: &reader)
        let expressions = try reader.readList(ScalarExpr.self)
        let expands = try reader.readBools()
        guard expands.count == expressions.count else { throw PlanReader.corrupted("a project set expands \(expands.count) of \(expressions.count) expressions") }
        try PlanReader.require(expressions, readingBelow: input.outputTypes.count, in: "a project set")
        self.init(input: input, expressions: expressions, expands: expands)
    }
}

extension TableFunctionNode {
    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        writer.write(string: function.rawValue)
        try writer.write(list: arguments)
        try writer.write(list: types)
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        let function = try reader.readCase(TableFunction.self)
        let arguments = try reader.readList(ScalarExpr.self)
        try PlanReader.require(arguments, readingBelow: 0, in: "a table function")
        self.init(function: function, arguments: arguments, types: try reader.readList(DataType.self))
    }
}

extension WindowCloseNode {
    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        try input.encode(into: &writer)
        writer.write(int: windowColumn)
        writer.write(ints: key)
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        let input = try StreamPlan(from: &reader)
        let windowColumn = try reader.readIndex()
        let key = try reader.readIndexes()
        try PlanReader.require(key + [windowColumn], below: input.outputTypes.count, in: "a window close")
        self.init(input: input, windowColumn: windowColumn, key: key)
    }
}

extension TopNNode {
    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        try input.encode(into: &writer)
        writer.write(ints: groupColumns)
        try writer.write(list: order)
        writer.write(string: rank.rawValue)
        writer.write(int: lower)
        writer.write(optionalInt: upper)
        writer.write(bool: emitsRank)
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        let input = try StreamPlan(from: &reader)
        let groupColumns = try reader.readIndexes()
        let order = try reader.readList(SortKey.self)
        let rank = try reader.readCase(WindowFunctionKind.self)
        let lower = try reader.readIndex()
        let upper = try reader.readOptionalInt()
        let emitsRank = try reader.readBool()
        try PlanReader.require(groupColumns + order.map(\.column), below: input.outputTypes.count, in: "a top-N")
        self.init(input: input, groupColumns: groupColumns, order: order, rank: rank, lower: lower, upper: upper, emitsRank: emitsRank)
    }
}

extension OverWindowNode {
    package func encode(into writer: inout PlanWriter) throws(SluiceError) {
        try input.encode(into: &writer)
        writer.write(ints: partitionColumns)
        try writer.write(list: order)
        try writer.write(list: calls)
    }

    package init(from reader: inout PlanReader) throws(SluiceError) {
        let input = try StreamPlan(from: &reader)
        let partitionColumns = try reader.readIndexes()
        let order = try reader.readList(SortKey.self)
        let calls = try reader.readList(WindowCall.self)
        let read = partitionColumns + order.map(\.column) + calls.compactMap(\.argument) + calls.compactMap(\.defaultValue)
        try PlanReader.require(read, below: input.outputTypes.count, in: "an over window")
        self.init(input: input, partitionColumns: partitionColumns, order: order, calls: calls)
    }
}
