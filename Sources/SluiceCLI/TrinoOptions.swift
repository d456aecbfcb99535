import SluiceCommandLine
import SluiceServer

/// `sluice serve`'s options for the Trino door: Trino's client protocol, for the `trino` and
/// `presto` command lines and their drivers.
struct TrinoOptions: ParsableArguments {
    @Option(help: "Address for Trino's client protocol (trino --server localhost:8080).")
    var trinoListen = "127.0.0.1:8080"

    @Flag(help: "Run without the Trino protocol listener.")
    var noTrino = false

    @Option(help: ArgumentHelp(
        "The warehouse of the built-in Iceberg catalog that Trino's catalog iceberg reads.",
        discussion: "Without it, iceberg.<schema> is the namespace in whichever warehouse has it (an error naming them when two do); every warehouse is also a Trino catalog of its own name."))
    var trinoIcebergWarehouse: String?

    @Option(help: "Seconds after which a Trino query no client asks about is cancelled and dropped.")
    var trinoAbandonedQuerySeconds = 300

    func apply(to configuration: inout ServerConfiguration) throws {
        guard !noTrino else {
            configuration.trino = nil
            return
        }
        var trino = TrinoConfiguration()
        (trino.host, trino.port) = try parseAddress(trinoListen)
        trino.icebergWarehouse = trinoIcebergWarehouse
        guard trinoAbandonedQuerySeconds > 0 else { throw ValidationError("--trino-abandoned-query-seconds must be positive") }
        trino.abandonedAfter = .seconds(trinoAbandonedQuerySeconds)
        configuration.trino = trino
    }
}
