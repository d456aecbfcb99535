import SluiceCommandLine
import SluiceServer

/// `sluice serve`'s options for the other engines' front doors: Flink's SQL gateway.
struct FrontDoorOptions: ParsableArguments {
    @Option(help: "Address for Flink's SQL Gateway REST API (Flink's SQL client in gateway mode, /v1 to /v4).")
    var flinkGatewayListen = "127.0.0.1:8083"

    @Flag(help: "Run without Flink's SQL gateway API.")
    var noFlinkGateway = false

    @Option(help: ArgumentHelp(
        "Reach name:port at host:port instead, in connectors' addresses and Flink's catalogs (repeatable): kafka-broker:29092=127.0.0.1:9092 lets a pipeline written for docker-compose use this process's broker.",
        valueName: "name:port=host:port"))
    var hostAlias: [String] = []

    func apply(to configuration: inout ServerConfiguration) throws {
        for alias in hostAlias { configuration.hostAliases.append(try HostAliases.parse(alias)) }
        if !noFlinkGateway {
            let (host, port) = try parseAddress(flinkGatewayListen)
            configuration.flinkGateway = FrontDoorAddress(host: host, port: port)
        }
    }
}
