import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceState

/// Where one aggregate call of a ``StreamHashAggregate`` keeps its state.
///
/// Counters are the aggregate function's ``AggregateAccumulator`` (the batch executor's too);
/// they live in the group's row of the group table from column `slot` on, as the accumulator's
/// `stateTypes` say:
/// - `count(*)`, `count(x)`, `count(DISTINCT x)`: the count;
/// - `sum` and `avg` (also DISTINCT): the sum (NULL before any value) and the number of values;
/// - `bool_and` and `bool_or`: the numbers of true and of false inputs;
/// - `bit_and`, `bit_or` and `bit_xor`: the number of inputs and, per bit, of inputs that set it;
/// - `min`, `max`, `string_agg`, `array_agg`: none; they read their ordered state. Over an
///   append-only input, `min` and `max` instead keep the extreme so far.
struct AggregateLayout {
    /// The index of the aggregate's first slot in a group's state row.
    var slot: Int
    /// The ordered state the aggregate reads (min, max, string_agg, array_agg), or that decides
    /// when its counters change (a DISTINCT count, sum or avg: when a value enters or leaves).
    var orderedState: Int?
    /// Whether the counters take every input row (false for DISTINCT, and for aggregates
    /// without counters).
    var foldsEveryRow: Bool
    /// Whether the aggregate has counters (otherwise it reads only ordered state).
    var hasCounters = false

    /// The accumulator of `call`'s counters.
    static func counters(of call: AggregateCall, inputTypes: [DataType]) -> any AggregateAccumulator {
        AggregateAccumulators.make(kind: call.kind, argumentType: call.argument.map { inputTypes[$0] }, resultType: call.resultType)
    }
}

/// A multiset per group kept in key order, in a state table of its own (``OrderedEntries``):
/// each entry's key is the group's state key (vnode and key values) followed by the entry's
/// own key, its count is its multiplicity, and its row is `[value]` (string_agg adds the
/// delimiter). The group-key encoding is prefix-free, so a group's entries are exactly the keys
/// starting with it.
struct OrderedAggregateState {
    enum Shape: Equatable {
        /// Non-null values, each under its encoding and its exact form (so `1.5` and `1.50` are
        /// kept apart): the first is the minimum, the last the maximum.
        case extremes(argument: Int, filter: Int?)
        /// Non-null values under their encoding alone (equal values are one entry): DISTINCT
        /// count, sum and avg change their counters when an entry appears or disappears.
        case distinctValues(argument: Int, filter: Int?)
        /// The elements of a string_agg or array_agg in output order.
        case elements(Elements)

        var filter: Int? {
            switch self {
            case .extremes(_, let filter), .distinctValues(_, let filter): filter
            case .elements(let elements): elements.filter
            }
        }
    }

    /// The entries of `string_agg(value, delimiter)` or `array_agg(value)`, keyed by the ORDER
    /// BY keys, then the value (ascending, NULLs last: the order without ORDER BY), then the
    /// delimiter. Without DISTINCT the exact forms follow, so every distinct input is its own
    /// entry and equal ones share an entry's multiplicity; with DISTINCT an entry is a distinct
    /// (value, delimiter) pair, output once, as Postgres dedups the whole argument list.
    struct Elements: Equatable {
        var kind: AggregateKind
        var argument: Int
        var delimiter: Int?
        var filter: Int?
        var orderBy: [SortKey]
        var distinct: Bool
    }

    let shape: Shape
    let entries: OrderedEntries
    /// For ``Shape/distinctValues(argument:filter:)``: the aggregates whose counters change
    /// when a value enters or leaves.
    var distinctConsumers: [Int] = []
}

