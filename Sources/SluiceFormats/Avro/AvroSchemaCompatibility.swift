import SluiceCore

// Avro specification, "Schema Resolution": whether data written with one schema can be read
// with another. Schema registries build their compatibility levels on it.

extension AvroSchema {
    /// Why data written with `writer` cannot be read as this schema (the reader), one line per
    /// problem found; empty when it can, by the specification's resolution rules:
    /// - the same primitive, or a promotion: `int` to `long`, `float` or `double`; `long` to
    ///   `float` or `double`; `float` to `double`; `string` to `bytes` and back;
    /// - records with the same unqualified name (or a reader alias), where every reader field is
    ///   either in the writer (by name or alias, its type resolving) or has a default; writer
    ///   fields the reader lacks are skipped;
    /// - enums with the same name, every writer symbol in the reader's (or the reader has a
    ///   default symbol); fixed types with the same name and size;
    /// - arrays whose items, maps whose values resolve;
    /// - a writer union whose every branch resolves against the reader; a reader union with a
    ///   branch the (non-union) writer resolves against.
    ///
    /// Logical types do not matter here (the specification resolves the underlying types).
    package func incompatibilities(readingDataWrittenWith writer: AvroSchema) -> [String] {
        var problems: [String] = []
        var checking = Set<ResolutionPair>()
        check(writer, path: "", problems: &problems, checking: &checking, readerNames: namedTypes, writerNames: writer.namedTypes)
        return problems
    }

    /// Whether data written with `writer` can be read as this schema.
    package func canRead(dataWrittenWith writer: AvroSchema) -> Bool {
        incompatibilities(readingDataWrittenWith: writer).isEmpty
    }

    /// A reader and writer type pair being resolved: a recursive pair met again is taken as
    /// resolving (its other fields are checked where it was first met).
    private struct ResolutionPair: Hashable {
        var reader: String
        var writer: String
    }

    private func check(
        _ writer: AvroSchema, path: String, problems: inout [String], checking: inout Set<ResolutionPair>,
        readerNames: [String: AvroSchema], writerNames: [String: AvroSchema]
    ) {
        let reader: AvroSchema
        if case .reference(let name) = kind, let definition = readerNames[name] { reader = definition } else { reader = self }
        var writer = writer
        if case .reference(let name) = writer.kind, let definition = writerNames[name] { writer = definition }
        let at = path.isEmpty ? "" : " at \(path)"
        // A writer union: each branch it may hold must be readable.
        if case .union(let branches) = writer.kind {
            for branch in branches {
                reader.check(branch, path: path, problems: &problems, checking: &checking, readerNames: readerNames, writerNames: writerNames)
            }
            return
        }
        if case .union(let branches) = reader.kind {
            // The first branch that matches by kind is chosen, as the specification says.
            for branch in branches {
                var trial: [String] = []
                branch.check(writer, path: path, problems: &trial, checking: &checking, readerNames: readerNames, writerNames: writerNames)
                if trial.isEmpty { return }
            }
            problems.append("reader union\(at) has no branch for the writer's \(writer.typeName)")
            return
        }
        switch (reader.kind, writer.kind) {
        case (.null, .null), (.boolean, .boolean), (.int, .int), (.long, .long), (.float, .float), (.double, .double),
            (.bytes, .bytes), (.string, .string):
            return
        case (.long, .int), (.float, .int), (.float, .long), (.double, .int), (.double, .long), (.double, .float),
            (.string, .bytes), (.bytes, .string):
            return
        case (.fixed(let readerName, let readerSize), .fixed(let writerName, let writerSize)):
            if !reader.names(writerName, readerName) { problems.append("fixed\(at): name \(writerName) is read as \(readerName)") }
            if readerSize != writerSize { problems.append("fixed\(at): size \(writerSize) is read as size \(readerSize)") }
        case (.enumeration(let readerName, let readerSymbols), .enumeration(let writerName, let writerSymbols)):
            if !reader.names(writerName, readerName) { problems.append("enum\(at): name \(writerName) is read as \(readerName)") }
            let hasDefault = reader.property("default")?.stringValue != nil
            let missing = writerSymbols.filter { !readerSymbols.contains($0) }
            if !missing.isEmpty && !hasDefault {
                problems.append("enum \(readerName)\(at) lacks the writer's symbols \(missing.joined(separator: ", "))")
            }
        case (.array(let readerItems), .array(let writerItems)):
            readerItems.check(
                writerItems, path: path + "[]", problems: &problems, checking: &checking, readerNames: readerNames, writerNames: writerNames)
        case (.map(let readerValues), .map(let writerValues)):
            readerValues.check(
                writerValues, path: path + "{}", problems: &problems, checking: &checking, readerNames: readerNames, writerNames: writerNames)
        case (.record(let readerName, let readerFields), .record(let writerName, let writerFields)):
            guard reader.names(writerName, readerName) else {
                problems.append("record\(at): name \(writerName) is read as \(readerName)")
                return
            }
            guard checking.insert(ResolutionPair(reader: readerName, writer: writerName)).inserted else { return }
            defer { checking.remove(ResolutionPair(reader: readerName, writer: writerName)) }
            for field in readerFields {
                let fieldPath = path.isEmpty ? field.name : path + "." + field.name
                let names = [field.name] + field.aliases
                if let written = writerFields.first(where: { names.contains($0.name) }) {
                    field.type.check(
                        written.type, path: fieldPath, problems: &problems, checking: &checking, readerNames: readerNames, writerNames: writerNames)
                } else if field.defaultValue == nil {
                    problems.append("reader field \(fieldPath) is not in the writer's schema and has no default")
                }
            }
        default:
            problems.append("the writer's \(writer.typeName)\(at) cannot be read as \(reader.typeName)")
        }
    }

