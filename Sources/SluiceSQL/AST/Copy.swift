/// `COPY table [(columns)] FROM {STDIN | 'file' | PROGRAM 'command'} [[WITH] (option [value], …)]`,
/// `COPY {table [(columns)] | (query)} TO {STDOUT | 'file' | PROGRAM 'command'} […]`, and the
/// options of the syntax before PostgreSQL 9.0 (`WITH CSV HEADER DELIMITER ','`), which the
/// parser turns into the same option list.
package struct Copy: Hashable, Sendable {
    /// What rows are copied: a table's (all or some columns) or a query's.
    package enum Relation: Hashable, Sendable {
        case table(ObjectName, columns: [String])
        case query(Query)
    }

    /// Where the rows come from or go to.
    package enum Endpoint: Hashable, Sendable {
        /// `STDIN` or `STDOUT`: the client, through the COPY sub-protocol.
        case client
        /// A file on the server.
        case file(String)
        /// `PROGRAM 'command'`.
        case program(String)
    }

    package var relation: Relation
    /// True for `COPY … FROM`, false for `COPY … TO`.
    package var isFrom: Bool
    package var endpoint: Endpoint
    /// The options in the order written, names lower-cased.
    package var options: [CopyOption]

    package init(relation: Relation, isFrom: Bool, endpoint: Endpoint, options: [CopyOption] = []) {
        self.relation = relation
        self.isFrom = isFrom
        self.endpoint = endpoint
        self.options = options
    }
}

/// One COPY option: its lower-cased name and its argument, if any.
package struct CopyOption: Hashable, Sendable {
    /// The argument of an option.
    package enum Argument: Hashable, Sendable {
        /// A string, number or word (`'\t'`, `csv`, `true`), as text.
        case text(String)
        /// `*` (FORCE_QUOTE *).
        case star
        /// A parenthesized column list (FORCE_NULL (a, b)).
        case columns([String])
    }

    package var name: String
    package var argument: Argument?

    package init(name: String, argument: Argument? = nil) {
        self.name = name
        self.argument = argument
    }
}
