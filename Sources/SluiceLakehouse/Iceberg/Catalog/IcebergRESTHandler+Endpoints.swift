import SluiceCore

// The namespace and table endpoints: parse the body, call the store off the event loop,
// answer with the REST spec's response shape.

extension IcebergRESTHandler {
    // MARK: Namespaces

    func listNamespaces(_ warehouse: String, _ request: IcebergRESTRequest) async throws(SluiceError) -> IcebergRESTResponse {
        let parentText = request.queryParameters["parent"] ?? ""
        let parent = parentText.isEmpty ? [] : try IcebergRESTHandler.namespace(parentText)
        let store = self.store
        let namespaces = try await offloadBlocking { () throws(SluiceError) in try store.listNamespaces(warehouse: warehouse, parent: parent) }
        return .json(.object(["namespaces": .array(namespaces.map { .array($0.map { .string($0) }) })]))
    }

    func createNamespace(_ warehouse: String, _ request: IcebergRESTRequest) async throws(SluiceError) -> IcebergRESTResponse {
        let body = try IcebergJSONFields(try IcebergRESTHandler.body(request), context: "create namespace request")
        let namespace = try body.stringArray("namespace")
        let properties = try body.stringMap("properties")
        let store = self.store
        _ = try await offloadBlocking { () throws(SluiceError) in
            try store.createNamespace(warehouse: warehouse, namespace, properties: properties)
        }
        return .json(.object(["namespace": .array(namespace.map { .string($0) }), "properties": .stringMap(properties)]))
    }

    func loadNamespace(_ warehouse: String, _ namespace: [String]) async throws(SluiceError) -> IcebergRESTResponse {
        let store = self.store
        let properties = try await offloadBlocking { () throws(SluiceError) in try store.namespaceProperties(warehouse: warehouse, namespace) }
        return .json(.object(["namespace": .array(namespace.map { .string($0) }), "properties": .stringMap(properties)]))
    }

    func namespaceExists(_ warehouse: String, _ namespace: [String]) async throws(SluiceError) -> IcebergRESTResponse {
        let store = self.store
        let exists = try await offloadBlocking { () throws(SluiceError) in try store.namespaceExists(warehouse: warehouse, namespace) }
        return exists ? .noContent : IcebergRESTResponse(status: 404)
    }

    func dropNamespace(_ warehouse: String, _ namespace: [String]) async throws(SluiceError) -> IcebergRESTResponse {
        let store = self.store
        try await offloadBlocking { () throws(SluiceError) in try store.dropNamespace(warehouse: warehouse, namespace) }
        return .noContent
    }

    func updateNamespaceProperties(_ warehouse: String, _ namespace: [String], _ request: IcebergRESTRequest) async throws(SluiceError) -> IcebergRESTResponse {
        let body = try IcebergJSONFields(try IcebergRESTHandler.body(request), context: "update namespace properties request")
        let removals = try body.stringArray("removals")
        let updates = try body.stringMap("updates")
        if !Set(removals).isDisjoint(with: updates.keys) {
            return .errorResponse(status: 422, type: "UnprocessableEntityException", message: "a property key is both updated and removed")
        }
        let store = self.store
        let result = try await offloadBlocking { () throws(SluiceError) in
            try store.updateNamespaceProperties(warehouse: warehouse, namespace, removals: removals, updates: updates)
        }
        func strings(_ values: [String]) -> JSONDocument { .array(values.map { .string($0) }) }
        return .json(.object(["updated": strings(result.updated), "removed": strings(result.removed), "missing": strings(result.missing)]))
    }

    // MARK: Tables

    func listTables(_ warehouse: String, _ namespace: [String]) async throws(SluiceError) -> IcebergRESTResponse {
        let store = self.store
        let names = try await offloadBlocking { () throws(SluiceError) in try store.listTables(warehouse: warehouse, namespace: namespace) }
        return .json(.object(["identifiers": .array(names.map { IcebergTableIdentifier(namespace: namespace, name: $0).json })]))
    }

