/// Prometheus's text exposition format (version 0.0.4), written directly: each family's `# TYPE`
/// line once, then its samples, labels quoted and escaped as the format says.
struct PrometheusExposition {
    enum Kind: String {
        case counter, gauge, histogram
    }

    private var families: [String: (kind: Kind, lines: [String])] = [:]
    private var order: [String] = []

    /// A counter: a count that only grows (the engine keeps it; a new relation's starts at 0).
    mutating func counter(_ name: String, _ labels: [(String, String)], _ value: Int) {
        add(name, .counter, Self.sample(name, labels, String(value)))
    }

    mutating func gauge(_ name: String, _ labels: [(String, String)], _ value: Double) {
        add(name, .gauge, Self.sample(name, labels, Self.number(value)))
    }

    /// A histogram in seconds: `_bucket` lines (cumulative, `+Inf` last), `_sum` and `_count`.
    mutating func histogram(_ name: String, _ histogram: DurationHistogram) {
        var cumulative = 0
        for (bound, count) in zip(DurationHistogram.bounds, histogram.counts) {
            cumulative += count
            add(name, .histogram, Self.sample(name + "_bucket", [("le", Self.number(bound))], String(cumulative)))
        }
        add(name, .histogram, Self.sample(name + "_bucket", [("le", "+Inf")], String(histogram.count)))
        add(name, .histogram, Self.sample(name + "_sum", [], Self.number(histogram.sum)))
        add(name, .histogram, Self.sample(name + "_count", [], String(histogram.count)))
    }

    var bytes: [UInt8] {
        var text = ""
        for name in order {
            guard let family = families[name] else { continue }
            text += "# TYPE \(name) \(family.kind.rawValue)\n"
            for line in family.lines { text += line + "\n" }
        }
        return Array(text.utf8)
    }

    private mutating func add(_ name: String, _ kind: Kind, _ line: String) {
        if families[name] == nil {
            families[name] = (kind, [])
            order.append(name)
        }
        families[name]!.lines.append(line)
    }

    private static func sample(_ name: String, _ labels: [(String, String)], _ value: String) -> String {
        guard !labels.isEmpty else { return "\(name) \(value)" }
        return "\(name){" + labels.map { "\($0.0)=\"\(escaped($0.1))\"" }.joined(separator: ",") + "} \(value)"
    }

    /// A label value with `\`, `"` and line ends escaped.
    static func escaped(_ value: String) -> String {
        var out = ""
        for character in value {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }

    /// A sample's value: integral values without a fraction, others as Swift writes them.
    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}

/// Durations counted into buckets from 5 ms to 10 s, as Prometheus histograms are.
struct DurationHistogram {
    static let bounds: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
    /// Per bucket (not cumulative): durations up to its bound and over the one before.
    private(set) var counts = [Int](repeating: 0, count: bounds.count)
    private(set) var count = 0
    private(set) var sum = 0.0

    mutating func record(nanoseconds: Int64) {
        let seconds = Double(nanoseconds) / 1e9
        count += 1
        sum += seconds
        if let index = Self.bounds.firstIndex(where: { seconds <= $0 }) { counts[index] += 1 }
    }
}
