import SluiceCore
import Testing

@testable import SluiceExpr

/// The fast kernels against the general path, value by value: one-scale numeric arithmetic and
/// comparisons with a constant against ``Decimal``'s own arithmetic and ordering (random columns
/// with NULLs, values near the 38-digit limit, and columns they must leave to the general path),
/// and text compared with a constant against the general byte order.
@Suite struct FastKernelTests {
    func column(_ random: inout SplitMix64, scale: Int16, digits: Int, count: Int, special: Bool = false) -> Column {
        let bound = Decimal.powerOfTen(digits)
        var values: [Value] = []
        for index in 0 ..< count {
            if random.next() % 9 == 0 {
                values.append(.null)
            } else if special && index == count / 2 {
                values.append(.decimal(.infinity))
            } else {
                // Past 18 digits, mantissas wider than 64 bits, so the 128-bit path runs.
                let wide = digits > 18 ? (Int128(Int64(bitPattern: random.next())) << 64) | Int128(random.next()) : 0
                let mantissa = (Int128(Int64(bitPattern: random.next())) ^ wide) % bound
                values.append(.decimal(Decimal(mantissa: mantissa, scale: scale)))
            }
        }
        return Column(type: .numeric, values: values)
    }

    /// What each row of `op` gives through Decimal's arithmetic: a value, NULL, or an error.
    func expected(_ op: ArithmeticOperator, _ lhs: Column, _ rhs: Column) -> Result<[Value], SluiceError> {
        var out: [Value] = []
        for row in 0 ..< lhs.count {
            guard case .decimal(let a) = lhs.value(at: row), case .decimal(let b) = rhs.value(at: row) else {
                out.append(.null)
                continue
            }
            do throws(SluiceError) {
                switch op {
                case .add: out.append(.decimal(try Decimal.adding(a, b)))
                case .subtract: out.append(.decimal(try Decimal.subtracting(a, b)))
                default: out.append(.decimal(try Decimal.multiplying(a, b)))
                }
            } catch {
                return .failure(error)
            }
        }
        return .success(out)
    }

    /// Whether the profile a column carries, if any, holds for its values not null: their one
    /// scale, and a bound on their magnitude.
    func profileHolds(_ column: Column) -> Bool {
        guard let profile = column.decimalProfile else { return true }
        for row in 0 ..< column.count {
            guard case .decimal(let value) = column.value(at: row) else { continue }
            if value.scale != profile.scale { return false }
            if let magnitude = profile.magnitude, value.mantissa.magnitude > UInt128(magnitude) { return false }
        }
        return true
    }

    @Test func arithmeticEqualsDecimalsOwn() throws {
        var random = SplitMix64(seed: 42)
        // Digit counts that take each path: 64-bit sums and products, 128-bit products of 64-bit
        // mantissas, 128-bit mantissas with overflow checks, and overflows.
        for round in 0 ..< 600 {
            let digits = [3, 9, 12, 16, 19, 30, 38][round % 7]
            let lhs = column(&random, scale: Int16(random.next() % 6), digits: digits, count: 50)
            let rhs = column(&random, scale: Int16(random.next() % 6), digits: [2, 10, 19, 38, 8][round % 5], count: 50)
            for op in [ArithmeticOperator.add, .subtract, .multiply] {
                let want = expected(op, lhs, rhs)
                let got: Result<Column?, SluiceError> = Result { () throws(SluiceError) -> Column? in try DecimalKernels.arithmetic(op, lhs, rhs) }
                switch (want, got) {
                case (.success(let values), .success(let column?)):
                    #expect((0 ..< column.count).map { column.value(at: $0) } == values, "\(op) round \(round)")
                    // The profile the result carries holds for it, and for its rows gathered.
                    #expect(profileHolds(column), "\(op) round \(round): \(String(describing: column.decimalProfile))")
                    let picked = column.gather((0 ..< column.count).filter { _ in random.next() % 2 == 0 })
                    #expect(profileHolds(picked))
                    #expect(profileHolds(Column.concatenate([picked, column], type: .numeric)))
                    // Equal values and equal scales: the text Postgres prints matches too.
                    #expect((0 ..< column.count).map { column.value(at: $0).textForm } == values.map(\.textForm))
                case (.failure, .failure): break
                case (_, .success(nil)): Issue.record("one-scale columns left to the general path")
                default: Issue.record("\(op) round \(round): \(want) vs \(got)")
                }
            }
        }
        // Mixed scales or a special value: left to Decimal's arithmetic.
        let mixed = Column(type: .numeric, values: [.decimal(Decimal(mantissa: 1, scale: 1)), .decimal(Decimal(mantissa: 1, scale: 2))])
        #expect(try DecimalKernels.arithmetic(.add, mixed, mixed) == nil)
        let special = column(&random, scale: 2, digits: 5, count: 20, special: true)
        #expect(try DecimalKernels.arithmetic(.multiply, special, special) == nil)
    }

