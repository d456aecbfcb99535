import SluiceCore

/// Everything the catalog itself remembers: warehouses, their namespaces with properties, and
/// for each table the location of its current metadata file. Table metadata lives in those
/// files (possibly on S3); this state is small and lives on local disk as one JSON document,
/// `catalog.json`, replaced atomically on every change.
///
/// Why one document rather than a file per table: a rename or a namespace drop then changes
/// one file atomically, and recovery is "read the file"; the state is kilobytes per table, so
/// rewriting it per commit costs far less than the metadata file the commit writes anyway.
struct IcebergCatalogState: Hashable, Sendable {
    var warehouses: [String: Warehouse] = [:]

    struct Warehouse: Hashable, Sendable {
        /// Keyed by ``IcebergCatalogState/key(_:)`` of the namespace parts.
        var namespaces: [String: Namespace] = [:]
    }

    struct Namespace: Hashable, Sendable {
        var parts: [String]
        var properties: [String: String]
        /// Table name → current metadata file location.
        var tables: [String: String] = [:]
    }

    /// Namespace parts joined by the unit separator, which names cannot sensibly contain.
    static func key(_ parts: [String]) -> String { parts.joined(separator: "\u{1F}") }

    static let formatVersion: Int64 = 1

    var json: JSONDocument {
        .object(warehouses.keys.sorted().map { name in
            let warehouse = warehouses[name] ?? Warehouse()
            let namespaces = warehouse.namespaces.keys.sorted().compactMap { warehouse.namespaces[$0] }.map { namespace in
                JSONDocument.object([
                    "namespace": .array(namespace.parts.map { .string($0) }),
                    "properties": .stringMap(namespace.properties),
                    "tables": .stringMap(namespace.tables),
                ])
            }
            return JSONDocument.Member(name, .object(["namespaces": .array(namespaces)]))
        }).wrapped
    }

    init() {}

    init(json: JSONDocument) throws(SluiceError) {
        let root = try IcebergJSONFields(json, context: "catalog state")
        let version = try root.int64("version")
        guard version == IcebergCatalogState.formatVersion else {
            throw SluiceError(.dataCorrupted, "catalog state has unknown format version \(version)")
        }
        let warehouses = try root.object("warehouses")
        for member in warehouses.members {
            let warehouseFields = try IcebergJSONFields(member.value, context: "warehouse \"\(member.key)\"")
            var warehouse = Warehouse()
            for element in try warehouseFields.array("namespaces") {
                let fields = try IcebergJSONFields(element, context: "namespace")
                var parts: [String] = []
                for part in try fields.array("namespace") {
                    guard case .string(let text) = part else { throw IcebergJSONFields.malformed("namespace parts must be strings") }
                    parts.append(text)
                }
                warehouse.namespaces[IcebergCatalogState.key(parts)] = Namespace(
                    parts: parts, properties: try fields.stringMap("properties"), tables: try fields.stringMap("tables"))
            }
            self.warehouses[member.key] = warehouse
        }
    }
}

private extension JSONDocument {
    /// The warehouses object wrapped in the versioned root document.
    var wrapped: JSONDocument {
        .object(["version": .int(IcebergCatalogState.formatVersion), "warehouses": self])
    }
}

/// Loads and saves ``IcebergCatalogState`` under the catalog root directory.
struct IcebergCatalogStateFile: Sendable {
    let path: String

    init(rootDirectory: String) {
        self.path = rootDirectory.hasSuffix("/") ? "\(rootDirectory)catalog.json" : "\(rootDirectory)/catalog.json"
    }

    /// The saved state; an empty catalog when none was saved yet. Stray temp files from a
    /// crash mid-save are removed (the rename never happened, so they were never the state).
    func load() throws(SluiceError) -> IcebergCatalogState {
        CatalogDisk.removeStrayTemporaries(of: path)
        guard let bytes = try CatalogDisk.read(path) else { return IcebergCatalogState() }
        do {
            return try IcebergCatalogState(json: try JSONDocument.parse(bytes))
        } catch {
            throw SluiceError(.dataCorrupted, "catalog state \"\(path)\" is corrupt: \(error.message)")
        }
    }

    func save(_ state: IcebergCatalogState) throws(SluiceError) {
        try CatalogDisk.replace(path, with: state.json.bytes)
    }
}
