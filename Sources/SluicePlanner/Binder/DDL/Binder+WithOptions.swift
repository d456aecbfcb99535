import SluiceCore
import SluiceExpr
import SluicePlan
import SluiceSQL

// The WITH options and FORMAT … ENCODE of CREATE SOURCE, CREATE TABLE and CREATE SINK.

extension Binder {
    /// The connector options and format of a CREATE SOURCE or CREATE TABLE; which options a
    /// connector takes is the connector's to check, when the statement runs.
    func connectorSpec(_ options: [WithOption], _ format: FormatEncode?) throws(SluiceError) -> ConnectorSpec {
        let values = try optionValues(options)
        guard let connector = values["connector"], !connector.isEmpty else {
            throw SluiceError(.syntaxError, "the WITH options must name a connector, as in WITH (connector = 'kafka', …)")
        }
        // Whether the connector needs a format (Kafka does; the load generator does not) is the
        // connector's to say.
        // The secrets named (`password = SECRET name`), which DROP SECRET may not take away.
        let secretNames = (options + (format?.options ?? [])).compactMap { option -> String? in
            if case .secret(let name) = option.value { return name.name }
            return nil
        }
        guard let format else {
            var spec = ConnectorSpec(options: values, format: "", encode: "", formatOptions: [:])
            spec.secretNames = secretNames.isEmpty ? nil : secretNames
            return spec
        }
        var formatOptions: [String: String] = [:]
        for option in format.options { formatOptions[option.key] = try optionText(option.value) }
        // `KEY ENCODE z` travels with the format's options, under a name no option has.
        if let keyEncode = format.keyEncode { formatOptions["key.encode"] = keyEncode }
        var spec = ConnectorSpec(options: values, format: format.format, encode: format.encode, formatOptions: formatOptions)
        spec.secretNames = secretNames.isEmpty ? nil : secretNames
        return spec
    }

    /// `WITH (…)` as text values by key, `SECRET name` as the secret's value; a key given twice
    /// is an error.
    func optionValues(_ options: [WithOption]) throws(SluiceError) -> [String: String] {
        var values: [String: String] = [:]
        for (key, option) in try optionsByKey(options) { values[key] = try optionText(option.value) }
        return values
    }

    /// An option's value as text: a secret it names (RisingWave's `SECRET name`) as the
    /// secret's value, 42704 if there is none.
    func optionText(_ value: OptionValue) throws(SluiceError) -> String {
        guard case .secret(let name) = value else { return value.text }
        guard let secret = catalog.secret(named: name.name) else {
            throw SluiceError(
                .undefinedObject, "secret \"\(name.name)\" does not exist",
                hint: "Create it first: CREATE SECRET \(name.name) WITH (backend = 'meta') AS '…'.")
        }
        return secret
    }

    /// `WITH (…)` by key, each option whole (for the positions of errors about its value); a
    /// key given twice is an error.
    func optionsByKey(_ options: [WithOption]) throws(SluiceError) -> [String: WithOption] {
        var values: [String: WithOption] = [:]
        for option in options {
            if values[option.key] != nil {
                throw SluiceError(.syntaxError, "option \"\(option.key)\" is given more than once", position: option.position.errorPosition)
            }
            values[option.key] = option
        }
        return values
    }

    /// The columns an option names as a list (`'a, b'`, as `dedup.key` and a sink's
    /// `primary_key` do), in order: each name trimmed of spaces, and its index in `relation`
    /// (as written, or else lowercased), nil when it has no such column.
    static func columnList(_ text: String, of relation: RelationDefinition) -> [(name: String, index: Int?)] {
        text.split(separator: ",").map { part in
            let name = String(part.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
            return (name, relation.columnIndex(named: name) ?? relation.columnIndex(named: name.lowercased()))
        }
    }
}
