import SluiceCommandLine
import SluiceServer

/// `sluice serve`'s options for the ksqlDB door (ksqlDB's REST API, port 8088 as ksqlDB's).
struct KsqlOptions: ParsableArguments {
    @Option(help: "Address for ksqlDB's REST API (/ksql, /query, /query-stream, /info).")
    var ksqlListen = "127.0.0.1:8088"

    @Flag(help: "Run without the ksqlDB REST API.")
    var noKsql = false

    func apply(to configuration: inout ServerConfiguration) throws {
        guard !noKsql else {
            configuration.ksql = nil
            return
        }
        var ksql = KsqlConfiguration()
        (ksql.host, ksql.port) = try parseAddress(ksqlListen)
        configuration.ksql = ksql
    }
}
