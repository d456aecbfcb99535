import Foundation
import SluiceCore
import SluicePlanner
import SluiceState

/// The catalog's file: `catalog.json` under the data directory, holding every relation's
/// definition and the next relation id, rewritten whole after every DDL statement.
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
        /// Secrets by name (absent from files an earlier version wrote: none).
        var secrets: [String: String]?
    }

    let path: String

    init(dataDirectory: String) {
        path = "\(dataDirectory)/catalog.json"
    }

    /// Writes `relations`, renamed over the old file and fsynced with its directory: a crash
    /// leaves one whole catalog, the old or the new. It holds password verifiers and
    /// connectors' credentials: readable by the server's user only (0600).
    func save(
        _ relations: [RelationDefinition], nextID: Int, schemas: [String: Int], roles: [RoleDefinition], access: StoredAccess, secrets: [String: String]
    ) throws(SluiceError) {
        let data: Data
        do {
            data = try JSONEncoder().encode(Stored(relations: relations, nextID: nextID, schemas: schemas, roles: roles, access: access, secrets: secrets))
        } catch {
            throw SluiceError(.internalError, "could not encode the catalog: \(error)")
        }
        try Files.writeAtomically([UInt8](data), to: path, permissions: 0o600)
    }

    /// The stored definitions and next id; nil when there is no file yet.
    func read() throws(SluiceError) -> (
        relations: [RelationDefinition], nextID: Int?, schemas: [String: Int]?, roles: [RoleDefinition]?, access: StoredAccess?, secrets: [String: String]?
    )? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            let stored = try JSONDecoder().decode(Stored.self, from: Data(contentsOf: URL(fileURLWithPath: path)))
            return (stored.relations, stored.nextID, stored.schemas, stored.roles, stored.access, stored.secrets)
        } catch {
            throw SluiceError(.ioError, "could not read the catalog \(path): \(error)")
        }
    }
}
