import Foundation
import SluiceCore
import SluicePlanner
import SluiceState

/// The catalog's file: `catalog.json` under the data directory, holding every relation's
/// definition and the next relation id, rewritten whole after every DDL statement. Secrets
/// (CREATE SECRET's, and those in connectors' options) are sealed under `catalog.key`.
struct CatalogFile: Sendable {
    private struct Stored: Codable {
        var relations: [RelationDefinition]
        /// (Absent from files an earlier version wrote: ids then started after the highest.)
        var nextID: Int?
        /// User schemas and their oids (absent from files an earlier version wrote: `public`).
        var schemas: [String: Int]?
        /// Users and roles with their password verifiers (absent from files an earlier version
        /// wrote: `root` alone).
        var roles: [RoleDefinition]?
        /// Schemas' and the database's owners and grants (absent from files an earlier version
        /// wrote: `root` owns them all).
        var access: StoredAccess?
        /// Secrets by name, in clear (only files an earlier version wrote).
        var secrets: [String: String]?
        /// The secrets by name, sealed (``CatalogSeal``).
        var sealedSecrets: String?
        /// Relations whose connectors hold secrets, by id, sealed whole; `relations` holds them
        /// with those secrets masked, in their place.
        var sealedRelations: [Int: String]?
        /// SQL functions (absent from files an earlier version wrote: none).
        var functions: [FunctionDefinition]?
    }

    let path: String
    private let dataDirectory: String

    init(dataDirectory: String) {
        self.dataDirectory = dataDirectory
        path = "\(dataDirectory)/catalog.json"
    }

    /// Writes `relations`, renamed over the old file and fsynced with its directory: a crash
    /// leaves one whole catalog, the old or the new. It holds password verifiers and
    /// connectors' credentials: readable by the server's user only (0600).
    func save(
        _ relations: [RelationDefinition], nextID: Int, schemas: [String: Int], roles: [RoleDefinition], access: StoredAccess, secrets: [String: String],
        functions: [FunctionDefinition] = []
    ) throws(SluiceError) {
        let data: Data
        do {
            var stored = Stored(relations: relations, nextID: nextID, schemas: schemas, roles: roles, access: access)
            stored.functions = functions.isEmpty ? nil : functions
            let secretTexts = Set(secrets.values)
            // Each definition is parsed once (for its masked text), here.
            let holding = relations.indices.compactMap { index -> (Int, String)? in
                let masked = relations[index].maskedDefinition
                return Self.holdsSecrets(relations[index], masked: masked, secretTexts) ? (index, masked) : nil
            }
            if !secrets.isEmpty || !holding.isEmpty {
                let seal = try CatalogSeal(dataDirectory: dataDirectory)
                if !secrets.isEmpty { stored.sealedSecrets = try seal.seal(Array(try JSONEncoder().encode(secrets))) }
                var sealed: [Int: String] = [:]
                for (index, masked) in holding {
                    let relation = relations[index]
                    sealed[relation.id] = try seal.seal(Array(try JSONEncoder().encode(relation)))
                    stored.relations[index] = Self.masked(relation, definition: masked, secretTexts)
                }
                stored.sealedRelations = sealed.isEmpty ? nil : sealed
            }
            data = try JSONEncoder().encode(stored)
        } catch let error as SluiceError {
            throw error
        } catch {
            throw SluiceError(.internalError, "could not encode the catalog: \(error)")
        }
        try Files.writeAtomically([UInt8](data), to: path, permissions: 0o600)
    }

    /// Whether `relation`'s definition or connector holds a secret: an option whose key is a
    /// secret's (``SluiceCore/SecretOptions/isSecret(_:)``), a URL's password, or the value of
    /// a secret it names.
    private static func holdsSecrets(_ relation: RelationDefinition, masked: String, _ secretTexts: Set<String>) -> Bool {
        guard masked == relation.definition, let connector = relation.connector else { return masked != relation.definition }
        return !relation.secretValues.isEmpty || connector.secretNames != nil || connector.options.values.contains(where: secretTexts.contains)
    }

    /// `relation` as the file shows it in clear: its definition masked as SHOW CREATE shows it,
    /// every secret option's value `[REDACTED]`.
    private static func masked(_ relation: RelationDefinition, definition: String, _ secretTexts: Set<String>) -> RelationDefinition {
        var relation = relation
        relation.definition = definition
        if var connector = relation.connector {
            func mask(_ options: [String: String]) -> [String: String] {
                var masked: [String: String] = [:]
                for (key, value) in options {
                    masked[key] = SecretOptions.isSecret(key) || secretTexts.contains(value) ? "[REDACTED]" : URLCredentials.masking(in: value)
                }
                return masked
            }
            connector.options = mask(connector.options)
            connector.formatOptions = mask(connector.formatOptions)
            relation.connector = connector
        }
        return relation
    }

    /// The stored definitions and next id; nil when there is no file yet.
    func read() throws(SluiceError) -> (
        relations: [RelationDefinition], nextID: Int?, schemas: [String: Int]?, roles: [RoleDefinition]?, access: StoredAccess?, secrets: [String: String]?,
        functions: [FunctionDefinition]
    )? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let stored: Stored
        do {
            stored = try JSONDecoder().decode(Stored.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
        } catch {
            throw SluiceError(.ioError, "could not read the catalog \(path): \(error)")
        }
        var relations = stored.relations
        var secrets = stored.secrets
        if stored.sealedSecrets != nil || stored.sealedRelations != nil {
            let seal = try CatalogSeal(dataDirectory: dataDirectory)
            do {
                if let sealedSecrets = stored.sealedSecrets {
                    secrets = try JSONDecoder().decode([String: String].self, from: Data(try seal.open(sealedSecrets)))
                }
                for (index, relation) in relations.enumerated() {
                    guard let sealed = stored.sealedRelations?[relation.id] else { continue }
                    relations[index] = try JSONDecoder().decode(RelationDefinition.self, from: Data(try seal.open(sealed)))
                }
            } catch let error as SluiceError {
                throw error
            } catch {
                throw SluiceError(.ioError, "could not read the catalog \(path): \(error)")
            }
        }
        return (relations, stored.nextID, stored.schemas, stored.roles, stored.access, secrets, stored.functions ?? [])
    }
}
