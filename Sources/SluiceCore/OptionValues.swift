/// The values of `WITH (…)` options, read alike by the binder and every connector.
package enum OptionValues {
    /// A `'true'`/`'false'` option (PostgreSQL's spellings of a boolean), nil when absent;
    /// anything else is 22023, so a typo is not silently false.
    package static func boolean(_ options: [String: String], _ name: String) throws(SluiceError) -> Bool? {
        guard let text = options[name] else { return nil }
        switch text.lowercased() {
        case "true", "t", "on", "1", "yes": return true
        case "false", "f", "off", "0", "no": return false
        default: throw SluiceError(.invalidParameterValue, "option \(name) must be 'true' or 'false', not '\(text)'")
        }
    }
}
