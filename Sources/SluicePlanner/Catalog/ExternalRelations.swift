import SluiceCore
import SluiceSQL

/// Relations a query reads from outside the catalog, named by a table function: RisingWave's
/// `file_scan(format, storage, …)`. The server answers them (the binder knows no connector),
/// and reads the outside system when the query runs, as it reads a source.
package protocol ExternalRelations: AnyObject, Sendable {
    /// The relation `function(arguments)` names: the id its scan reads it by, and its columns;
    /// nil when `function` names none.
    func relation(function: String, arguments: [String]) throws(SluiceError) -> (id: Int, columns: [(name: String, type: DataType)])?

    /// What a relation's name in FROM means to a front door whose names are not the catalog's
    /// (Trino's `catalog.schema.table`): the catalog's name for it, or a relation outside the
    /// catalog; nil leaves the name to the catalog. Asked after WITH's names. Default: nil.
    func resolve(_ name: ObjectName) throws(SluiceError) -> ResolvedRelationName?
}

extension ExternalRelations {
    package func resolve(_ name: ObjectName) throws(SluiceError) -> ResolvedRelationName? { nil }
}

/// What ``ExternalRelations/resolve(_:)`` makes of a name.
package enum ResolvedRelationName: Sendable {
    /// A relation of the catalog, by its own name (`[schema, name]`).
    case catalog(ObjectName)
    /// A relation outside the catalog: the id its scan reads it by, and its columns.
    case external(id: Int, columns: [(name: String, type: DataType)])
}
