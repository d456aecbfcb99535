import SluiceCore

/// Relations a query reads from outside the catalog, named by a table function: RisingWave's
/// `file_scan(format, storage, …)`. The server answers them (the binder knows no connector),
/// and reads the outside system when the query runs, as it reads a source.
package protocol ExternalRelations: AnyObject, Sendable {
    /// The relation `function(arguments)` names: the id its scan reads it by, and its columns;
    /// nil when `function` names none.
    func relation(function: String, arguments: [String]) throws(SluiceError) -> (id: Int, columns: [(name: String, type: DataType)])?
}
