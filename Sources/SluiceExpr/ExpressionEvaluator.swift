import SluiceCore

/// Evaluates bound expressions over chunks, a column at a time.
package enum ExpressionEvaluator {
    /// The column `expression` yields over the rows of `chunk`.
    /// - Complexity: O(rows × nodes); CASE arms and COALESCE run only on the rows they decide.
    package static func evaluate(
        _ expression: ScalarExpr, on chunk: Chunk, context: EvaluationContext
    ) throws(SluiceError) -> Column {
        switch expression {
        case .column(let index, _):
            return chunk.columns[index]
        case .literal(let value, let type):
            return Column(type: type, repeating: value, count: chunk.count)
        case .call(let function, let arguments):
            if let (op, constant) = ConstantComparison.comparison(function, arguments),
                let result = ConstantComparison.compare(try evaluate(arguments[0], on: chunk, context: context), op, constant)
            {
                return result
            }
            if arguments.count == 2, function.name == "like" || function.name == "not like", arguments[0].type == .varchar,
                case .literal(.string(let pattern), _) = arguments[1], let compiled = SubstringPattern(pattern),
                let result = compiled.evaluate(try evaluate(arguments[0], on: chunk, context: context), negated: function.name == "not like")
            {
                return result
            }
            var columns: [Column] = []
            columns.reserveCapacity(arguments.count)
            for argument in arguments { columns.append(try evaluate(argument, on: chunk, context: context)) }
            return try function.kernel(columns, chunk.count, context)
        case .cast(let operand, let type):
            return try CastKernels.cast(try evaluate(operand, on: chunk, context: context), to: type, context: context)
        case .and(let operands):
            return try logical(operands, on: chunk, context: context, isAnd: true)
        case .or(let operands):
            return try logical(operands, on: chunk, context: context, isAnd: false)
        case .not(let operand):
            let column = try evaluate(operand, on: chunk, context: context)
            return try Kernels.unary(column, resultType: .boolean) { (value: Bool) in !value }
        case .isNull(let operand, let negated):
            let column = try evaluate(operand, on: chunk, context: context)
            let values = (0 ..< column.count).map { column.isNull($0) != negated }
            return Column(type: .boolean, storage: .bool(values))
        case .caseWhen(let branches, let otherwise, let type):
            return try caseWhen(branches, otherwise: otherwise, type: type, on: chunk, context: context)
        case .coalesce(let operands, let type):
            return try coalesce(operands, type: type, on: chunk, context: context)
        }
    }

    /// A boolean column as a selection mask: set where the value is true (not false, not null).
    package static func mask(of column: Column) -> Bitmap {
        guard case .bool(let values) = column.storage else { preconditionFailure("predicate is not boolean") }
        var mask = Bitmap(count: values.count, value: false)
        for rowIndex in values.indices where values[rowIndex] && !column.isNull(rowIndex) { mask[rowIndex] = true }
        return mask
    }

    /// The indexes of the rows of `chunk` where `predicate` (one condition, evaluated whole) is
    /// true, in order. ``CompiledFilter`` takes conjunctions a conjunct at a time.
    package static func selection(of chunk: Chunk, byOne predicate: ScalarExpr, context: EvaluationContext) throws(SluiceError) -> [Int] {
        let column = try evaluate(predicate, on: chunk, context: context)
        guard case .bool(let values) = column.storage else { preconditionFailure("predicate is not boolean") }
        if let validity = column.validity {
            var selected: [Int] = []
            selected.reserveCapacity(values.count)
            for rowIndex in 0 ..< values.count where values[rowIndex] && validity[rowIndex] { selected.append(rowIndex) }
            return selected
        }
        // Branch-free: write every index, advance only past the selected ones.
        var count = 0
        let selected = [Int](unsafeUninitializedCapacity: values.count + 1) { buffer, initialized in
            values.withUnsafeBufferPointer { values in
                for rowIndex in 0 ..< values.count {
                    buffer[count] = rowIndex
                    count &+= Int(unsafeBitCast(values[rowIndex], to: UInt8.self))
                }
            }
            initialized = count
        }
        return selected
    }

    // Three-valued logic: false dominates AND, true dominates OR, otherwise null wins over the
    // identity value.
    private static func logical(
        _ operands: [ScalarExpr], on chunk: Chunk, context: EvaluationContext, isAnd: Bool
    ) throws(SluiceError) -> Column {
        let rowCount = chunk.count
        var result = [Bool](repeating: isAnd, count: rowCount)
        var isNull = [Bool](repeating: false, count: rowCount)
        for operand in operands {
            let column = try evaluate(operand, on: chunk, context: context)
            guard case .bool(let values) = column.storage else { preconditionFailure("logical operand is not boolean") }
            for rowIndex in 0 ..< rowCount {
                if column.isNull(rowIndex) {
                    if result[rowIndex] == isAnd { isNull[rowIndex] = true }
                } else if values[rowIndex] != isAnd {
                    result[rowIndex] = !isAnd
                    isNull[rowIndex] = false
                }
            }
        }
        var validity = Bitmap(count: rowCount, value: true)
        for rowIndex in 0 ..< rowCount where isNull[rowIndex] && result[rowIndex] == isAnd { validity[rowIndex] = false }
        return Column(type: .boolean, storage: .bool(result), validity: validity)
    }

    private static func caseWhen(
        _ branches: [CaseBranch], otherwise: ScalarExpr?, type: DataType, on chunk: Chunk, context: EvaluationContext
    ) throws(SluiceError) -> Column {
        // Each row is decided by the first true arm; arms run only on the rows still undecided,
        // so `CASE WHEN x = 0 THEN 0 ELSE 1 / x END` never divides by zero.
        var undecided = Array(0 ..< chunk.count)
        var pieces: [Column] = []
        var source = [(piece: Int, row: Int)](repeating: (-1, 0), count: chunk.count)
        for branch in branches {
            if undecided.isEmpty { break }
            let subset = undecided.count == chunk.count ? chunk : chunk.gather(undecided)
            let condition = mask(of: try evaluate(branch.condition, on: subset, context: context))
            var taken: [Int] = []
            var remaining: [Int] = []
            for position in 0 ..< subset.count {
                if condition[position] { taken.append(position) } else { remaining.append(undecided[position]) }
            }
            if !taken.isEmpty {
                let values = try evaluate(branch.result, on: subset.gather(taken), context: context)
                for (row, position) in taken.enumerated() { source[undecided[position]] = (pieces.count, row) }
                pieces.append(values)
            }
            undecided = remaining
        }
        if !undecided.isEmpty, let otherwise {
            let values = try evaluate(otherwise, on: chunk.gather(undecided), context: context)
            for (row, rowIndex) in undecided.enumerated() { source[rowIndex] = (pieces.count, row) }
            pieces.append(values)
        }
        return assemble(pieces, source: source, type: type)
    }

    private static func coalesce(
        _ operands: [ScalarExpr], type: DataType, on chunk: Chunk, context: EvaluationContext
    ) throws(SluiceError) -> Column {
        var undecided = Array(0 ..< chunk.count)
        var pieces: [Column] = []
        var source = [(piece: Int, row: Int)](repeating: (-1, 0), count: chunk.count)
        for operand in operands {
            if undecided.isEmpty { break }
            let subset = undecided.count == chunk.count ? chunk : chunk.gather(undecided)
            let values = try evaluate(operand, on: subset, context: context)
            var remaining: [Int] = []
            for position in 0 ..< subset.count {
                if values.isNull(position) {
                    remaining.append(undecided[position])
                } else {
                    source[undecided[position]] = (pieces.count, position)
                }
            }
            pieces.append(values)
            undecided = remaining
        }
        return assemble(pieces, source: source, type: type)
    }

    /// Builds a column whose row `i` is row `source[i].row` of `pieces[source[i].piece]`, or
    /// null where the piece is -1.
    private static func assemble(_ pieces: [Column], source: [(piece: Int, row: Int)], type: DataType) -> Column {
        var offsets: [Int] = []
        var total = 0
        for piece in pieces {
            offsets.append(total)
            total += piece.count
        }
        let nullRow = total
        let nullColumn = Column(type: type, repeating: .null, count: 1)
        let all = Column.concatenate(pieces.map { $0.retyped(as: type) } + [nullColumn], type: type)
        let indices = source.map { $0.piece < 0 ? nullRow : offsets[$0.piece] + $0.row }
        return all.gather(indices)
    }
}

extension Column {
    /// This column labelled with `type`, which must share its physical layout (used where the
    /// binder has unified e.g. `numeric(10,2)` and `numeric`).
    package func retyped(as type: DataType) -> Column {
        var copy = self
        copy.type = type
        return copy
    }
}
