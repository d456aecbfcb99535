import Foundation
import SluiceCore
import SluicePlanner
import SluiceState

/// The catalog's file: `catalog.json` under the data directory, holding every relation's
/// definition, rewritten whole after every DDL statement.
struct CatalogFile: Sendable {
    private struct Stored: Codable {
        var relations: [RelationDefinition]
    }

    let path: String

    init(dataDirectory: String) {
        path = "\(dataDirectory)/catalog.json"
    }

    /// Writes `relations`, renamed over the old file and fsynced with its directory: a crash
    /// leaves one whole catalog, the old or the new.
    func save(_ relations: [RelationDefinition]) throws(SluiceError) {
        let data: Data
        do {
            data = try JSONEncoder().encode(Stored(relations: relations))
        } catch {
            throw SluiceError(.internalError, "could not encode the catalog: \(error)")
        }
        try Files.writeAtomically([UInt8](data), to: path)
    }

    /// The stored definitions; nil when there is no file yet.
    func read() throws(SluiceError) -> [RelationDefinition]? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        do {
            return try JSONDecoder().decode(Stored.self, from: Data(contentsOf: URL(fileURLWithPath: path))).relations
        } catch {
            throw SluiceError(.ioError, "could not read the catalog \(path): \(error)")
        }
    }
}
