import Foundation
import Synchronization
import SluiceBatch
import SluiceCore
import SluiceDataflow
import SluiceExpr
import SluicePlan
import SluicePlanner
import SluiceSQL
import SluiceState

// The catalog file and the start of a database from its data directory: the catalog, the tables'
// recovery, connectors at their positions, and views rebuilt from their definitions.
extension Database {
    struct StoredCatalog: Codable {
        var relations: [RelationDefinition]
    }

    package func saveCatalog() throws(SluiceError) {
        guard let dataDirectory else { return }
        let data: Data
        do {
            data = try JSONEncoder().encode(StoredCatalog(relations: catalog.relations))
        } catch {
            throw SluiceError(.internalError, "could not encode the catalog: \(error)")
        }
        // Renamed over the old file and fsynced with its directory: a crash leaves one whole
        // catalog, the old or the new.
        try Files.writeAtomically([UInt8](data), to: "\(dataDirectory)/catalog.json")
    }

    func load(from directory: String) throws(SluiceError) {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let catalogPath = "\(directory)/catalog.json"
            guard FileManager.default.fileExists(atPath: catalogPath) else { return }
            let stored = try JSONDecoder().decode(StoredCatalog.self, from: Data(contentsOf: URL(fileURLWithPath: catalogPath)))
            for relation in stored.relations where relation.kind == .source {
                try catalog.add(relation)
            }
            var tables: [Int: TableStore] = [:]
            for relation in stored.relations where relation.kind == .table {
                try catalog.add(relation)
                let store = TableStore(types: relation.columns.map(\.type), primaryKey: relation.primaryKey)
                tables[relation.id] = store
                stores.add(store, id: relation.id)
            }
            recovery = try TableJournal.recover(dataDirectory: directory, into: tables)
            journal = try TableJournal(dataDirectory: directory)
            // Connectors start from their definitions (not checked again: an outside system that
            // is down now is retried, with the reason in `sluice_sources.status`).
            for relation in stored.relations where relation.connector != nil {
                do {
                    var description = Self.sourceDescription(relation)
                    if let positions = recovery?.positions[relation.id] { description.startPositions = positions }
                    start(try makeConnector(description, false), for: relation)
                } catch {
                    FileHandle.standardError.write(Data("sluice: the connector of \(relation.name) did not start: \(error.message)\n".utf8))
                }
            }
            // Views read tables, sources and earlier views: rebuild them in creation order.
            for relation in stored.relations.filter({ $0.kind == .materializedView }).sorted(by: { $0.id < $1.id }) {
                try restoreMaterializedView(relation)
            }
        } catch let error as SluiceError {
            throw error
        } catch {
            throw SluiceError(.ioError, "could not read the data directory \(directory): \(error)")
        }
    }

    /// Binds a stored view definition again and starts maintaining it under its old id.
    private func restoreMaterializedView(_ stored: RelationDefinition) throws(SluiceError) {
        let statements = try SQLParser.parse(stored.definition)
        guard statements.count == 1 else { throw SluiceError(.ioError, "the stored definition of \(stored.name) is not one statement") }
        var binder = Binder(catalog: catalog, session: SessionInfo(user: "root", database: "dev"))
        guard case .createMaterializedView(var relation, let plan) = try binder.bind(statements[0]) else {
            throw SluiceError(.ioError, "the stored definition of \(stored.name) is not a materialized view")
        }
        relation.id = stored.id
        _ = try createMaterializedView(relation, plan: plan)
    }
}
