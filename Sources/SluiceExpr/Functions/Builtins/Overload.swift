import SluiceCore

/// One signature of a built-in function and how to build it.
struct Overload {
    /// The parameter types; `.numeric` accepts every `numeric(p, s)` as an exact match.
    var parameters: [DataType]
    /// Builds the function for the argument types the binder will cast to (the parameters,
    /// except that a constrained numeric argument keeps its own type).
    var make: ([DataType]) -> ScalarFunction

    init(_ parameters: [DataType], make: @escaping ([DataType]) -> ScalarFunction) {
        self.parameters = parameters
        self.make = make
    }

    init(_ parameters: [DataType], _ function: @autoclosure @escaping () -> ScalarFunction) {
        self.parameters = parameters
        self.make = { _ in function() }
    }
}

/// Postgres's overload resolution (`func_select_candidate`, "Type Conversion: Functions"),
/// for the signatures of one name.
enum OverloadResolution {
    /// The best overload for `arguments` and the types to cast the arguments to, or nil.
    static func select(_ overloads: [Overload], for arguments: [DataType]) -> (Overload, [DataType])? {
        var candidates = overloads.filter { overload in
            overload.parameters.count == arguments.count
                && zip(arguments, overload.parameters).allSatisfy { TypeCoercion.canImplicitlyCast(from: $0, to: $1) }
        }
        if candidates.count > 1 {
            // Most exact matches on typed arguments.
            candidates = keepBest(candidates) { overload in
                zip(arguments, overload.parameters).filter { $0 != .unknown && TypeCoercion.isSameType($0, $1) }.count
            }
        }
        if candidates.count > 1 {
            // Most preferred types where a conversion is needed.
            candidates = keepBest(candidates) { overload in
                zip(arguments, overload.parameters).filter { !TypeCoercion.isSameType($0, $1) && TypeCoercion.isPreferred($1) }.count
            }
        }
        if candidates.count > 1 {
            // Unknown literals lean towards the string category, then to preferred types.
            for (position, argument) in arguments.enumerated() where argument == .unknown {
                let strings = candidates.filter { TypeCoercion.category(of: $0.parameters[position]) == .string }
                if !strings.isEmpty {
                    candidates = strings
                    continue
                }
                let preferred = candidates.filter { TypeCoercion.isPreferred($0.parameters[position]) }
                if !preferred.isEmpty { candidates = preferred }
            }
        }
        if candidates.count > 1 {
            // Assume unknowns have the type of the typed arguments when they all agree.
            let known = Set(arguments.filter { $0 != .unknown })
            if known.count == 1, let only = known.first {
                let matching = candidates.filter { overload in
                    zip(arguments, overload.parameters).allSatisfy { $0 == .unknown ? TypeCoercion.isSameType(only, $1) : true }
                }
                if !matching.isEmpty { candidates = matching }
            }
        }
        guard let chosen = candidates.first else { return nil }
        let castTypes = zip(arguments, chosen.parameters).map { argument, parameter in
            TypeCoercion.isSameType(argument, parameter) ? argument : parameter
        }
        return (chosen, castTypes)
    }

    private static func keepBest(_ candidates: [Overload], by score: (Overload) -> Int) -> [Overload] {
        let scores = candidates.map(score)
        let best = scores.max() ?? 0
        return zip(candidates, scores).filter { $0.1 == best }.map(\.0)
    }
}
