import SluiceCore
import SluiceSQL

// What a relation shows of its connector's secrets: nothing. The catalog keeps the definition
// as written (a restart replays it); everything that shows it, or a message about its
// connector, goes through these.
extension RelationDefinition {
    /// The definition as SHOW CREATE and the system tables show it: the values of secret
    /// options masked (``SQLParser/maskingSecrets(in:)``).
    package var maskedDefinition: String {
        SQLParser.maskingSecrets(in: definition)
    }

    /// The texts of the connector's options (its `WITH` and `FORMAT … ENCODE … (…)` lists) that
    /// must not appear in a status, an error message or a log line
    /// (``SluiceCore/SecretOptions/secretValues(of:)``).
    package var secretValues: [String] {
        guard let connector else { return [] }
        return SecretOptions.secretValues(of: connector.options, connector.formatOptions)
    }
}

extension Catalog {
    /// The secret texts of every relation's connector (``RelationDefinition/secretValues``),
    /// longest first: what the statuses and logs of any connector must not show. (All of them:
    /// a message is masked without knowing whose options it might quote.)
    package var secretValues: [String] {
        SecretOptions.longestFirst(relations.flatMap(\.secretValues))
    }
}
