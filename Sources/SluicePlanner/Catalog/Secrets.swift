import SluiceCore
import SluiceSQL

/// Secrets (`CREATE SECRET name WITH (backend = 'meta') AS 'value'`, RisingWave's): values a
/// webhook table's VALIDATE and connectors' options (`password = SECRET name`) name, stored
/// sealed with the catalog and never shown.
extension Catalog {
    /// The value of secret `name`, or nil when there is none.
    package func secret(named name: String) -> String? {
        secretState.withLock { $0[name] }
    }

    /// Every secret, for the catalog's file.
    package var secrets: [String: String] {
        secretState.withLock { $0 }
    }

    /// Adds secret `name`; 42710 if it exists.
    package func addSecret(_ name: String, value: String) throws(SluiceError) {
        try secretState.withLock { (secrets: inout [String: String]) throws(SluiceError) in
            guard secrets[name] == nil else { throw SluiceError(.duplicateObject, "secret \"\(name)\" already exists") }
            secrets[name] = value
        }
    }

    package func removeSecret(_ name: String) {
        secretState.withLock { _ = $0.removeValue(forKey: name) }
    }

    /// The secrets a catalog file held.
    package func restoreSecrets(_ secrets: [String: String]) {
        secretState.withLock { $0 = secrets }
    }

    /// The relations whose definitions name secret `name` (a webhook table's VALIDATE, a
    /// connector's `option = SECRET name`).
    package func relations(usingSecret name: String) -> [RelationDefinition] {
        relations.filter { $0.connector?.validation?.secret == name || $0.connector?.secretNames?.contains(name) == true }
    }
}
