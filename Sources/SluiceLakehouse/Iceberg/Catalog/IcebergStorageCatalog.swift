import Foundation
import Synchronization
import SluiceCore

/// A catalog kept in the warehouse's own files, with no catalog service: Iceberg's Hadoop
/// catalog layout, which RisingWave's `catalog.type = 'storage'` writes too.
///
/// Table `a.b.t` lives at `<warehouse>/a/b/t`. Each commit writes the next
/// `metadata/v<N>.metadata.json` and then `metadata/version-hint.text` holding `N`, which is how
/// readers find the current version: DuckDB's `iceberg_scan('<table folder>')`, Spark's and
/// Flink's Hadoop catalogs, pyiceberg's `StaticTable` on the metadata file. A reader that finds a
/// hint older than the newest file still reads a whole, committed version.
///
/// One writer per table: commits in this process are serialised by a lock and check their
/// requirements against the current version, but object stores offer no atomic
/// create-if-absent across processes, so two servers must not write one table (as with Java's
/// Hadoop catalog on S3).
package final class IcebergStorageCatalog: IcebergCatalog {
    /// The warehouse path (`file:///…`, a plain path, or `s3://bucket/prefix`), without a
    /// trailing slash.
    package let root: String
    package let fileIO: any FileIO
    private let commits = Mutex(())

    package init(root: String, fileIO: any FileIO) {
        var root = root
        while root.hasSuffix("/") { root.removeLast() }
        self.root = root
        self.fileIO = fileIO
    }

    /// The table's folder.
    package func location(of identifier: IcebergTableIdentifier) -> String {
        ([root] + identifier.namespace + [identifier.name]).joined(separator: "/")
    }

    private func hintLocation(_ identifier: IcebergTableIdentifier) -> String { "\(location(of: identifier))/metadata/version-hint.text" }

    private func metadataLocation(_ identifier: IcebergTableIdentifier, version: Int) -> String {
        "\(location(of: identifier))/metadata/v\(version).metadata.json"
    }

    /// The current version number, or nil when the table has none.
    private func currentVersion(_ identifier: IcebergTableIdentifier) throws(SluiceError) -> Int? {
        guard try fileIO.size(hintLocation(identifier)) != nil else { return nil }
        let text = String(decoding: try fileIO.read(hintLocation(identifier)), as: UTF8.self)
        guard let version = Int(text.trimmingCharacters(in: .whitespacesAndNewlines)), version > 0 else {
            throw SluiceError(.dataCorrupted, "\(hintLocation(identifier)) does not hold a version number")
        }
        return version
    }

    // MARK: Blocking calls (a sink's threads)

    package func loadTableNow(_ identifier: IcebergTableIdentifier) throws(SluiceError) -> IcebergLoadedTable? {
        guard let version = try currentVersion(identifier) else { return nil }
        let location = metadataLocation(identifier, version: version)
        return IcebergLoadedTable(metadataLocation: location, metadata: try IcebergTableMetadata(bytes: try fileIO.read(location)))
    }

    package func createTableNow(namespace: [String], _ creation: IcebergTableCreation) throws(SluiceError) -> IcebergLoadedTable {
        let identifier = IcebergTableIdentifier(namespace: namespace, name: creation.name)
        guard !creation.name.isEmpty else { throw IcebergCatalogError.badRequest("table name must not be empty") }
        return try commits.withLock { _ throws(SluiceError) -> IcebergLoadedTable in
            guard try currentVersion(identifier) == nil else { throw IcebergCatalogError.tableExists(namespace, creation.name) }
            return try write(try creation.initialMetadata(defaultLocation: location(of: identifier), now: Self.now()), identifier, version: 1)
        }
    }

    package func commitTableNow(
        _ identifier: IcebergTableIdentifier, requirements: [IcebergTableRequirement], updates: [IcebergTableUpdate]
    ) throws(SluiceError) -> IcebergLoadedTable {
        try commits.withLock { _ throws(SluiceError) -> IcebergLoadedTable in
            guard let version = try currentVersion(identifier) else { throw IcebergCatalogError.noSuchTable(identifier.namespace, identifier.name) }
            let currentLocation = metadataLocation(identifier, version: version)
            let current = try IcebergTableMetadata(bytes: try fileIO.read(currentLocation))
            for requirement in requirements { try requirement.check(against: current) }
            let now = Self.now()
            var updated = try current.applying(updates, now: now)
            guard updated != current else { return IcebergLoadedTable(metadataLocation: currentLocation, metadata: current) }
            updated = updated.recordingPreviousMetadataFile(currentLocation, previousLastUpdatedMs: current.lastUpdatedMs)
            // Never over a version another writer left: that would lose its commit.
            guard try fileIO.size(metadataLocation(identifier, version: version + 1)) == nil else {
                throw IcebergCatalogError.commitConflict("table \(identifier) has a newer version than its version hint")
            }
            return try write(updated, identifier, version: version + 1)
        }
    }

    /// Writes version `version` and then points the hint at it.
    private func write(_ metadata: IcebergTableMetadata, _ identifier: IcebergTableIdentifier, version: Int) throws(SluiceError) -> IcebergLoadedTable {
        let location = metadataLocation(identifier, version: version)
        try fileIO.write(location, metadata.json.bytes)
        try fileIO.write(hintLocation(identifier), Array(String(version).utf8))
        return IcebergLoadedTable(metadataLocation: location, metadata: metadata)
    }

    private static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }

    // MARK: IcebergCatalog

    /// Namespaces are folders, made as tables are written.
    package func createNamespaceIfMissing(_ namespace: [String]) async throws(SluiceError) {}

    package func loadTable(_ identifier: IcebergTableIdentifier) async throws(SluiceError) -> IcebergLoadedTable? {
        try await offloadBlocking { () throws(SluiceError) in try self.loadTableNow(identifier) }
    }

    package func createTable(namespace: [String], _ creation: IcebergTableCreation) async throws(SluiceError) -> IcebergLoadedTable {
        try await offloadBlocking { () throws(SluiceError) in try self.createTableNow(namespace: namespace, creation) }
    }

    package func commitTable(
        _ identifier: IcebergTableIdentifier, requirements: [IcebergTableRequirement], updates: [IcebergTableUpdate]
    ) async throws(SluiceError) -> IcebergLoadedTable {
        try await offloadBlocking { () throws(SluiceError) in try self.commitTableNow(identifier, requirements: requirements, updates: updates) }
    }
}
