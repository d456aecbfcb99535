/// Which `WITH (…)` options hold secrets, and the mask shown in their place.
///
/// The binder, the system catalog and the connectors all ask this one type, so that what SHOW
/// CREATE hides and what a connector's error messages hide is the same set of options.
///
/// The rule is RisingWave's (`batch.redact_sql_option_keywords`, which its query log and
/// diagnostics use): an option is secret when its key, lower-cased, contains `credential`,
/// `key`, `password`, `private`, `secret` or `token`. That covers Kafka's
/// `properties.sasl.password`, `properties.ssl.key.password`, `properties.ssl.keystore.password`
/// and `properties.ssl.truststore.password`, a schema registry's `schema.registry.password`,
/// Iceberg's `catalog.credential`, `catalog.token`, `s3.access.key` and `s3.secret.key`,
/// `aws.credentials.secret_access_key`, and Postgres's `password` and `database.password`.
/// Two additions hold passwords without saying so: Kafka's `sasl.jaas.config` and
/// `sasl.oauthbearer.config`. One exception: `primary_key`, which lists a sink's key columns.
package enum SecretOptions {
    /// What a secret value is shown as (RisingWave's redaction text).
    package static let mask = "[REDACTED]"

    /// Parts of a key that make its option secret (RisingWave's defaults).
    static let keywords = ["credential", "key", "password", "private", "secret", "token"]
    /// Keys that hold secrets although no keyword says so, matched at the end of the key (so
    /// that `properties.sasl.jaas.config` matches too).
    static let secretSuffixes = ["sasl.jaas.config", "sasl.oauthbearer.config"]
    /// Keys a keyword matches that hold no secret.
    static let notSecret: Set<String> = ["primary_key"]
    /// Values shorter than this are not searched for in free text (``maskingSecrets(in:values:)``):
    /// replacing every `id` in a message would garble it and protect nothing a guess would not find.
    static let shortestSearchedValue = 4

    /// Whether the option `key` holds a secret; case and quoting of the key do not matter.
    package static func isSecret(_ key: String) -> Bool {
        let folded = key.lowercased()
        if notSecret.contains(folded) { return false }
        return keywords.contains { folded.contains($0) } || secretSuffixes.contains { folded.hasSuffix($0) }
    }

    /// The texts of `optionLists` (a `WITH` list, a `FORMAT … ENCODE … (…)` list) that must not
    /// appear in a message or a log line: the values of secret options, and the passwords of
    /// URLs (`http://user:password@host`) in any option. Longest first, so that masking a value
    /// before a part of it leaves nothing of either.
    package static func secretValues(of optionLists: [String: String]...) -> [String] {
        longestFirst(optionLists.flatMap { options in
            options.flatMap { key, value in
                (isSecret(key) ? [value] : []) + URLCredentials.secrets(in: value, inProse: false)
            }
        })
    }

    /// `values` without repeats and without those too short to search for, longest first.
    package static func longestFirst(_ values: some Sequence<String>) -> [String] {
        Set(values).filter { $0.utf8.count >= shortestSearchedValue }.sorted { ($0.utf8.count, $0) > ($1.utf8.count, $1) }
    }
}
