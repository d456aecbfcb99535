import SluiceCore

/// The files a set of snapshots reaches: their manifest lists, the manifests those list, and
/// the data and delete files in the manifests. Expiry and orphan cleanup both decide what to
/// delete from it, so both read metadata the same way.
struct IcebergReachableFiles {
    /// Manifest list locations.
    var manifestLists: Set<String> = []
    /// Manifests by path.
    var manifests: [String: IcebergManifestFile] = [:]
    /// Data and delete files by path, with their content.
    var contentFiles: [String: IcebergFileContent] = [:]

    /// Reads the manifest lists of `snapshots` and, when `readingManifests`, every manifest.
    ///
    /// - Parameters:
    ///   - liveEntriesOnly: count only added and existing entries (what the snapshots still
    ///     need); otherwise deleted entries too (any mention keeps a file).
    ///   - skippingMissing: pass over manifest lists and manifests that no longer exist (those
    ///     of snapshots being expired may be half cleaned up already) instead of throwing.
    /// - Throws: a file IO error, or `XX001` for a damaged file.
    static func read(_ snapshots: [IcebergSnapshot], fileIO: any FileIO, readingManifests: Bool, liveEntriesOnly: Bool,
                     skippingMissing: Bool, excludingManifests excluded: Set<String> = []) throws(SluiceError) -> IcebergReachableFiles {
        var result = IcebergReachableFiles()
        for snapshot in snapshots {
            result.manifestLists.insert(snapshot.manifestList)
            guard let bytes = try readFile(snapshot.manifestList, fileIO: fileIO, skippingMissing: skippingMissing) else { continue }
            for manifest in try IcebergManifestList.read(bytes).manifests where !excluded.contains(manifest.manifestPath) {
                result.manifests[manifest.manifestPath] = manifest
            }
        }
        guard readingManifests else { return result }
        for manifestFile in result.manifests.values.sorted(by: { $0.manifestPath < $1.manifestPath }) {
            guard let bytes = try readFile(manifestFile.manifestPath, fileIO: fileIO, skippingMissing: skippingMissing) else { continue }
            let manifest = try IcebergManifest.read(bytes, inheritingFrom: manifestFile)
            for entry in manifest.entries where !liveEntriesOnly || entry.status != .deleted {
                result.contentFiles[entry.dataFile.filePath] = entry.dataFile.content
            }
        }
        return result
    }

    private static func readFile(_ location: String, fileIO: any FileIO, skippingMissing: Bool) throws(SluiceError) -> [UInt8]? {
        if skippingMissing, try fileIO.size(location) == nil { return nil }
        return try fileIO.read(location)
    }
}
