import SluiceCommandLine
import SluiceServer

/// `sluice serve`'s options for the HTTP app (the dashboard, `/metrics`, `/health` and `/ready`)
/// and the other HTTP listeners: webhooks and the schema registry.
struct HTTPOptions: ParsableArguments {
    @Option(help: "Address for the dashboard, /metrics, /health and /ready.")
    var dashboardListen = "127.0.0.1:5691"

    @Flag(help: "Run without the dashboard and its HTTP endpoints.")
    var noDashboard = false

    @Option(help: "A separate address for Prometheus /metrics (default: the dashboard's).")
    var metricsListen: String?

    @Option(help: "Address for webhook tables' requests (POST /webhook/<database>/<schema>/<table>).")
    var webhookListen = "127.0.0.1:4560"

    @Flag(help: "Run without the webhook listener.")
    var noWebhook = false

    @Option(help: "The largest webhook request body taken, in bytes; a larger one is answered 413.")
    var webhookMaxBodyBytes = 16 << 20

    @Option(help: "Address for the built-in schema registry (Confluent's REST API, for Avro).")
    var schemaRegistryListen = "127.0.0.1:8081"

    @Flag(help: "Run without the built-in schema registry.")
    var noSchemaRegistry = false

    func apply(to configuration: inout ServerConfiguration) throws {
        if !noSchemaRegistry {
            var registry = SchemaRegistryConfiguration()
            (registry.host, registry.port) = try parseAddress(schemaRegistryListen)
            configuration.schemaRegistry = registry
        }
        if noWebhook {
            configuration.webhook = nil
        } else {
            var webhook = WebhookConfiguration()
            (webhook.host, webhook.port) = try parseAddress(webhookListen)
            guard webhookMaxBodyBytes > 0 else { throw ValidationError("--webhook-max-body-bytes must be positive") }
            webhook.maximumBodyBytes = webhookMaxBodyBytes
            configuration.webhook = webhook
        }
        guard !noDashboard else {
            configuration.http = nil
            if metricsListen != nil { throw ValidationError("--metrics-listen needs the dashboard's HTTP server; drop --no-dashboard") }
            return
        }
        var http = HTTPConfiguration()
        (http.host, http.port) = try parseAddress(dashboardListen)
        if let metricsListen { http.metricsAddress = try parseAddress(metricsListen) }
        configuration.http = http
    }
}
