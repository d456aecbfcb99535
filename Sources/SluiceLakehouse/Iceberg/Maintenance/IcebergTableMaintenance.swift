import SluiceCore
import Synchronization

/// What one maintenance round did, phase by phase (nil: the phase was off or failed).
package struct IcebergMaintenanceReport: Hashable, Sendable {
    package var compaction: IcebergCompactionResult?
    package var expiry: IcebergExpiryResult?
    package var orphanCleanup: IcebergOrphanCleanupResult?
    /// The errors of phases that failed; the later phases still ran.
    package var errors: [SluiceError] = []

    package init() {}

    package var dataFilesRewritten: Int { compaction?.rewrittenDataFiles ?? 0 }
    package var dataFilesAdded: Int { compaction?.addedDataFiles ?? 0 }
    package var bytesRewritten: Int64 { compaction?.rewrittenBytes ?? 0 }
    package var bytesWritten: Int64 { compaction?.addedBytes ?? 0 }
    package var snapshotsExpired: Int { expiry?.expiredSnapshotIDs.count ?? 0 }
    /// Files deleted by expiry and orphan cleanup.
    package var filesDeleted: Int { (expiry?.deletedFiles ?? 0) + (orphanCleanup?.deletedFiles ?? 0) }
}

/// Keeps one table healthy: compaction, then snapshot expiry, then orphan cleanup, one round
/// per ``runOnce()``. Meant to be called on a timer from a background task, one instance per
/// table, one round at a time: overlapping rounds stay consistent (every commit states what it
/// read, and the loser gives up) but waste work.
///
/// Each phase reloads the table, so a phase sees what the previous one committed. A phase that
/// fails is recorded in ``IcebergMaintenanceReport/errors`` and the next phases still run: an
/// unsupported column type must not stop snapshot expiry. Commit conflicts with the table's
/// writers are not errors: the phase gives up for this round.
///
/// Holds the orphan sightings between rounds (see ``IcebergOrphanSightings``).
package final class IcebergTableMaintenance: Sendable {
    package let catalog: any IcebergCatalog
    package let fileIO: any FileIO
    package let identifier: IcebergTableIdentifier
    package let options: IcebergMaintenanceOptions
    package let clock: @Sendable () -> Int64
    private let sightings = Mutex(IcebergOrphanSightings())

    package init(catalog: any IcebergCatalog, fileIO: any FileIO, identifier: IcebergTableIdentifier,
                 options: IcebergMaintenanceOptions = IcebergMaintenanceOptions(),
                 clock: @escaping @Sendable () -> Int64 = icebergMaintenanceSystemClock) {
        self.catalog = catalog
        self.fileIO = fileIO
        self.identifier = identifier
        self.options = options
        self.clock = clock
    }

    /// Runs one round.
    /// - Throws: only when the table cannot be loaded (`42P01` when it does not exist, `3F000`
    ///   without its namespace, catalog and IO errors).
    package func runOnce() async throws(SluiceError) -> IcebergMaintenanceReport {
        var report = IcebergMaintenanceReport()
        if options.compactsDataFiles {
            let table = try await load()
            do throws(SluiceError) {
                report.compaction = try await IcebergCompaction(
                    catalog: catalog, fileIO: fileIO, identifier: identifier, options: options, clock: clock).run(on: table)
            } catch {
                report.errors.append(error)
            }
        }
        if options.expiresSnapshots {
            let table = try await load()
            do throws(SluiceError) {
                let expiry = try await IcebergSnapshotExpiry(
                    catalog: catalog, fileIO: fileIO, identifier: identifier, options: options, clock: clock).run(on: table)
                if let cleanupError = expiry.cleanupError { report.errors.append(cleanupError) }
                report.expiry = expiry
            } catch {
                report.errors.append(error)
            }
        }
        if options.removesOrphanFiles {
            let table = try await load()
            let cleaner = IcebergOrphanFiles(fileIO: fileIO, gracePeriodMs: options.orphanGracePeriodMs, clock: clock)
            do throws(SluiceError) {
                report.orphanCleanup = try await offloadBlocking { [self] () throws(SluiceError) -> IcebergOrphanCleanupResult in
                    var seen = sightings.withLock { $0 }
                    let result = try cleaner.clean(table, sightings: &seen)
                    sightings.withLock { $0 = seen }
                    return result
                }
            } catch {
                report.errors.append(error)
            }
        }
        return report
    }

    private func load() async throws(SluiceError) -> IcebergLoadedTable {
        guard let table = try await catalog.loadTable(identifier) else {
            throw IcebergCatalogError.noSuchTable(identifier.namespace, identifier.name)
        }
        return table
    }
}