    /// Whether a named type of this (reader) schema, called `readerName`, reads the writer's
    /// type `writerName`: the same unqualified name, or a reader alias naming it.
    private func names(_ writerName: String, _ readerName: String) -> Bool {
        if Self.unqualified(writerName) == Self.unqualified(readerName) { return true }
        guard case .array(let aliases)? = property("aliases") else { return false }
        return aliases.contains { $0.stringValue.map { $0 == writerName || Self.unqualified($0) == Self.unqualified(writerName) } ?? false }
    }

    private static func unqualified(_ name: String) -> String {
        name.split(separator: ".").last.map(String.init) ?? name
    }

    /// The type's name in messages: `int`, `record Order`, `union`.
    package var typeName: String {
        switch kind {
        case .null: "null"
        case .boolean: "boolean"
        case .int: "int"
        case .long: "long"
        case .float: "float"
        case .double: "double"
        case .bytes: "bytes"
        case .string: "string"
        case .fixed(let name, _): "fixed \(name)"
        case .enumeration(let name, _): "enum \(name)"
        case .array: "array"
        case .map: "map"
        case .record(let name, _): "record \(name)"
        case .union: "union"
        case .reference(let name): name
        }
    }
}

extension AvroField {
    /// The field's `aliases`: other names a reader takes it by.
    package var aliases: [String] {
        guard case .array(let values)? = properties.first(where: { $0.key == "aliases" })?.value else { return [] }
        return values.compactMap(\.stringValue)
    }
}

/// A schema registry's compatibility level (Confluent's names): which earlier versions of a
/// subject a new schema must resolve against, and in which direction.
package enum AvroCompatibilityLevel: String, Sendable, CaseIterable {
    case none = "NONE"
    /// The new schema reads data written with the latest one (consumers upgrade first).
    case backward = "BACKWARD"
    case backwardTransitive = "BACKWARD_TRANSITIVE"
    /// The latest schema reads data written with the new one (producers upgrade first).
    case forward = "FORWARD"
    case forwardTransitive = "FORWARD_TRANSITIVE"
    /// Both directions.
    case full = "FULL"
    case fullTransitive = "FULL_TRANSITIVE"

    /// Why `candidate` may not follow `earlier` (oldest first) under this level; empty when it may.
    package func problems(registering candidate: AvroSchema, after earlier: [AvroSchema]) -> [String] {
        let against: [AvroSchema]
        switch self {
        case .none: return []
        case .backward, .forward, .full: against = earlier.last.map { [$0] } ?? []
        case .backwardTransitive, .forwardTransitive, .fullTransitive: against = earlier.reversed()
        }
        var problems: [String] = []
        for existing in against {
            if readsBackward {
                problems += candidate.incompatibilities(readingDataWrittenWith: existing).map { "the new schema cannot read the old one's data: \($0)" }
            }
            if readsForward {
                problems += existing.incompatibilities(readingDataWrittenWith: candidate).map { "the old schema cannot read the new one's data: \($0)" }
            }
        }
        return problems
    }

    private var readsBackward: Bool { self == .backward || self == .backwardTransitive || self == .full || self == .fullTransitive }
    private var readsForward: Bool { self == .forward || self == .forwardTransitive || self == .full || self == .fullTransitive }
}
