import Foundation
import SluiceCore
import SluiceDataflow

/// One option a connector takes in `WITH (…)`: its name, what its value must be, and whether
/// it must be given. A prefix entry (`properties.`, `fields.`) stands for every option whose
/// name starts with it; the connector reads those itself.
package struct ConnectorOption: Sendable {
    package enum Kind: Sendable {
        /// Any text.
        case text
        /// A whole number in the range.
        case integer(ClosedRange<Int64>)
        /// A number (possibly with a fraction) in the range.
        case number(ClosedRange<Double>)
        /// `true` or `false`, in PostgreSQL's spellings.
        case boolean
        /// One of these words, compared without case.
        case choice([String])
    }

    package var name: String
    package var kind: Kind
    package var isRequired: Bool
    package var isPrefix: Bool

    package static func text(_ name: String, required: Bool = false) -> Self {
        Self(name: name, kind: .text, isRequired: required, isPrefix: false)
    }

    package static func integer(_ name: String, _ range: ClosedRange<Int64> = 0 ... .max, required: Bool = false) -> Self {
        Self(name: name, kind: .integer(range), isRequired: required, isPrefix: false)
    }

    package static func number(_ name: String, _ range: ClosedRange<Double>) -> Self {
        Self(name: name, kind: .number(range), isRequired: false, isPrefix: false)
    }

    package static func boolean(_ name: String) -> Self {
        Self(name: name, kind: .boolean, isRequired: false, isPrefix: false)
    }

    package static func choice(_ name: String, _ values: [String], required: Bool = false) -> Self {
        Self(name: name, kind: .choice(values), isRequired: required, isPrefix: false)
    }

    /// Every option named `prefix…` (`properties.` passes the rest to a Kafka client).
    package static func prefix(_ prefix: String) -> Self {
        Self(name: prefix, kind: .text, isRequired: false, isPrefix: true)
    }

    /// What a good value looks like, for the error about a bad one.
    var expectation: String {
        switch kind {
        case .text: "text"
        case .integer(let range):
            if range.upperBound == .max { range.lowerBound == 0 ? "a whole number, 0 or more" : "a whole number of at least \(range.lowerBound)" } else {
                "a whole number from \(range.lowerBound) to \(range.upperBound)"
            }
        case .number(let range):
            if range.lowerBound == .leastNonzeroMagnitude && range.upperBound.isInfinite { "a positive number" } else if range.upperBound.isInfinite {
                "a number of at least \(range.lowerBound.formatted)"
            } else {
                "a number from \(range.lowerBound.formatted) to \(range.upperBound.formatted)"
            }
        case .boolean: "'true' or 'false'"
        case .choice(let values): values.map { "'\($0)'" }.joined(separator: ", ")
        }
    }

    /// Whether `text` is a value of this option.
    func accepts(_ text: String) -> Bool {
        switch kind {
        case .text: true
        case .integer(let range): Int64(text.trimmingSpaces).map { range.contains($0) } ?? false
        case .number(let range): Double(text.trimmingSpaces).map { range.contains($0) && $0.isFinite } ?? false
        case .boolean: ["true", "t", "on", "1", "yes", "false", "f", "off", "0", "no"].contains(text.lowercased())
        case .choice(let values): values.contains { $0.caseInsensitiveEquals(text) }
        }
    }
}

/// The options one connector takes, checked at CREATE the same way for every connector:
/// - an option it does not know is 42601, naming the option and listing the accepted ones,
///   the closest to what was written first (a misspelling's likely meaning leads);
/// - a required option left out is 42601, naming it;
/// - a value of the wrong kind is 22023, naming the option and what it takes.
package struct ConnectorOptionSchema: Sendable {
    /// How messages name the connector (`the kafka connector`, `ENCODE CSV`).
    package var subject: String
    package var options: [ConnectorOption]

    package init(_ subject: String, _ options: [ConnectorOption]) {
        self.subject = subject
        self.options = options
    }

    /// Every option of `self` and of `other` (a connector's and its encoding's).
    package func adding(_ other: [ConnectorOption]) -> Self {
        Self(subject, options + other)
    }

    /// Checks `values` (as written, keys in lower case); throws the first mistake.
    package func check(_ values: [String: String]) throws(SluiceError) {
        for key in values.keys.sorted() {
            guard let option = option(named: key) else { throw unknown(key) }
            if !option.isPrefix, let value = values[key], !option.accepts(value) {
                throw SluiceError(.invalidParameterValue, "option \"\(key)\" of \(subject) must be \(option.expectation), not '\(value)'")
            }
        }
        for option in options where option.isRequired && values[option.name] == nil {
            throw SluiceError(
                .syntaxError, "\(subject) needs option \"\(option.name)\"",
                hint: "Add \(option.name) = '…' to the WITH options.")
        }
    }

    private func option(named key: String) -> ConnectorOption? {
        options.first { $0.isPrefix ? key.hasPrefix($0.name) && key.count > $0.name.count : $0.name == key }
    }

    /// The error for `key`, which no option matches.
    private func unknown(_ key: String) -> SluiceError {
        let names = options.map { $0.isPrefix ? $0.name + "*" : $0.name }
        var seen = Set<String>()
        let ranked = names.filter { seen.insert($0).inserted }
            .map { (name: $0, distance: Self.distance(key, $0.hasSuffix("*") ? String($0.dropLast()) : $0)) }
            .sorted { ($0.distance, $0.name) < ($1.distance, $1.name) }
        var hint = ""
        // A close spelling, or the option's name with a part left out or added (`batched` for
        // `is_batched`), is likely what was meant.
        let bare = { (name: String) in name.hasSuffix("*") ? String(name.dropLast()) : name }
        if let best = ranked.first(where: { $0.distance <= max(2, key.count / 3) }) ?? ranked.first(where: {
            key.count >= 4 && (bare($0.name).contains(key) || key.contains(bare($0.name)))
        }) {
            hint = "Did you mean \"\(best.name)\"? "
        }
        hint += "\(subject.prefix(1).uppercased() + subject.dropFirst()) takes \(ranked.map(\.name).joined(separator: ", "))."
        return SluiceError(.syntaxError, "unknown option \"\(key)\" for \(subject)", hint: hint)
    }

    /// Levenshtein's edit distance between `a` and `b`, over their bytes.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a.utf8), b = Array(b.utf8)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0 ... b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1 ... a.count {
            current[0] = i
            for j in 1 ... b.count {
                current[j] = Swift.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}

/// The options every sink takes beside its connector's (the binder reads them).
package let commonSinkOptions: [ConnectorOption] = [
    .text("connector"), .choice("type", ["append-only", "upsert"]), .boolean("force_append_only"), .text("primary_key"),
    .integer("commit_checkpoint_interval", 1 ... .max),
]

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }

    fileprivate func caseInsensitiveEquals(_ other: String) -> Bool {
        lowercased() == other.lowercased()
    }
}

extension Double {
    fileprivate var formatted: String {
        rounded() == self && abs(self) < 1e15 ? String(Int64(self)) : String(self)
    }
}

extension SinkDescription {
    /// The name a sink's staged files go under: its UUID, or its id when it has none.
    var stagingName: String { sinkID.isEmpty ? String(id) : sinkID }

    /// A local folder for the sink's staged files (`<kind>-<staging name>`): in the sink's own
    /// folder of the data directory, or without one in the system's temporary folder.
    func localStaging(_ kind: String) -> String {
        "\(stateDirectory ?? "\(NSTemporaryDirectory())sluice-sink-staging")/\(kind)-\(stagingName)"
    }
}