    @Test func constantComparisonsEqualDecimalOrdering() {
        var random = SplitMix64(seed: 7)
        for round in 0 ..< 200 {
            let values = column(&random, scale: Int16(2 + round % 3), digits: 6, count: 64)
            for constant in [Decimal(mantissa: Int128(round * 37 - 3000), scale: Int16(round % 3)), Decimal(mantissa: 123_456, scale: 4), .infinity, .nan] {
                for op in [ComparisonOperator.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual] {
                    let fast = ConstantComparison.compare(values, op, .decimal(constant))
                    if let fast {
                        for row in 0 ..< values.count {
                            guard case .decimal(let value) = values.value(at: row) else {
                                #expect(fast.isNull(row))
                                continue
                            }
                            #expect(fast.value(at: row) == .bool(op.holds(Decimal.compare(value, constant))), "\(value) \(op) \(constant)")
                        }
                    } else {
                        // Only what the fast path does not take: a constant of larger scale, or a special one.
                        #expect(constant.scale > Int16(2 + round % 3) || !constant.isFinite)
                    }
                }
            }
        }
    }

    @Test func textConstantComparisonsEqualByteOrder() {
        let words = ["", "a", "ab", "abc", "b", "Brand#12", "Brand#1", "Brand#123", "SM CASE", "é", "e\u{0}x", "zz"]
        var random = SplitMix64(seed: 3)
        let values: [Value] = (0 ..< 200).map { _ in random.next() % 10 == 0 ? .null : .string(words[Int(random.next() % UInt64(words.count))]) }
        let column = Column(type: .varchar, values: values)
        for constant in words {
            for op in [ComparisonOperator.equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual] {
                guard let fast = ConstantComparison.compare(column, op, .string(constant)) else {
                    Issue.record("text constant left to the general path")
                    return
                }
                let general = ScalarFunction.compareColumns(column, Column(type: .varchar, repeating: .string(constant), count: column.count), op)
                #expect((0 ..< column.count).map { fast.value(at: $0) } == (0 ..< column.count).map { general.value(at: $0) }, "\(op) '\(constant)'")
            }
        }
    }

    @Test func quantifiedComparisonsFollowThreeValuedLogic() throws {
        var random = SplitMix64(seed: 11)
        var values: [Value] = []
        var lists: [Value] = []
        for _ in 0 ..< 400 {
            values.append(random.next() % 8 == 0 ? .null : .int32(Int32(random.next() % 6)))
            switch random.next() % 10 {
            case 0: lists.append(.null)
            case 1: lists.append(.list([]))
            default:
                lists.append(.list((0 ..< Int(random.next() % 4) + 1).map { _ in random.next() % 7 == 0 ? Value.null : .int32(Int32(random.next() % 6)) }))
            }
        }
        let column = Column(type: .int32, values: values)
        let arrays = Column(type: .list(.int32), values: lists)
        for (op, all) in [(ComparisonOperator.equal, false), (.notEqual, true), (.less, false), (.greaterOrEqual, true)] {
            let function = ArrayFunctions.quantified(op, all: all, elementType: .int32)
            let result = try function.kernel([column, arrays], column.count, EvaluationContext())
            for row in 0 ..< column.count {
                // SQL: NULL array → NULL; empty → ALL true / ANY false; NULL value → NULL; then any
                // deciding element decides, else NULL if an element was NULL.
                var want: Value
                if case .list(let elements) = lists[row] {
                    if elements.isEmpty {
                        want = .bool(all)
                    } else if case .int32(let v) = values[row] {
                        let outcomes = elements.map { element -> Bool? in
                            guard case .int32(let e) = element else { return nil }
                            return op.holds(v < e ? -1 : (v == e ? 0 : 1))
                        }
                        if outcomes.contains(!all) { want = .bool(!all) } else if outcomes.contains(nil) { want = .null } else { want = .bool(all) }
                    } else {
                        want = .null
                    }
                } else {
                    want = .null
                }
                #expect(result.value(at: row) == want, "\(values[row]) \(op) \(all ? "ALL" : "ANY") \(lists[row])")
            }
        }
    }

