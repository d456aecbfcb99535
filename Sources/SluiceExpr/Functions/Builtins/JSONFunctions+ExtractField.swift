import SluiceCore

extension JSONFunctions {
    /// ksqlDB's `EXTRACTJSONFIELD(json, path)`: the value at a JSONPath such as `$.info.city`,
    /// `$.teams[0]` or `$['odd key']` of a JSON text, as text. A string comes back without its
    /// quotes and escapes, an object or array as its JSON text, JSON `null`, a missing member or
    /// a text that is not JSON as NULL (ksqlDB's behaviour, which never fails a row).
    ///
    /// - Complexity: O(bytes of the document before the value), with no tree built.
    static func extractJSONField() -> ScalarFunction {
        ScalarFunction(name: "extractjsonfield", argumentTypes: [.varchar, .varchar], resultType: .varchar) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let documents = StringArgument(arguments[0])
            let paths = StringArgument(arguments[1])
            return try Kernels.strings(arguments, rowCount: rowCount) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                guard let steps = paths.withBytes(rowIndex, { JSONPathStep.parse($0) }) else { return false }
                return documents.withBytes(rowIndex) { (document: UnsafeBufferPointer<UInt8>) -> Bool in
                    var found = 0 ..< document.count
                    for step in steps {
                        let value = UnsafeBufferPointer(rebasing: document[found])
                        let inner: Range<Int>?
                        switch step {
                        case .member(let key): inner = key.withUnsafeBufferPointer { JSONAccess.field($0, in: value) }
                        case .element(let index): inner = JSONAccess.element(index, in: value)
                        }
                        guard let inner else { return false }
                        found = (found.lowerBound + inner.lowerBound) ..< (found.lowerBound + inner.upperBound)
                    }
                    let start = JSONAccess.skipWhitespace(document, found.lowerBound)
                    guard start < found.upperBound else { return false }
                    let end = JSONAccess.valueEnd(document, start)
                    let value = UnsafeBufferPointer(rebasing: document[start ..< min(end, found.upperBound)])
                    if value.first == UInt8(ascii: "\"") { return JSONAccess.unescapeString(value, to: &out) }
                    if value.elementsEqual("null".utf8) { return false }
                    out.append(contentsOf: value)
                    return true
                }
            }
        }
    }
}

/// One step of a JSONPath as ksqlDB's `EXTRACTJSONFIELD` takes it (`$.a.b[2]['c d']`).
enum JSONPathStep: Equatable {
    case member([UInt8])
    case element(Int)

    /// The steps of `path`, or nil when it is not a path (it must start with `$`).
    static func parse(_ path: UnsafeBufferPointer<UInt8>) -> [JSONPathStep]? {
        var offset = 0
        while offset < path.count, path[offset] == 0x20 { offset += 1 }
        guard offset < path.count, path[offset] == UInt8(ascii: "$") else { return nil }
        offset += 1
        var steps: [JSONPathStep] = []
        while offset < path.count {
            switch path[offset] {
            case UInt8(ascii: "."):
                offset += 1
                let start = offset
                while offset < path.count, path[offset] != UInt8(ascii: "."), path[offset] != UInt8(ascii: "[") { offset += 1 }
                guard offset > start else { return nil }
                steps.append(.member(Array(path[start ..< offset])))
            case UInt8(ascii: "["):
                offset += 1
                guard offset < path.count else { return nil }
                let quote = path[offset]
                if quote == UInt8(ascii: "'") || quote == UInt8(ascii: "\"") {
                    offset += 1
                    let start = offset
                    while offset < path.count, path[offset] != quote { offset += 1 }
                    guard offset + 1 < path.count, path[offset + 1] == UInt8(ascii: "]") else { return nil }
                    steps.append(.member(Array(path[start ..< offset])))
                    offset += 2
                } else {
                    let start = offset
                    var negative = false
                    if offset < path.count, path[offset] == UInt8(ascii: "-") {
                        negative = true
                        offset += 1
                    }
                    var index = 0
                    while offset < path.count, path[offset] >= UInt8(ascii: "0"), path[offset] <= UInt8(ascii: "9") {
                        index = index &* 10 &+ Int(path[offset] - UInt8(ascii: "0"))
                        offset += 1
                    }
                    guard offset > start, offset < path.count, path[offset] == UInt8(ascii: "]") else { return nil }
                    steps.append(.element(negative ? -index : index))
                    offset += 1
                }
            default:
                return nil
            }
        }
        return steps
    }
}

extension JSONFunctions {
    /// ksqlDB's `JSON_KEYS(json)`: the keys of a JSON object text, in document order; NULL for a
    /// text that is not a JSON object (ksqlDB's behaviour, which never fails a row).
    static func jsonKeys() -> ScalarFunction {
        ScalarFunction(name: "json_keys", argumentTypes: [.varchar], resultType: .list(.varchar)) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let documents = StringArgument(arguments[0])
            var offsets: [Int32] = [0]
            var keys = VarBytes()
            var validity = Bitmap(count: rowCount, value: true)
            for rowIndex in 0 ..< rowCount {
                if documents.isNull(rowIndex) {
                    validity[rowIndex] = false
                } else {
                    let isObject = documents.withBytes(rowIndex) { (document: UnsafeBufferPointer<UInt8>) -> Bool in
                        var found: [Range<Int>] = []
                        let isObject = forEachMember(of: document) { key, _ in found.append(key) }
                        guard isObject else { return false }
                        for key in found {
                            _ = JSONAccess.unescapeString(UnsafeBufferPointer(rebasing: document[key]), to: &keys.data)
                            keys.offsets.append(Int32(keys.data.count))
                        }
                        return true
                    }
                    if !isObject { validity[rowIndex] = false }
                }
                offsets.append(Int32(keys.count))
            }
            let elements = Column(type: .varchar, storage: .bytes(keys), validity: nil)
            return Column(type: .list(.varchar), storage: .list(offsets: offsets, elements: elements), validity: validity)
        }
    }
}
