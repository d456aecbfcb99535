extension Duration {
    /// The duration in seconds, as a floating-point number (rates, pacing, benchmark figures).
    package var inSeconds: Double {
        Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    /// The duration in whole nanoseconds (saturating).
    package var nanoseconds: Int64 {
        let (seconds, overflow) = components.seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? (components.seconds < 0 ? .min : .max) : seconds &+ components.attoseconds / 1_000_000_000
    }
}
