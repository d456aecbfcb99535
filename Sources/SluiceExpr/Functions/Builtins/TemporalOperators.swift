import SluiceCore

/// Date and time arithmetic operators (`date + integer`, `timestamp - interval`, …).
enum TemporalOperators {
    /// The temporal operator `left symbol right`, or nil when the operands are not temporal.
    static func binary(_ symbol: String, _ left: DataType, _ right: DataType) -> ScalarFunction? {
        nil
    }
}
