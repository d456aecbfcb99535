import Foundation
import SluiceCore
import SluiceDataflow

/// The connectors a source or table can name in `WITH (connector = '…')`.
package enum Connectors {
    /// The connector `description` names, built and (with `validate`) checked against its
    /// outside system; an unknown connector is an error that lists the known ones.
    package static func make(_ description: SourceDescription, lakehouse: Lakehouse = .none, validate: Bool) throws(SluiceError) -> any SourceConnector {
        let name = description.options["connector"]?.lowercased() ?? ""
        switch name {
        case "iceberg":
            guard !description.isTable else {
                throw SluiceError(.featureNotSupported, "a table cannot be fed by the iceberg connector", hint: "Use CREATE SOURCE … WITH (connector = 'iceberg', …).")
            }
            return try IcebergSource(description, lakehouse: lakehouse, validate: validate)
        case "kafka":
            return try KafkaSource(description, validate: validate)
        case "datagen":
            return try DatagenSource(description)
        default:
            throw SluiceError(
                .featureNotSupported, "unknown connector \"\(name)\"",
                hint: "Sources and tables can read from connector = 'kafka' or make rows with connector = 'datagen'; sources can also read connector = 'iceberg'.")
        }
    }

    /// The sink connector `description` names (`CREATE SINK … WITH (connector = '…')`), built
    /// and (with `validate`, at CREATE) checked against its target.
    package static func makeSink(_ description: SinkDescription, lakehouse: Lakehouse, validate: Bool) throws(SluiceError) -> any StreamSink {
        let name = description.options["connector"]?.lowercased() ?? ""
        switch name {
        case "blackhole":
            return BlackholeSink(description)
        case "iceberg":
            return try IcebergSink(description, lakehouse: lakehouse, validate: validate)
        default:
            throw SluiceError(
                .featureNotSupported, "unknown sink connector \"\(name)\"",
                hint: "Sinks can write to connector = 'iceberg', or discard rows with connector = 'blackhole'.")
        }
    }

    /// The wall-clock time in microseconds since 1970: when a row was rejected, the base of
    /// generated timestamps.
    static func nowMicroseconds() -> Int64 {
        Int64(Date().timeIntervalSince1970 * 1_000_000)
    }
}
