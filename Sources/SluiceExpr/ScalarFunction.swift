import SluiceCore

/// A vectorized implementation of a scalar function: takes argument columns of equal length
/// and returns the result column. Null handling is the kernel's business (most use
/// ``Kernels`` helpers that propagate nulls).
package typealias ScalarKernel = @Sendable (_ arguments: [Column], _ rowCount: Int, _ context: EvaluationContext) throws(SluiceError) -> Column

/// A resolved built-in function: its name, the argument types it was bound for, its result
/// type and its kernel. Two functions are equal when name and types are equal.
package struct ScalarFunction: Sendable, Equatable, CustomStringConvertible {
    package var name: String
    package var argumentTypes: [DataType]
    package var resultType: DataType
    /// False for functions like `now()` or `random()` whose result is not fixed by the arguments.
    package var isDeterministic: Bool
    package var kernel: ScalarKernel
    /// How the function was resolved, replayed to rebuild it from a stored plan
    /// (``ScalarFunction/init(replaying:)``); nil for a function made any other way, which a
    /// plan cannot store.
    package var origin: FunctionOrigin?

    package init(
        name: String, argumentTypes: [DataType], resultType: DataType, isDeterministic: Bool = true,
        kernel: @escaping ScalarKernel
    ) {
        self.name = name
        self.argumentTypes = argumentTypes
        self.resultType = resultType
        self.isDeterministic = isDeterministic
        self.kernel = kernel
        self.origin = nil
    }

    /// This function, with the origin that rebuilds it.
    package func withOrigin(_ origin: FunctionOrigin) -> ScalarFunction {
        var function = self
        function.origin = origin
        return function
    }

    package static func == (lhs: ScalarFunction, rhs: ScalarFunction) -> Bool {
        lhs.name == rhs.name && lhs.argumentTypes == rhs.argumentTypes && lhs.resultType == rhs.resultType
    }

    package var description: String {
        "\(name)(\(argumentTypes.map(\.sqlName).joined(separator: ", "))) -> \(resultType.sqlName)"
    }
}

/// What evaluation may depend on besides its input: the statement's start time and the session.
package struct EvaluationContext: Sendable {
    /// `now()`: microseconds since 1970-01-01 UTC, fixed for the statement.
    package var statementTimestamp: Int64
    /// The session's `TimeZone` setting, as written.
    package var timeZone: String
    /// The rules of the session's time zone: `timestamptz` shows, reads (without an offset),
    /// truncates and extracts in it.
    package var zone: TimeZoneRules
    /// The zones `AT TIME ZONE` looks up by name (nil: only UTC and fixed offsets).
    package var timeZones: TimeZoneDatabase?

    package init(statementTimestamp: Int64 = 0, timeZone: String = "UTC", zone: TimeZoneRules = .utc, timeZones: TimeZoneDatabase? = nil) {
        self.statementTimestamp = statementTimestamp
        self.timeZone = timeZone
        self.zone = zone
        self.timeZones = timeZones
    }
}
