import Foundation
import Synchronization
import SluiceBatch
import SluiceCore
import SluicePlanner
import SluiceState

/// The shared state of one Sluice process: the catalog, the stored rows of every table, and
/// the data directory that keeps both across restarts.
///
/// On disk (`--data-dir`): `catalog.json` holds the relation definitions and is rewritten after
/// every DDL statement; `tables/<id>.chunks` holds a table's rows, written when the server
/// stops cleanly. Crash consistency comes with checkpoints.
package final class Database: TableProvider, Sendable {
    package let catalog = Catalog()
    package let dataDirectory: String?
    private let stores = Mutex<[Int: TableStore]>([:])

    package init(dataDirectory: String?) throws(SluiceError) {
        self.dataDirectory = dataDirectory
        if let dataDirectory { try load(from: dataDirectory) }
    }

    package func store(for tableID: Int) -> TableStore? {
        stores.withLock { $0[tableID] }
    }

    /// Registers a new relation and, for a table, its empty store.
    package func create(_ relation: RelationDefinition) throws(SluiceError) -> TableStore {
        try catalog.add(relation)
        let store = TableStore(types: relation.columns.map(\.type), primaryKey: relation.primaryKey)
        stores.withLock { $0[relation.id] = store }
        try saveCatalog()
        return store
    }

    package func drop(_ relation: RelationDefinition) throws(SluiceError) {
        catalog.remove(id: relation.id)
        stores.withLock { _ = $0.removeValue(forKey: relation.id) }
        if let dataDirectory { try? FileManager.default.removeItem(atPath: "\(dataDirectory)/tables/\(relation.id).chunks") }
        try saveCatalog()
    }

    // MARK: Persistence

    private struct StoredCatalog: Codable {
        var relations: [RelationDefinition]
    }

    package func saveCatalog() throws(SluiceError) {
        guard let dataDirectory else { return }
        do {
            let data = try JSONEncoder().encode(StoredCatalog(relations: catalog.relations))
            try writeAtomically(data, to: "\(dataDirectory)/catalog.json")
        } catch {
            throw SluiceError(.ioError, "could not write the catalog: \(error)")
        }
    }

    /// Writes every table's rows to the data directory.
    package func saveTables() throws(SluiceError) {
        guard let dataDirectory else { return }
        let all = stores.withLock { $0 }
        do {
            try FileManager.default.createDirectory(atPath: "\(dataDirectory)/tables", withIntermediateDirectories: true)
            for (id, store) in all {
                var bytes: [UInt8] = Array("SLUICE-TABLE-1\n".utf8)
                for chunk in store.snapshot().chunks { ChunkCodec.encode(chunk, into: &bytes) }
                try writeAtomically(Data(bytes), to: "\(dataDirectory)/tables/\(id).chunks")
            }
        } catch {
            throw SluiceError(.ioError, "could not write table data: \(error)")
        }
    }

    private func load(from directory: String) throws(SluiceError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let catalogPath = "\(directory)/catalog.json"
            guard FileManager.default.fileExists(atPath: catalogPath) else { return }
            let stored = try JSONDecoder().decode(StoredCatalog.self, from: Data(contentsOf: URL(fileURLWithPath: catalogPath)))
            for relation in stored.relations {
                try catalog.add(relation)
                let store = TableStore(types: relation.columns.map(\.type), primaryKey: relation.primaryKey)
                let path = "\(directory)/tables/\(relation.id).chunks"
                if let data = FileManager.default.contents(atPath: path) {
                    let bytes = [UInt8](data)
                    let header = Array("SLUICE-TABLE-1\n".utf8)
                    guard bytes.starts(with: header) else { throw SluiceError(.ioError, "table file \(path) has an unknown format") }
                    var offset = header.count
                    while offset < bytes.count {
                        try store.insert(try ChunkCodec.decode(bytes, offset: &offset, types: store.types))
                    }
                }
                stores.withLock { $0[relation.id] = store }
            }
        } catch let error as SluiceError {
            throw error
        } catch {
            throw SluiceError(.ioError, "could not read the data directory \(directory): \(error)")
        }
    }

    private func writeAtomically(_ data: Data, to path: String) throws {
        let temporary = path + ".tmp"
        try data.write(to: URL(fileURLWithPath: temporary))
        if FileManager.default.fileExists(atPath: path) { try FileManager.default.removeItem(atPath: path) }
        try FileManager.default.moveItem(atPath: temporary, toPath: path)
    }
}
