import SluiceCore

extension JSONFunctions {
    /// ksqlDB's `JSON_RECORDS(json)`: each top-level member of a JSON object text, its key to
    /// its value's JSON text (`{"a": "x", "b": {"c": 1}}` gives `a` → `"x"` with its quotes, `b`
    /// → `{"c":1}`). ksqlDB answers a `MAP<STRING, STRING>`; Sluice has no map type, so the
    /// answer is a jsonb object whose every value is a JSON string holding that text
    /// (`{"a": "\"x\"", "b": "{\"c\":1}"}`): `JSON_RECORDS(j)->>'b'` is ksqlDB's
    /// `JSON_RECORDS(j)['b']`. The texts are compact (no whitespace outside strings), as ksqlDB's
    /// JSON writer prints them. NULL for NULL, for a text that is not JSON and for JSON that is
    /// not an object (ksqlDB's behaviour, which never fails a row).
    static func jsonRecords() -> ScalarFunction {
        ScalarFunction(name: "json_records", argumentTypes: [.varchar], resultType: .jsonb) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let documents = StringArgument(arguments[0])
            // One object and one value buffer for every row, emptied between rows.
            var object: [UInt8] = []
            var compact: [UInt8] = []
            return try Kernels.buildBytes(rowCount: rowCount, type: .jsonb) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                guard !documents.isNull(rowIndex) else { return false }
                return documents.withBytes(rowIndex) { (document: UnsafeBufferPointer<UInt8>) -> Bool in
                    guard kind(of: document) == UInt8(ascii: "{") else { return false }
                    // The whole text must be JSON: the member scanner below is lenient.
                    guard (try? JSONText.normalize(String(decoding: document, as: UTF8.self))) != nil else { return false }
                    object.removeAll(keepingCapacity: true)
                    object.append(UInt8(ascii: "{"))
                    _ = forEachMember(of: document) { key, value in
                        if object.count > 1 { object.append(contentsOf: ", ".utf8) }
                        object.append(contentsOf: UnsafeBufferPointer(rebasing: document[key]))
                        object.append(contentsOf: ": ".utf8)
                        compact.removeAll(keepingCapacity: true)
                        appendCompact(UnsafeBufferPointer(rebasing: document[value]), to: &compact)
                        compact.withUnsafeBytes { JSONText.appendQuoted($0, to: &object) }
                    }
                    object.append(UInt8(ascii: "}"))
                    // Normalized as jsonb is: keys sorted, the last of a repeated key kept.
                    guard let normalized = try? JSONText.normalize(String(decoding: object, as: UTF8.self)) else { return false }
                    out.append(contentsOf: normalized.utf8)
                    return true
                }
            }
        }
    }

    /// Appends the JSON `value` without the whitespace between its tokens (strings as written).
    static func appendCompact(_ value: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        var inString = false
        var escaped = false
        for byte in value {
            if inString {
                out.append(byte)
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                continue
            case UInt8(ascii: "\""):
                inString = true
                out.append(byte)
            default:
                out.append(byte)
            }
        }
    }
}