extension StreamHashAggregate {
    /// Lays out the counters of every aggregate and the ordered states they need, sharing one
    /// ordered state between aggregates that need the same one (min(x) and max(x)). Ordered
    /// state `k` gets table id `stateTableID + 1 + k`. Also returns the column types of a
    /// group's state row: the key values, the row count, then every slot.
    static func layOut(
        _ aggregates: [AggregateCall], inputTypes: [DataType], groupCount: Int, stateTableID: Int, appendOnly: Bool = false
    ) throws(SluiceError) -> (layouts: [AggregateLayout], orderedStates: [OrderedAggregateState], stateTypes: [DataType]) {
        var layouts: [AggregateLayout] = []
        var states: [OrderedAggregateState] = []
        func stateIndex(for shape: OrderedAggregateState.Shape) -> Int {
            if let index = states.firstIndex(where: { $0.shape == shape }) { return index }
            var types: [DataType]
            switch shape {
            case .extremes(let argument, _), .distinctValues(let argument, _):
                types = [inputTypes[argument]]
            case .elements(let elements):
                types = [inputTypes[elements.argument]]
                if elements.kind == .stringAgg { types.append(elements.delimiter.map { inputTypes[$0] } ?? .varchar) }
            }
            states.append(OrderedAggregateState(shape: shape, entries: OrderedEntries(id: stateTableID + 1 + states.count, types: types)))
            return states.count - 1
        }
        var stateTypes = Array(inputTypes.prefix(groupCount)) + [.int64]
        var slot = groupCount + 1
        for (index, call) in aggregates.enumerated() {
            for column in [call.argument, call.delimiter, call.filter].compactMap({ $0 }) + call.orderBy.map(\.column)
            where !inputTypes.indices.contains(column) {
                throw SluiceError.internalError("\(call.kind.rawValue) refers to input column \(column) of \(inputTypes.count)")
            }
            var layout = AggregateLayout(slot: slot, orderedState: nil, foldsEveryRow: true)
            if call.kind != .countStar {
                guard let argument = call.argument else {
                    throw SluiceError.internalError("\(call.kind.rawValue) has no argument")
                }
                switch call.kind {
                case .count, .sum, .avg, .bitXor:
                    if call.distinct {
                        let state = stateIndex(for: .distinctValues(argument: argument, filter: call.filter))
                        states[state].distinctConsumers.append(index)
                        layout.orderedState = state
                        layout.foldsEveryRow = false
                    }
                case .min, .max:
                    // DISTINCT changes nothing for an extreme. Without deletes, the extreme so far
                    // is all there is to keep.
                    if !appendOnly {
                        layout.orderedState = stateIndex(for: .extremes(argument: argument, filter: call.filter))
                        layout.foldsEveryRow = false
                    }
                case .stringAgg, .arrayAgg:
                    let delimiter = call.kind == .stringAgg ? call.delimiter : nil
                    if call.distinct && call.orderBy.contains(where: { $0.column != argument && $0.column != delimiter }) {
                        throw SluiceError(
                            .featureNotSupported,
                            "\(call.kind.rawValue) with DISTINCT and ORDER BY over other columns than its arguments is not supported in materialized views")
                    }
                    let elements = OrderedAggregateState.Elements(
                        kind: call.kind, argument: argument, delimiter: delimiter, filter: call.filter, orderBy: call.orderBy,
                        distinct: call.distinct)
                    layout.orderedState = stateIndex(for: .elements(elements))
                    layout.foldsEveryRow = false
                case .boolAnd, .boolOr, .bitAnd, .bitOr, .countStar:
                    // DISTINCT changes nothing for bool_and, bool_or, bit_and and bit_or either.
                    break
                }
            }
            switch call.kind {
            case .count, .countStar, .sum, .avg, .boolAnd, .boolOr, .bitAnd, .bitOr, .bitXor: layout.hasCounters = true
            case .min, .max: layout.hasCounters = appendOnly
            case .stringAgg, .arrayAgg: layout.hasCounters = false
            }
            if layout.hasCounters {
                let types = AggregateLayout.counters(of: call, inputTypes: inputTypes).stateTypes
                stateTypes += types
                slot += types.count
            }
            layouts.append(layout)
        }
        guard stateTypes.count == slot else { throw SluiceError.internalError("aggregate state has \(stateTypes.count) columns for \(slot) slots") }
        return (layouts, states, stateTypes)
    }
}
