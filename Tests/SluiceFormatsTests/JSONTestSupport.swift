import SluiceCore
@testable import SluiceFormats

/// Decodes `text` as one message into fresh builders; returns the row's values or the error.
func decodeOne(_ text: String, columns: [(name: String, type: DataType)]) -> Result<[Value], JSONDecodeError> {
    decodeOne(Array(text.utf8), columns: columns)
}

/// Decodes `bytes` (which need not be UTF-8) as one message into fresh builders.
func decodeOne(_ bytes: [UInt8], columns: [(name: String, type: DataType)]) -> Result<[Value], JSONDecodeError> {
    var decoder = JSONRowDecoder(columns: columns)
    var builders = decoder.makeBuilders()
    var bytes = bytes
    let outcome: Result<Void, JSONDecodeError> = bytes.withUnsafeMutableBytes { buffer in
        do throws(JSONDecodeError) {
            try decoder.decodeRow(UnsafeRawBufferPointer(buffer), into: &builders)
            return .success(())
        } catch {
            return .failure(error)
        }
    }
    switch outcome {
    case .success: return .success(builders.map { $0.finish().value(at: 0) })
    case .failure(let error):
        precondition(builders.allSatisfy { $0.count == 0 }, "a failed row left values behind")
        return .failure(error)
    }
}

/// The value of the single column `v` of type `type` decoded from `{"v": json}`.
func decodeValue(_ json: String, as type: DataType) -> Result<Value, JSONDecodeError> {
    decodeOne("{\"v\": \(json)}", columns: [("v", type)]).map { $0[0] }
}

extension Result {
    var value: Success? { if case .success(let value) = self { value } else { nil } }
    var error: Failure? { if case .failure(let error) = self { error } else { nil } }
}
