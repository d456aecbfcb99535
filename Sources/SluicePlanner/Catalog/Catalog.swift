import Synchronization
import SluiceCore

/// The database's relations, shared by all sessions.
///
/// Names are unique per schema across relation kinds, as in Postgres. Ids start at 16384, the
/// first oid Postgres gives to user objects, so they never collide with system catalog oids.
package final class Catalog: Sendable {
    private struct State {
        var relations: [Int: RelationDefinition] = [:]
        /// User schemas by name, each with its `pg_namespace` oid (`public` is 2200).
        var schemas: [String: Int] = ["public": 2200]
        var nextID = 16384
        var generation = 0
    }

    private let state = Mutex(State())
    private let runtimeReader = Mutex<(any SystemReader)?>(nil)
    /// Users and roles by name (`Roles.swift`); `root` always.
    let roleState = Mutex<[String: RoleDefinition]>(["root": .root])
    /// Schemas' and the database's owners and grants (`Privileges.swift`).
    let accessState = Mutex(StoredAccess())
    /// Secrets by name (`Secrets.swift`).
    let secretState = Mutex<[String: String]>([:])
    /// SQL functions by id (`Functions.swift`).
    let functionState = Mutex<[Int: FunctionDefinition]>([:])

    package init() {}

    /// Where the system tables read the running system from: set once, by the server, when it
    /// starts.
    package func setSystemReader(_ reader: any SystemReader) {
        runtimeReader.withLock { $0 = reader }
    }

    /// The running system's streaming jobs, connectors, checkpoints and memory; with no reader
    /// set (a catalog without a server, as in the planner's tests), nothing runs.
    package var systemReader: any SystemReader {
        runtimeReader.withLock { $0 } ?? IdleSystemReader()
    }

    /// The user schemas and their oids.
    package var schemas: [String: Int] {
        state.withLock { $0.schemas }
    }

    /// Whether schema `name` exists (the system schemas always do).
    package func hasSchema(_ name: String) -> Bool {
        ["pg_catalog", "information_schema", "rw_catalog"].contains(name) || state.withLock { $0.schemas[name] != nil }
    }

    /// Adds schema `name` with `oid`; fails with 42P06 if it exists.
    package func addSchema(_ name: String, oid: Int) throws(SluiceError) {
        try state.withLock { (state: inout State) throws(SluiceError) in
            if state.schemas[name] != nil { throw SluiceError(.duplicateSchema, "schema \"\(name)\" already exists") }
            state.schemas[name] = oid
            state.nextID = max(state.nextID, oid + 1)
            state.generation += 1
        }
    }

    package func removeSchema(_ name: String) {
        state.withLock { state in
            state.schemas[name] = nil
            state.generation += 1
        }
    }

    /// The relation `name` in `schema`, if any.
    package func relation(named name: String, schema: String = "public") -> RelationDefinition? {
        state.withLock { state in state.relations.values.first { $0.name == name && $0.schema == schema } }
    }

    package func relation(id: Int) -> RelationDefinition? {
        state.withLock { $0.relations[id] }
    }

    /// Every relation, in creation order.
    package var relations: [RelationDefinition] {
        state.withLock { $0.relations.values.sorted { $0.id < $1.id } }
    }

    /// The id the next relation gets: ids are never given twice in a data directory (the
    /// catalog's file keeps it), so it is also the catalog's version, which a checkpoint records.
    package var nextID: Int {
        state.withLock { $0.nextID }
    }

    /// Makes every id below `id` taken (the ids a data directory gave before).
    package func reserveIDs(below id: Int) {
        state.withLock { $0.nextID = max($0.nextID, id) }
    }

    /// Reserves a new relation id.
    package func allocateID() -> Int {
        state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
    }

    /// Adds `relation`; fails with 42P07 if its name is taken.
    package func add(_ relation: RelationDefinition) throws(SluiceError) {
        try state.withLock { (state: inout State) throws(SluiceError) in
            if state.relations.values.contains(where: { $0.schema == relation.schema && ($0.name == relation.name || $0.indexList.contains { $0.name == relation.name }) }) {
                throw SluiceError(.duplicateTable, "relation \"\(relation.name)\" already exists")
            }
            state.relations[relation.id] = relation
            state.nextID = max(state.nextID, relation.id + 1)
            state.generation += 1
        }
    }

    /// The index `name` in `schema` and the table it belongs to, if any.
    package func index(named name: String, schema: String = "public") -> (table: RelationDefinition, index: IndexDefinition)? {
        state.withLock { state in
            for relation in state.relations.values where relation.schema == schema {
                if let index = relation.indexList.first(where: { $0.name == name }) { return (relation, index) }
            }
            return nil
        }
    }

    /// Adds `index` to table `tableID`; fails with 42P07 if its name is taken in the table's schema.
    package func addIndex(_ index: IndexDefinition, toTable tableID: Int) throws(SluiceError) {
        try state.withLock { (state: inout State) throws(SluiceError) in
            guard var table = state.relations[tableID] else { throw SluiceError(.undefinedTable, "relation \(tableID) does not exist") }
            if state.relations.values.contains(where: { $0.schema == table.schema && ($0.name == index.name || $0.indexList.contains { $0.name == index.name }) }) {
                throw SluiceError(.duplicateTable, "relation \"\(index.name)\" already exists")
            }
            table.indexes = table.indexList + [index]
            state.relations[tableID] = table
            state.nextID = max(state.nextID, index.id + 1)
            state.generation += 1
        }
    }

    /// Removes index `indexID` from table `tableID`.
    package func removeIndex(_ indexID: Int, fromTable tableID: Int) {
        state.withLock { state in
            guard var table = state.relations[tableID] else { return }
            table.indexes = table.indexList.filter { $0.id != indexID }
            state.relations[tableID] = table
            state.generation += 1
        }
    }

    /// Relations that read relation `id`, directly.
    package func dependents(of id: Int) -> [RelationDefinition] {
        state.withLock { state in state.relations.values.filter { $0.dependencies.contains(id) }.sorted { $0.id < $1.id } }
    }

    /// Removes relation `id` and returns it.
    @discardableResult
    package func remove(id: Int) -> RelationDefinition? {
        state.withLock { state in
            state.generation += 1
            return state.relations.removeValue(forKey: id)
        }
    }

    /// Sets relation `id`'s owner and grants.
    package func setAccess(_ access: ObjectAccess, relationID id: Int) {
        state.withLock { state in
            state.relations[id]?.access = access
            state.generation += 1
        }
    }

    /// Makes plans bound before now bound again (privileges changed).
    func bumpGeneration() {
        state.withLock { $0.generation += 1 }
    }

    /// Changes with every relation added or removed, and every grant: a plan bound at one
    /// generation is valid while the generation stays.
    package var generation: Int {
        state.withLock { $0.generation }
    }
}