    func createTable(_ warehouse: String, _ namespace: [String], _ request: IcebergRESTRequest) async throws(SluiceError) -> IcebergRESTResponse {
        let creation = try IcebergTableCreation(json: try IcebergRESTHandler.body(request))
        let store = self.store
        var table = try await offloadBlocking { () throws(SluiceError) in try store.createTable(warehouse: warehouse, namespace: namespace, creation) }
        table.config = vendedConfig(for: table, request)
        return .json(table.loadResultJSON)
    }

    func loadTable(_ warehouse: String, _ identifier: IcebergTableIdentifier, _ request: IcebergRESTRequest) async throws(SluiceError) -> IcebergRESTResponse {
        let store = self.store
        var table = try await offloadBlocking { () throws(SluiceError) in try store.loadTable(warehouse: warehouse, identifier) }
        table.config = vendedConfig(for: table, request)
        return .json(table.loadResultJSON)
    }

    func tableExists(_ warehouse: String, _ identifier: IcebergTableIdentifier) async throws(SluiceError) -> IcebergRESTResponse {
        let store = self.store
        let exists = try await offloadBlocking { () throws(SluiceError) in try store.tableExists(warehouse: warehouse, identifier) }
        return exists ? .noContent : IcebergRESTResponse(status: 404)
    }

    func commitTable(_ warehouse: String, _ identifier: IcebergTableIdentifier, _ request: IcebergRESTRequest) async throws(SluiceError) -> IcebergRESTResponse {
        let body = try IcebergJSONFields(try IcebergRESTHandler.body(request), context: "commit table request")
        var requirements: [IcebergTableRequirement] = []
        for element in try body.optionalArray("requirements") ?? [] { requirements.append(try IcebergTableRequirement(json: element)) }
        var updates: [IcebergTableUpdate] = []
        for element in try body.optionalArray("updates") ?? [] { updates.append(try IcebergTableUpdate(json: element)) }
        let store = self.store
        let (finalRequirements, finalUpdates) = (requirements, updates)
        let table = try await offloadBlocking { () throws(SluiceError) in
            try store.commitTable(warehouse: warehouse, identifier, requirements: finalRequirements, updates: finalUpdates)
        }
        return .json(table.commitResponseJSON)
    }

    func dropTable(_ warehouse: String, _ identifier: IcebergTableIdentifier, _ request: IcebergRESTRequest) async throws(SluiceError) -> IcebergRESTResponse {
        let purge = request.queryParameters["purgeRequested"]?.lowercased() == "true"
        let store = self.store
        try await offloadBlocking { () throws(SluiceError) in try store.dropTable(warehouse: warehouse, identifier, purge: purge) }
        return .noContent
    }

    func renameTable(_ warehouse: String, _ request: IcebergRESTRequest) async throws(SluiceError) -> IcebergRESTResponse {
        let body = try IcebergJSONFields(try IcebergRESTHandler.body(request), context: "rename table request")
        let source = try IcebergTableIdentifier(json: body.value("source") ?? .null)
        let destination = try IcebergTableIdentifier(json: body.value("destination") ?? .null)
        let store = self.store
        try await offloadBlocking { () throws(SluiceError) in try store.renameTable(warehouse: warehouse, from: source, to: destination) }
        return .noContent
    }

    /// The S3 settings for a table on S3 when the client asked for vended credentials.
    func vendedConfig(for table: IcebergLoadedTable, _ request: IcebergRESTRequest) -> [String: String] {
        let delegation = request.headers["x-iceberg-access-delegation"] ?? ""
        let location = table.metadata.location
        guard let s3Settings, delegation.contains("vended-credentials"),
              location.hasPrefix("s3://") || location.hasPrefix("s3a://") else { return [:] }
        return s3Settings.clientConfig
    }
}
