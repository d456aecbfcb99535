import SluiceCore

/// jsonb paths, key tests and the functions that take a document apart: `#>`, `#>>`, `?`,
/// `jsonb_array_length`, `jsonb_typeof`, and the lists behind the set-returning
/// `jsonb_array_elements[_text]`, `jsonb_each[_text]` and `jsonb_object_keys` (the binder
/// unnests them). Documents are jsonb's normalized text; values are found by
/// ``JSONAccess``'s scanner and copied as they are, so a value taken out is normalized too.
package enum JSONFunctions {
    static func overloads(named name: String) -> [Overload]? {
        switch name {
        case "jsonb_array_length": [Overload([.jsonb], arrayLength())]
        case "jsonb_typeof": [Overload([.jsonb], typeOf())]
        case "extractjsonfield": [Overload([.varchar, .varchar], extractJSONField())]
        case "json_keys": [Overload([.varchar], jsonKeys())]
        case "json_records": [Overload([.varchar], jsonRecords())]
        default: nil
        }
    }

    /// The first byte of the value `document` holds, after whitespace; nil when empty.
    static func kind(of document: UnsafeBufferPointer<UInt8>) -> UInt8? {
        let start = JSONAccess.skipWhitespace(document, 0)
        return start < document.count ? document[start] : nil
    }

    /// Calls `body` with the range of each element of the array `document`; false when it is
    /// not an array.
    static func forEachElement(of document: UnsafeBufferPointer<UInt8>, _ body: (Range<Int>) -> Void) -> Bool {
        var offset = JSONAccess.skipWhitespace(document, 0)
        guard offset < document.count, document[offset] == UInt8(ascii: "[") else { return false }
        offset = JSONAccess.skipWhitespace(document, offset + 1)
        if offset < document.count, document[offset] == UInt8(ascii: "]") { return true }
        while offset < document.count {
            let end = JSONAccess.valueEnd(document, offset)
            body(offset ..< end)
            offset = JSONAccess.skipWhitespace(document, end)
            guard offset < document.count, document[offset] == UInt8(ascii: ",") else { break }
            offset = JSONAccess.skipWhitespace(document, offset + 1)
        }
        return true
    }

    /// Calls `body` with the range of each member's key (its quoted literal) and value in the
    /// object `document`; false when it is not an object.
    static func forEachMember(of document: UnsafeBufferPointer<UInt8>, _ body: (_ key: Range<Int>, _ value: Range<Int>) -> Void) -> Bool {
        var offset = JSONAccess.skipWhitespace(document, 0)
        guard offset < document.count, document[offset] == UInt8(ascii: "{") else { return false }
        offset = JSONAccess.skipWhitespace(document, offset + 1)
        while offset < document.count, document[offset] == UInt8(ascii: "\"") {
            let keyEnd = JSONAccess.stringEnd(document, offset)
            let key = offset ..< keyEnd
            offset = JSONAccess.skipWhitespace(document, keyEnd)
            guard offset < document.count, document[offset] == UInt8(ascii: ":") else { break }
            offset = JSONAccess.skipWhitespace(document, offset + 1)
            let end = JSONAccess.valueEnd(document, offset)
            body(key, offset ..< end)
            offset = JSONAccess.skipWhitespace(document, end)
            guard offset < document.count, document[offset] == UInt8(ascii: ",") else { break }
            offset = JSONAccess.skipWhitespace(document, offset + 1)
        }
        return true
    }

    /// Appends `value` (a range of `document`) as jsonb, or as text when `asText`: a string's
    /// contents unescaped, `null` as SQL NULL (false).
    static func append(_ value: UnsafeBufferPointer<UInt8>, asText: Bool, to out: inout [UInt8]) -> Bool {
        if asText {
            if value.first == UInt8(ascii: "\"") { return JSONAccess.unescapeString(value, to: &out) }
            if value.elementsEqual("null".utf8) { return false }
        }
        out.append(contentsOf: value)
        return true
    }

    /// `jsonb #> text[]` and `#>>`: the value at the path, each step a key of an object or
    /// the index of an array element (from the end when negative); NULL where a step is missing.
    static func path(asText: Bool) -> ScalarFunction {
        let resultType: DataType = asText ? .varchar : .jsonb
        return ScalarFunction(name: asText ? "#>>" : "#>", argumentTypes: [.jsonb, .list(.varchar)], resultType: resultType) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let documents = StringArgument(arguments[0])
            guard case .list(let offsets, let elements) = arguments[1].storage else { preconditionFailure("path is not a list") }
            let steps = StringArgument(elements)
            return try Kernels.strings(arguments, rowCount: rowCount, type: resultType) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                documents.withBytes(rowIndex) { (document: UnsafeBufferPointer<UInt8>) -> Bool in
                    var found = 0 ..< document.count
                    for step in Int(offsets[rowIndex]) ..< Int(offsets[rowIndex + 1]) {
                        if steps.isNull(step) { return false }
                        let current = UnsafeBufferPointer(rebasing: document[found])
                        let inner: Range<Int>? = steps.withBytes(step) { (key: UnsafeBufferPointer<UInt8>) -> Range<Int>? in
                            switch kind(of: current) {
                            case UInt8(ascii: "{"): return JSONAccess.field(key, in: current)
                            case UInt8(ascii: "["):
                                guard let index = Int(String(decoding: key, as: UTF8.self)) else { return nil }
                                return JSONAccess.element(index, in: current)
                            default: return nil
                            }
                        }
                        guard let inner else { return false }
                        found = found.lowerBound + inner.lowerBound ..< found.lowerBound + inner.upperBound
                    }
                    return append(UnsafeBufferPointer(rebasing: document[found]), asText: asText, to: &out)
                }
            }
        }
    }

    /// `jsonb ? text`: whether the object has the key, or the array a string element equal to it.
    static func hasKey() -> ScalarFunction {
        ScalarFunction(name: "?", argumentTypes: [.jsonb, .varchar], resultType: .boolean) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let documents = StringArgument(arguments[0])
            let keys = StringArgument(arguments[1])
            return try Kernels.values(arguments, rowCount: rowCount, type: .boolean) { (rowIndex: Int) throws(SluiceError) -> Bool in
                documents.withBytes(rowIndex) { (document: UnsafeBufferPointer<UInt8>) -> Bool in
                    keys.withBytes(rowIndex) { (key: UnsafeBufferPointer<UInt8>) -> Bool in
                        if JSONAccess.field(key, in: document) != nil { return true }
                        var found = false
                        var text: [UInt8] = []
                        _ = forEachElement(of: document) { element in
                            guard !found, document[element.lowerBound] == UInt8(ascii: "\"") else { return }
                            text.removeAll(keepingCapacity: true)
                            JSONAccess.unescapeString(UnsafeBufferPointer(rebasing: document[element]), to: &text)
                            found = text.elementsEqual(key)
                        }
                        return found
                    }
                }
            }
        }
    }

    /// `jsonb_array_length(jsonb)`: 22023 for a value that is not an array, as in PostgreSQL.
    static func arrayLength() -> ScalarFunction {
        ScalarFunction(name: "jsonb_array_length", argumentTypes: [.jsonb], resultType: .int32) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let documents = StringArgument(arguments[0])
            return try Kernels.values(arguments, rowCount: rowCount, type: .int32) { (rowIndex: Int) throws(SluiceError) -> Int32 in
                var count: Int32 = 0
                let isArray = documents.withBytes(rowIndex) { forEachElement(of: $0) { _ in count += 1 } }
                guard isArray else { throw wrongKind(calling: "jsonb_array_length", documents, rowIndex) }
                return count
            }
        }
    }

    /// `jsonb_typeof(jsonb)`: object, array, string, number, boolean or null.
    static func typeOf() -> ScalarFunction {
        ScalarFunction(name: "jsonb_typeof", argumentTypes: [.jsonb], resultType: .varchar) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let documents = StringArgument(arguments[0])
            return try Kernels.strings(arguments, rowCount: rowCount) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                let name: String = switch documents.withBytes(rowIndex, kind(of:)) {
                case UInt8(ascii: "{"): "object"
                case UInt8(ascii: "["): "array"
                case UInt8(ascii: "\""): "string"
                case UInt8(ascii: "t"), UInt8(ascii: "f"): "boolean"
                case UInt8(ascii: "n"): "null"
                default: "number"
                }
                out.append(contentsOf: name.utf8)
                return true
            }
        }
    }

    /// The SQLSTATE 22023 error for a document of the wrong kind, worded as PostgreSQL's.
    private static func wrongKind(calling function: String, _ documents: StringArgument, _ rowIndex: Int) -> SluiceError {
        let kind = documents.withBytes(rowIndex, kind(of:))
        let isScalar = kind != UInt8(ascii: "{") && kind != UInt8(ascii: "[")
        let message: String = switch function {
        case "jsonb_array_length": isScalar ? "cannot get array length of a scalar" : "cannot get array length of a non-array"
        case "jsonb_array_elements", "jsonb_array_elements_text": isScalar ? "cannot extract elements from a scalar" : "cannot extract elements from an object"
        case "jsonb_object_keys": isScalar ? "cannot call jsonb_object_keys on a scalar" : "cannot call jsonb_object_keys on an array"
        default: "cannot call \(function) on a non-object"
        }
        return SluiceError(.invalidParameterValue, message)
    }

    /// The elements of each array as a list (`jsonb_array_elements` and `_text`, unnested by
    /// the binder); a NULL document gives no list (no rows), another kind of value 22023.
    package static func arrayElements(asText: Bool) -> ScalarFunction {
        let name = asText ? "jsonb_array_elements_text" : "jsonb_array_elements"
        let elementType: DataType = asText ? .varchar : .jsonb
        return ScalarFunction(name: name, argumentTypes: [.jsonb], resultType: .list(elementType)) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let documents = StringArgument(arguments[0])
            var offsets: [Int32] = [0]
            var values = ListValues(type: elementType)
            for rowIndex in 0 ..< rowCount {
                if !documents.isNull(rowIndex) {
                    let isArray = documents.withBytes(rowIndex) { (document: UnsafeBufferPointer<UInt8>) -> Bool in
                        forEachElement(of: document) { element in values.append(UnsafeBufferPointer(rebasing: document[element]), asText: asText) }
                    }
                    guard isArray else { throw wrongKind(calling: name, documents, rowIndex) }
                }
                offsets.append(Int32(values.count))
            }
            return Column(type: .list(elementType), storage: .list(offsets: offsets, elements: values.column()), validity: arguments[0].validity)
        }.withOrigin(.jsonArrayElements(asText: asText))
    }

    /// The row type of `jsonb_each` (`asText`: `jsonb_each_text`).
    package static func memberType(asText: Bool) -> DataType {
        .structure([StructField(name: "key", type: .varchar), StructField(name: "value", type: asText ? .varchar : .jsonb)])
    }

    /// The members of each object as a list of (key, value) rows (`jsonb_each` and `_text`),
    /// or its keys alone (`jsonb_object_keys`); a NULL document gives no list, another kind
    /// of value 22023.
    package static func members(asText: Bool, keysOnly: Bool = false) -> ScalarFunction {
        let name = keysOnly ? "jsonb_object_keys" : asText ? "jsonb_each_text" : "jsonb_each"
        let rowType = keysOnly ? DataType.varchar : memberType(asText: asText)
        return ScalarFunction(name: name, argumentTypes: [.jsonb], resultType: .list(rowType)) {
            (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let documents = StringArgument(arguments[0])
            var offsets: [Int32] = [0]
            var keys = ListValues(type: .varchar)
            var values = ListValues(type: asText ? .varchar : .jsonb)
            for rowIndex in 0 ..< rowCount {
                if !documents.isNull(rowIndex) {
                    let isObject = documents.withBytes(rowIndex) { (document: UnsafeBufferPointer<UInt8>) -> Bool in
                        forEachMember(of: document) { key, value in
                            keys.append(UnsafeBufferPointer(rebasing: document[key]), asText: true)
                            if !keysOnly { values.append(UnsafeBufferPointer(rebasing: document[value]), asText: asText) }
                        }
                    }
                    guard isObject else { throw wrongKind(calling: name, documents, rowIndex) }
                }
                offsets.append(Int32(keys.count))
            }
            let elements = keysOnly
                ? keys.column() : Column(type: rowType, storage: .structure([keys.column(), values.column()], count: keys.count))
            return Column(type: .list(rowType), storage: .list(offsets: offsets, elements: elements), validity: arguments[0].validity)
        }.withOrigin(.jsonMembers(asText: asText, keysOnly: keysOnly))
    }

    /// A list's elements built as jsonb or text.
    private struct ListValues {
        let type: DataType
        var bytes = VarBytes()
        var validity = Bitmap()
        var anyNull = false
        var count: Int { bytes.count }

        init(type: DataType) {
            self.type = type
        }

        mutating func append(_ value: UnsafeBufferPointer<UInt8>, asText: Bool) {
            let isValue = JSONFunctions.append(value, asText: asText, to: &bytes.data)
            bytes.offsets.append(Int32(bytes.data.count))
            validity.append(isValue)
            if !isValue { anyNull = true }
        }

        func column() -> Column {
            Column(type: type, storage: .bytes(bytes), validity: anyNull ? validity : nil)
        }
    }
}
