import Foundation
import SluiceCore
import SluiceDataflow
import SluiceLakehouse

/// What a connector is built with beside its description: the server's shared lakehouse, and
/// whether to check the outside system now (at CREATE) or let the connector retry (a restart).
package struct ConnectorContext: Sendable {
    package var lakehouse: Lakehouse
    package var validate: Bool

    package init(lakehouse: Lakehouse = .none, validate: Bool) {
        self.lakehouse = lakehouse
        self.validate = validate
    }
}

/// One connector a `WITH (connector = '…')` can name: the options it takes and how it is made,
/// as a source (or table) reader, as a sink writer, or both.
package struct ConnectorEntry: Sendable {
    package typealias SourceFactory = @Sendable (SourceDescription, ConnectorContext) throws(SluiceError) -> any SourceConnector
    package typealias SinkFactory = @Sendable (SinkDescription, ConnectorContext) throws(SluiceError) -> any StreamSink

    package var name: String
    /// Whether its rows can carry `INCLUDE timestamp | partition | offset | key | payload`.
    package var takesIncludes = false
    package var sourceOptions: [ConnectorOption] = []
    package var makeSource: SourceFactory?
    package var sinkOptions: [ConnectorOption] = []
    package var makeSink: SinkFactory?
}

/// The connectors a source, table or sink can name: one registration line each. A connector
/// is a folder beside this file that declares its options and its factories.
package enum Connectors {
    package static let all: [ConnectorEntry] = [
        KafkaSource.entry,
        DatagenSource.entry,
        IcebergConnector.entry,
        BlackholeSink.entry,
        FileSink.entry,
        FileSource.posixEntry,
        FileSource.s3Entry,
        WebhookConnector.entry,
        PostgresSink.jdbcEntry,
        PostgresSink.postgresEntry,
        PostgresCDCConnector.entry,
    ]

    package static func entry(_ name: String) -> ConnectorEntry? {
        all.first { $0.name == name }
    }

    /// The connector `description` names, its options checked and (with `validate`) checked
    /// against its outside system; an unknown connector is an error that lists the known ones.
    package static func make(_ description: SourceDescription, lakehouse: Lakehouse = .none, validate: Bool) throws(SluiceError) -> any SourceConnector {
        let name = description.options["connector"]?.lowercased() ?? ""
        guard let entry = entry(name), let make = entry.makeSource else {
            let known = all.filter { $0.makeSource != nil }.map { "'\($0.name)'" }.joined(separator: ", ")
            throw SluiceError(.featureNotSupported, "unknown connector \"\(name)\"", hint: "Sources and tables can read from connector = \(known).")
        }
        try ConnectorOptionSchema("the \(name) connector", [.text("connector")] + entry.sourceOptions).check(description.options)
        if !description.includes.isEmpty && !entry.takesIncludes {
            throw SluiceError(.featureNotSupported, "the \(name) connector has no INCLUDE columns", hint: "INCLUDE is for connector = 'kafka'.")
        }
        return try make(description, ConnectorContext(lakehouse: lakehouse, validate: validate))
    }

    /// The sink connector `description` names (`CREATE SINK … WITH (connector = '…')`), its
    /// options checked and (with `validate`, at CREATE) checked against its target.
    package static func makeSink(_ description: SinkDescription, lakehouse: Lakehouse, validate: Bool) throws(SluiceError) -> any StreamSink {
        let name = description.options["connector"]?.lowercased() ?? ""
        guard let entry = entry(name), let make = entry.makeSink else {
            let known = all.filter { $0.makeSink != nil }.map { "'\($0.name)'" }.joined(separator: ", ")
            throw SluiceError(.featureNotSupported, "unknown sink connector \"\(name)\"", hint: "Sinks can write to connector = \(known).")
        }
        try ConnectorOptionSchema("the \(name) sink", commonSinkOptions + entry.sinkOptions).check(description.options)
        return try make(description, ConnectorContext(lakehouse: lakehouse, validate: validate))
    }

    /// The wall-clock time in microseconds since 1970: when a row was rejected, the base of
    /// generated timestamps.
    static func nowMicroseconds() -> Int64 {
        Int64(Date().timeIntervalSince1970 * 1_000_000)
    }
}

/// Sluice's connectors, for a database (the server's, a benchmark's): sources and sinks by
/// their `connector` option, Iceberg's over `lakehouse` (the built-in catalog and S3 settings).
package struct BuiltInConnectors: ConnectorKit {
    package var lakehouse: Lakehouse

    package init(lakehouse: Lakehouse = .none) {
        self.lakehouse = lakehouse
    }

    package func makeSource(_ description: SourceDescription, validate: Bool) throws(SluiceError) -> any SourceConnector {
        try Connectors.make(description, lakehouse: lakehouse, validate: validate)
    }

    package func makeSink(_ description: SinkDescription, validate: Bool) throws(SluiceError) -> any StreamSink {
        try Connectors.makeSink(description, lakehouse: lakehouse, validate: validate)
    }
}
