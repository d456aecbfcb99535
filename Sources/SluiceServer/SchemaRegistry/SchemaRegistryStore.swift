import SluiceCore
import SluiceFormats
import SluiceState
import Synchronization

/// An error the schema registry answers with: the HTTP status and Confluent's `error_code`.
package struct SchemaRegistryError: Error, Equatable, Sendable {
    package var status: Int
    package var code: Int
    package var message: String

    package init(status: Int, code: Int, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    static func subjectNotFound(_ subject: String) -> Self { Self(status: 404, code: 40401, "Subject '\(subject)' not found.") }
    static func versionNotFound(_ version: Int) -> Self { Self(status: 404, code: 40402, "Version \(version) not found.") }
    static func schemaNotFound(_ id: Int32? = nil) -> Self { Self(status: 404, code: 40403, id.map { "Schema \($0) not found" } ?? "Schema not found") }
    static func invalidSchema(_ problem: String) -> Self { Self(status: 422, code: 42201, "Invalid schema: \(problem)") }
    static func invalidVersion(_ text: String) -> Self {
        Self(status: 422, code: 42202, "The specified version '\(text)' is not a valid version id. Allowed values are between [1, 2^31-1] and the string \"latest\"")
    }
    static func invalidCompatibility(_ text: String) -> Self {
        Self(
            status: 422, code: 42203,
            "Invalid compatibility level. Valid values are none, backward, forward, full, backward_transitive, forward_transitive, and full_transitive; got '\(text)'")
    }
}

/// The built-in schema registry's schemas (Confluent's model): Avro schemas with global ids,
/// subjects holding versions of them, and compatibility levels, globally (BACKWARD unless set)
/// and per subject.
///
/// Ids are global and stable: a schema (compared in its canonical JSON form) keeps its id in every
/// subject that registers it, and registering a subject's schema again returns it. A new version
/// must be compatible with the subject's versions as its level says (``AvroCompatibilityLevel``,
/// by Avro's schema resolution). Deletes are soft (versions are kept, hidden) unless permanent,
/// which needs the soft delete first, as in Confluent's.
///
/// **Durability.** Every change is written, whole, to `<data-dir>/schema-registry/registry.json`
/// (CRC-32C checked, replaced atomically and fsynced, as the server's other small metadata is)
/// before it is answered; it is read back at start. Without a data directory it lives in memory.
package final class SchemaRegistryStore: Sendable {
    struct Version: Equatable {
        var version: Int
        var id: Int32
        var isDeleted = false
    }

    struct Subject: Equatable {
        var versions: [Version] = []
        var compatibility: AvroCompatibilityLevel?
        /// Whether the subject itself was soft-deleted (every version hidden).
        var live: [Version] { versions.filter { !$0.isDeleted } }
    }

    struct State: Equatable {
        /// Each schema's canonical JSON text, by id.
        var schemas: [Int32: String] = [:]
        var ids: [String: Int32] = [:]
        var subjects: [String: Subject] = [:]
        var compatibility = AvroCompatibilityLevel.backward
        var nextID: Int32 = 1
    }

    private let state: Mutex<State>
    private let path: String?

    /// The store kept under `dataDirectory` (read back if it exists), or in memory without one.
    package init(dataDirectory: String?) throws(SluiceError) {
        guard let dataDirectory else {
            path = nil
            state = Mutex(State())
            return
        }
        let directory = "\(dataDirectory)/schema-registry"
        try Files.createDirectory(directory)
        let path = "\(directory)/registry.json"
        self.path = path
        state = Mutex(Files.exists(path) ? try Self.decode(try Files.readChecksummed(path), path: path) : State())
    }

    // MARK: - Reading

    package func schema(id: Int32) throws(SchemaRegistryError) -> String {
        guard let text = state.withLock({ $0.schemas[id] }) else { throw .schemaNotFound(id) }
        return text
    }

    /// The subjects and versions that hold schema `id`.
    package func usages(of id: Int32) throws(SchemaRegistryError) -> [(subject: String, version: Int)] {
        try state.withLock { (state) throws(SchemaRegistryError) in
            guard state.schemas[id] != nil else { throw .schemaNotFound(id) }
            var usages: [(subject: String, version: Int)] = []
            for subject in state.subjects.keys.sorted() {
                for version in state.subjects[subject]!.live where version.id == id { usages.append((subject, version.version)) }
            }
            return usages
        }
    }

    package func subjects(includingDeleted: Bool) -> [String] {
        state.withLock { state in
            state.subjects.filter { includingDeleted ? !$0.value.versions.isEmpty : !$0.value.live.isEmpty }.keys.sorted()
        }
    }

    package func versions(of subject: String, includingDeleted: Bool) throws(SchemaRegistryError) -> [Int] {
        let found = state.withLock { $0.subjects[subject] }
        let versions = (includingDeleted ? found?.versions : found?.live) ?? []
        guard !versions.isEmpty else { throw .subjectNotFound(subject) }
        return versions.map(\.version)
    }

    /// Version `version` (`latest`, `-1` or a number) of `subject`: its number, id and schema.
    package func version(
        _ version: String, of subject: String, includingDeleted: Bool = false
    ) throws(SchemaRegistryError) -> (version: Int, id: Int32, schema: String) {
        let requested = try Self.versionNumber(version)
        return try state.withLock { (state) throws(SchemaRegistryError) in
            guard let found = state.subjects[subject], !(includingDeleted ? found.versions : found.live).isEmpty else { throw .subjectNotFound(subject) }
            let candidates = includingDeleted ? found.versions : found.live
            let chosen = requested.map { number in candidates.first { $0.version == number } } ?? candidates.last
            guard let chosen else { throw .versionNotFound(requested ?? -1) }
            return (chosen.version, chosen.id, state.schemas[chosen.id] ?? "")
        }
    }

    /// The version of `subject` that holds `schemaText` (POST /subjects/{subject}).
    package func lookup(_ schemaText: String, in subject: String, includingDeleted: Bool) throws(SchemaRegistryError) -> (version: Int, id: Int32, schema: String) {
        let canonical = try Self.canonical(schemaText).text
        return try state.withLock { (state) throws(SchemaRegistryError) in
            guard let found = state.subjects[subject], !found.versions.isEmpty else { throw .subjectNotFound(subject) }
            guard let id = state.ids[canonical],
                let version = (includingDeleted ? found.versions : found.live).last(where: { $0.id == id })
            else { throw .schemaNotFound() }
            return (version.version, id, canonical)
        }
    }

    /// The level of `subject` (nil: the global level).
    package func compatibility(of subject: String?) -> AvroCompatibilityLevel? {
        state.withLock { state in
            guard let subject else { return state.compatibility }
            return state.subjects[subject]?.compatibility
        }
    }

    /// Why `schemaText` could not be registered in `subject` (nil `version`: against the versions
    /// its level names; else against that version alone, in the level's directions).
    package func problems(registering schemaText: String, in subject: String, against version: String?) throws(SchemaRegistryError) -> [String] {
        let candidate = try Self.canonical(schemaText).schema
        let requested = try version.flatMap { (text) throws(SchemaRegistryError) in try Self.versionNumber(text) }
        let (level, earlier) = try state.withLock { (state) throws(SchemaRegistryError) -> (AvroCompatibilityLevel, [String]) in
            let found = state.subjects[subject]
            let level = found?.compatibility ?? state.compatibility
            let live = found?.live ?? []
            guard version != nil else { return (level, live.compactMap { state.schemas[$0.id] }) }
            guard !live.isEmpty else { throw .subjectNotFound(subject) }
            let chosen = requested.map { number in live.first { $0.version == number } } ?? live.last
            guard let chosen else { throw .versionNotFound(requested ?? -1) }
            return (level, [state.schemas[chosen.id] ?? ""])
        }
        var schemas: [AvroSchema] = []
        for text in earlier { if let schema = try? AvroSchema(json: text) { schemas.append(schema) } }
        if version != nil {
            // One version named: checked in the level's directions against it alone.
            return level.nonTransitive.problems(registering: candidate, after: schemas)
        }
        return level.problems(registering: candidate, after: schemas)
    }

    // MARK: - Changing

    /// Registers `schemaText` in `subject`, or finds it there; returns its global id.
    package func register(_ schemaText: String, in subject: String) throws(SchemaRegistryError) -> Int32 {
        let (canonical, schema) = try Self.canonical(schemaText)
        return try change { (state) throws(SchemaRegistryError) -> Int32 in
            var found = state.subjects[subject] ?? Subject()
            if let id = state.ids[canonical], found.live.contains(where: { $0.id == id }) { return id }
            let level = found.compatibility ?? state.compatibility
            var earlier: [AvroSchema] = []
            for version in found.live { if let text = state.schemas[version.id], let parsed = try? AvroSchema(json: text) { earlier.append(parsed) } }
            let problems = level.problems(registering: schema, after: earlier)
            guard problems.isEmpty else {
                throw SchemaRegistryError(
                    status: 409, code: 409,
                    "Schema being registered is incompatible with an earlier schema for subject \"\(subject)\", details: [\(problems.joined(separator: "; "))]")
            }
            let id: Int32
            if let existing = state.ids[canonical] {
                id = existing
            } else {
                id = state.nextID
                state.nextID += 1
                state.schemas[id] = canonical
                state.ids[canonical] = id
            }
            found.versions.append(Version(version: (found.versions.last?.version ?? 0) + 1, id: id))
            state.subjects[subject] = found
            return id
        }
    }

    /// Sets the level of `subject` (nil: the global one).
    package func setCompatibility(_ level: AvroCompatibilityLevel, for subject: String?) throws(SchemaRegistryError) {
        try change { (state) throws(SchemaRegistryError) in
            if let subject {
                var found = state.subjects[subject] ?? Subject()
                found.compatibility = level
                state.subjects[subject] = found
            } else {
                state.compatibility = level
            }
        }
    }

    /// Removes `subject`'s own level; returns it (nil when it had none).
    package func removeCompatibility(of subject: String) throws(SchemaRegistryError) -> AvroCompatibilityLevel? {
        try change { (state) throws(SchemaRegistryError) -> AvroCompatibilityLevel? in
            let previous = state.subjects[subject]?.compatibility
            state.subjects[subject]?.compatibility = nil
            if let found = state.subjects[subject], found.versions.isEmpty, found.compatibility == nil { state.subjects[subject] = nil }
            return previous
        }
    }

    /// Deletes `subject`'s versions: soft (hidden), or for good once soft-deleted. Returns them.
    package func deleteSubject(_ subject: String, permanent: Bool) throws(SchemaRegistryError) -> [Int] {
        try change { (state) throws(SchemaRegistryError) -> [Int] in
            guard var found = state.subjects[subject], !found.versions.isEmpty else { throw .subjectNotFound(subject) }
            if permanent {
                guard found.live.isEmpty else {
                    throw SchemaRegistryError(status: 404, code: 40405, "Subject '\(subject)' was not deleted first before being permanently deleted")
                }
                let versions = found.versions.map(\.version)
                state.subjects[subject] = nil
                state.dropUnusedSchemas()
                return versions
            }
            guard !found.live.isEmpty else {
                throw SchemaRegistryError(status: 404, code: 40404, "Subject '\(subject)' was soft deleted. Set permanent=true to delete permanently")
            }
            let versions = found.live.map(\.version)
            for index in found.versions.indices { found.versions[index].isDeleted = true }
            state.subjects[subject] = found
            return versions
        }
    }

    /// Deletes one version of `subject`, soft or (once soft-deleted) for good. Returns its number.
    package func deleteVersion(_ version: String, of subject: String, permanent: Bool) throws(SchemaRegistryError) -> Int {
        let requested = try Self.versionNumber(version)
        return try change { (state) throws(SchemaRegistryError) -> Int in
            guard var found = state.subjects[subject], !found.versions.isEmpty else { throw .subjectNotFound(subject) }
            let candidates = permanent ? found.versions : found.live
            guard let chosen = requested.map({ number in candidates.first { $0.version == number } }) ?? candidates.last,
                let index = found.versions.firstIndex(of: chosen)
            else { throw .versionNotFound(requested ?? -1) }
            if permanent {
                guard chosen.isDeleted else {
                    throw SchemaRegistryError(
                        status: 404, code: 40407, "Subject '\(subject)' Version \(chosen.version) was not deleted first before being permanently deleted")
                }
                found.versions.remove(at: index)
            } else {
                found.versions[index].isDeleted = true
            }
            state.subjects[subject] = found.versions.isEmpty && found.compatibility == nil ? nil : found
            if permanent { state.dropUnusedSchemas() }
            return chosen.version
        }
    }

    /// Applies `body` to a copy of the state, writes the copy, then makes it the state: a change
    /// that cannot be kept is not made.
    private func change<Result>(_ body: (inout State) throws(SchemaRegistryError) -> Result) throws(SchemaRegistryError) -> Result {
        try state.withLock { (current) throws(SchemaRegistryError) -> Result in
            var next = current
            let result = try body(&next)
            guard next != current else { return result }
            if let path {
                do throws(SluiceError) {
                    try Files.writeChecksummed(Self.encode(next).bytes, to: path)
                } catch {
                    throw SchemaRegistryError(status: 500, code: 50001, "Error in the backend data store: \(error.message)")
                }
            }
            current = next
            return result
        }
    }

    // MARK: - Forms

    /// `text` parsed as an Avro schema, and its canonical JSON text (what ids are given to).
    static func canonical(_ text: String) throws(SchemaRegistryError) -> (text: String, schema: AvroSchema) {
        do throws(SluiceError) {
            let schema = try AvroSchema(json: text)
            return (schema.jsonText, schema)
        } catch {
            throw .invalidSchema(error.message)
        }
    }

    /// A version number, or nil for `latest` (and -1, Confluent's other name for it).
    static func versionNumber(_ text: String) throws(SchemaRegistryError) -> Int? {
        if text == "latest" || text == "-1" { return nil }
        guard let number = Int(text), number >= 1, number <= Int(Int32.max) else { throw .invalidVersion(text) }
        return number
    }

    static func encode(_ state: State) -> JSONDocument {
        .object([
            "compatibility": .string(state.compatibility.rawValue),
            "next_id": .int(Int64(state.nextID)),
            "schemas": .array(state.schemas.keys.sorted().map { id in .object(["id": .int(Int64(id)), "schema": .string(state.schemas[id]!)]) }),
            "subjects": .array(state.subjects.keys.sorted().map { name in
                let subject = state.subjects[name]!
                return .object([
                    "name": .string(name),
                    "compatibility": subject.compatibility.map { .string($0.rawValue) },
                    "versions": .array(subject.versions.map { version in
                        .object(["version": .int(Int64(version.version)), "id": .int(Int64(version.id)), "deleted": .bool(version.isDeleted)])
                    }),
                ])
            }),
        ])
    }

    static func decode(_ bytes: [UInt8], path: String) throws(SluiceError) -> State {
        let json = try JSONDocument.parse(bytes)
        func bad() -> SluiceError { SluiceError(.dataCorrupted, "the schema registry's file \(path) is not what it should be") }
        var state = State()
        guard let level = json["compatibility"]?.stringValue.flatMap(AvroCompatibilityLevel.init(rawValue:)),
            let nextID = json["next_id"]?.integerValue, case .array(let schemas)? = json["schemas"], case .array(let subjects)? = json["subjects"]
        else { throw bad() }
        state.compatibility = level
        state.nextID = Int32(truncatingIfNeeded: nextID)
        for schema in schemas {
            guard let id = schema["id"]?.integerValue, let text = schema["schema"]?.stringValue else { throw bad() }
            state.schemas[Int32(truncatingIfNeeded: id)] = text
            state.ids[text] = Int32(truncatingIfNeeded: id)
        }
        for subject in subjects {
            guard let name = subject["name"]?.stringValue, case .array(let versions)? = subject["versions"] else { throw bad() }
            var found = Subject(compatibility: subject["compatibility"]?.stringValue.flatMap(AvroCompatibilityLevel.init(rawValue:)))
            for version in versions {
                guard let number = version["version"]?.integerValue, let id = version["id"]?.integerValue else { throw bad() }
                found.versions.append(Version(version: Int(number), id: Int32(truncatingIfNeeded: id), isDeleted: version["deleted"] == .bool(true)))
            }
            state.subjects[name] = found
        }
        return state
    }
}

extension SchemaRegistryStore.State {
    /// Forgets schemas no version refers to any more (after a permanent delete); their ids are
    /// not given again.
    mutating func dropUnusedSchemas() {
        let used = Set(subjects.values.flatMap { $0.versions.map(\.id) })
        for id in schemas.keys where !used.contains(id) {
            if let text = schemas[id] { ids[text] = nil }
            schemas[id] = nil
        }
    }
}

extension AvroCompatibilityLevel {
    /// The level with the same directions against one version.
    var nonTransitive: AvroCompatibilityLevel {
        switch self {
        case .none: .none
        case .backward, .backwardTransitive: .backward
        case .forward, .forwardTransitive: .forward
        case .full, .fullTransitive: .full
        }
    }
}
