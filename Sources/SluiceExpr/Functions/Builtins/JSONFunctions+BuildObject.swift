import SluiceCore

extension JSONFunctions {
    /// `json_build_object(k1, v1, …)`: a JSON object from alternating keys and values.
    package static func buildObject(_ types: [DataType]) -> ScalarFunction {
        ScalarFunction(name: "json_build_object", argumentTypes: types, resultType: .jsonb) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.buildBytes(rowCount: rowCount, type: .jsonb) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                var text = "{"
                for pair in stride(from: 0, to: arguments.count, by: 2) {
                    if pair > 0 { text += ", " }
                    text += jsonText(.string(arguments[pair].value(at: rowIndex).textForm)) + ": " + jsonText(arguments[pair + 1].value(at: rowIndex))
                }
                out += try JSONText.normalize(text + "}").utf8
                return true
            }
        }.withOrigin(.jsonBuildObject(argumentTypes: types))
    }

    /// A scalar as JSON text.
    static func jsonText(_ value: Value) -> String {
        switch value {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .int16, .int32, .int64, .decimal: return value.textForm
        case .float32, .float64:
            let text = value.textForm
            return text.contains(where: { $0.isLetter && $0 != "e" }) ? "\"\(text)\"" : text
        case .jsonb(let text): return text
        default:
            return JSONText.quoted(value.textForm)
        }
    }
}