    /// LIKE with a constant pattern of literals and `%` against the definition, matched
    /// character by character with backtracking, over random texts (NULLs, empty strings, a
    /// two-byte character) and patterns.
    @Test func substringLikeEqualsTheDefinition() throws {
        func like(_ text: [Character], _ pattern: [Character]) -> Bool {
            guard let first = pattern.first else { return text.isEmpty }
            if first == "%" { return (0 ... text.count).contains { like(Array(text[$0...]), Array(pattern.dropFirst())) } }
            return text.first == first && like(Array(text.dropFirst()), Array(pattern.dropFirst()))
        }
        var random = SplitMix64(seed: 7)
        let alphabet: [Character] = ["a", "b", "c", "é"]
        func word(_ length: Int) -> [Character] { (0 ..< length).map { _ in alphabet[Int(random.next() % 4)] } }
        var texts: [Value] = [.null, .string("")]
        for _ in 0 ..< 200 { texts.append(.string(String(word(Int(random.next() % 9))))) }
        let column = Column(type: .varchar, values: texts)
        for _ in 0 ..< 300 {
            var pattern: [Character] = []
            for _ in 0 ..< Int(random.next() % 5) {
                pattern += random.next() % 2 == 0 ? ["%"] : word(1 + Int(random.next() % 3))
            }
            let compiled = try #require(SubstringPattern(String(pattern)))
            for negated in [false, true] {
                let result = try #require(compiled.evaluate(column, negated: negated))
                for (row, text) in texts.enumerated() {
                    guard case .string(let string) = text else {
                        #expect(result.isNull(row))
                        continue
                    }
                    #expect(result.value(at: row) == .bool(like(Array(string), pattern) != negated), "'\(string)' LIKE '\(String(pattern))'")
                }
            }
        }
        // `_` and a dangling escape are left to the general matcher.
        #expect(SubstringPattern("a_c") == nil)
        #expect(SubstringPattern("ab\\") == nil)
        #expect(SubstringPattern("a\\%b") != nil)
    }

    /// A compiled filter's rows against the whole predicate evaluated the general way and
    /// masked: random conjunctions of comparisons with constants (integers, dates, text, one-scale
    /// and mixed-scale numerics, NULL constants) and a general conjunct, over columns with NULLs.
    @Test func compiledFilterKeepsTheRowsThePredicateHolds() throws {
        var random = SplitMix64(seed: 5)
        let count = 300
        let integers = Column(type: .int32, values: (0 ..< count).map { _ in random.next() % 7 == 0 ? .null : .int32(Int32(random.next() % 20)) })
        let dates = Column(type: .date, values: (0 ..< count).map { _ in .date(Int32(random.next() % 20)) })
        let words = ["", "a", "ab", "b", "ba"]
        let texts = Column(type: .varchar, values: (0 ..< count).map { _ in random.next() % 6 == 0 ? .null : .string(words[Int(random.next() % 5)]) })
        let decimals = column(&random, scale: 2, digits: 3, count: count)
        let mixed = Column(type: .numeric, values: (0 ..< count).map { _ in .decimal(Decimal(mantissa: Int128(random.next() % 300), scale: Int16(random.next() % 3))) })
        let chunk = Chunk(columns: [integers, dates, texts, decimals, mixed], count: count)
        let types: [DataType] = [.int32, .date, .varchar, .numeric, .numeric]
        func constant(for column: Int) -> Value {
            if random.next() % 15 == 0 { return .null }
            switch column {
            case 0: return .int32(Int32(random.next() % 20))
            case 1: return .date(Int32(random.next() % 20))
            case 2: return .string(words[Int(random.next() % 5)])
            default: return .decimal(Decimal(mantissa: Int128(Int64(random.next() % 2000)) - 1000, scale: Int16(random.next() % 3)))
            }
        }
        let operators = ComparisonOperator.allCases
        for round in 0 ..< 400 {
            var conjuncts: [ScalarExpr] = []
            for _ in 0 ..< 1 + Int(random.next() % 4) {
                let column = Int(random.next() % 5)
                let op = operators[Int(random.next() % UInt64(operators.count))]
                let type = types[column]
                conjuncts.append(.call(ScalarFunction.comparison(op, type), [.column(column, type), .literal(constant(for: column), type)]))
            }
            if round % 3 == 0 {
                // A conjunct of another shape, through the general path: two columns compared.
                let general = ScalarExpr.call(ScalarFunction.comparison(.greater, .numeric), [.column(3, .numeric), .column(4, .numeric)])
                conjuncts.insert(general, at: Int(random.next() % UInt64(conjuncts.count + 1)))
            }
            let predicate: ScalarExpr = conjuncts.count == 1 ? conjuncts[0] : .and(conjuncts)
            let mask = ExpressionEvaluator.mask(of: try ExpressionEvaluator.evaluate(predicate, on: chunk, context: EvaluationContext()))
            let want = (0 ..< count).filter { mask[$0] }
            let got = try CompiledFilter(predicate).selection(of: chunk, context: EvaluationContext()) ?? Array(0 ..< count)
            #expect(got == want, "round \(round): \(predicate)")
        }
    }
}
