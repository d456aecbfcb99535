import SluiceCore

/// Objects, structs and lists: the recursive half of the decoder.
extension JSONRowDecoder {
    /// Decodes the object at the cursor into `builders`, one per field of `table`: every
    /// builder gets exactly one value (NULL for fields the object lacks).
    ///
    /// Which fields the object has filled, and whether from an exact key, is kept in two bit
    /// masks for the first 64 fields and in ``assigned`` for the rest.
    mutating func decodeObject(_ scanner: inout JSONScanner, table tableIndex: Int32, into builders: UnsafeMutableBufferPointer<ColumnBuilder>, depth: Int) throws(JSONDecodeError) {
        guard depth <= maximumDepth else { throw JSONDecodeError(.tooDeep, "nesting deeper than \(maximumDepth) levels", at: scanner.position) }
        let table = tables[Int(tableIndex)]
        let fieldStart = Int(table.fieldStart)
        let fieldCount = Int(table.fieldCount)
        var filledMask: UInt64 = 0
        var exactMask: UInt64 = 0
        if fieldCount > 64 {
            for field in fieldStart + 64 ..< fieldStart + fieldCount { assigned[field] = 0 }
        }
        if try scanner.enterObject() {
            var keyIndex = 0
            repeat {
                guard scanner.peek == UInt8(ascii: "\"") else { throw scanner.unexpected("a string key") }
                let keyStart = scanner.position
                let match = try readKey(&scanner, table: table, keyIndex: keyIndex)
                keyIndex += 1
                if scanner.peek == UInt8(ascii: ":") {
                    scanner.position += 1
                } else {
                    scanner.skipWhitespace()
                    guard scanner.peek == UInt8(ascii: ":") else { throw scanner.unexpected("':' after the key at byte \(keyStart)") }
                    scanner.position += 1
                }
                scanner.skipWhitespace()
                if let match {
                    let relative = match.field - fieldStart
                    let state: UInt8
                    if relative < 64 {
                        let bit: UInt64 = 1 << UInt64(relative)
                        state = exactMask & bit != 0 ? 2 : (filledMask & bit != 0 ? 1 : 0)
                    } else {
                        state = assigned[match.field]
                    }
                    if match.isExact || state == 0 {
                        if state != 0 {
                            // A better key for a field already filled: drop the earlier value.
                            builders[relative].truncate(to: builders[relative].count - 1)
                        }
                        do throws(JSONDecodeError) {
                            try decodeFieldValue(&scanner, plan: Int(fields[match.field].value), into: &builders[relative], depth: depth)
                        } catch {
                            throw error.inField(fieldNames[match.field])
                        }
                        if relative < 64 {
                            let bit: UInt64 = 1 << UInt64(relative)
                            filledMask |= bit
                            if match.isExact { exactMask |= bit }
                        } else {
                            assigned[match.field] = match.isExact ? 2 : 1
                        }
                    } else {
                        try scanner.skipValue(depth: depth, depthLimit: maximumDepth, scratch: &scratch)
                    }
                } else {
                    try scanner.skipValue(depth: depth, depthLimit: maximumDepth, scratch: &scratch)
                }
            } while try scanner.nextMember()
        }
        let allMask: UInt64 = fieldCount >= 64 ? ~0 : (1 << UInt64(fieldCount)) - 1
        var missing = ~filledMask & allMask
        while missing != 0 {
            builders[missing.trailingZeroBitCount].appendNull()
            missing &= missing - 1
        }
        if fieldCount > 64 {
            for field in fieldStart + 64 ..< fieldStart + fieldCount where assigned[field] == 0 {
                builders[field - fieldStart].appendNull()
            }
        }
    }

    /// Reads the key at the cursor (an opening quote) and finds the field it names in `table`.
    ///
    /// The field the `keyIndex`-th key named exactly in the previous object of this level is
    /// tried first, by comparing raw bytes; on a miss the key is read in full and looked up,
    /// and the prediction for this position is updated.
    @inline(__always)
    mutating func readKey(_ scanner: inout JSONScanner, table: FieldTable, keyIndex: Int) throws(JSONDecodeError) -> (field: Int, isExact: Bool)? {
        var predicted = -1
        if keyIndex < Int(table.fieldCount) {
            predicted = Int(predictions[Int(table.predictionStart) &+ keyIndex])
            if predicted >= 0 {
                let field = fields[predicted]
                let isHit = exactNames.withUnsafeBufferPointer { names in
                    scanner.consumeKey(equalTo: names.baseAddress! + Int(field.nameStart), length: Int(field.nameLength))
                }
                if isHit { return (predicted, true) }
            }
        }
        return try readUnpredictedKey(&scanner, table: table, keyIndex: keyIndex, predicted: predicted)
    }

    /// The miss path of ``readKey(_:table:keyIndex:)``, out of line to keep the object loop small.
    @inline(never)
    mutating func readUnpredictedKey(_ scanner: inout JSONScanner, table: FieldTable, keyIndex: Int, predicted: Int) throws(JSONDecodeError) -> (field: Int, isExact: Bool)? {
        let match: (field: Int, isExact: Bool)?
        if let range = try scanner.readString(into: &scratch) {
            match = matchField(table: table, key: UnsafeBufferPointer(start: scanner.base + range.lowerBound, count: range.count))
        } else {
            match = scratch.withUnsafeBufferPointer { matchField(table: table, key: $0) }
        }
        if keyIndex < Int(table.fieldCount) {
            var next = -1
            if let match, match.isExact, fields[match.field].isPredictable { next = match.field }
            if next != predicted { predictions[Int(table.predictionStart) &+ keyIndex] = Int32(next) }
        }
        return match
    }

    /// ``decodeValue(_:plan:into:depth:)`` with the fast paths of the common forms tried first.
    @inline(__always)
    mutating func decodeFieldValue(_ scanner: inout JSONScanner, plan planIndex: Int, into builder: inout ColumnBuilder, depth: Int) throws(JSONDecodeError) {
        let byte = scanner.peek
        switch plans[planIndex].kind {
        case .varchar where byte == UInt8(ascii: "\""):
            if let range = scanner.readPlainString() {
                builder.append(bytes: UnsafeRawBufferPointer(start: scanner.base + range.lowerBound, count: range.count))
                return
            }
        case .int32 where byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "n"):
            let start = scanner.position
            if let value = scanner.readShortInteger() {
                if value >= Int64(Int32.min) && value <= Int64(Int32.max) {
                    builder.append(int32: Int32(truncatingIfNeeded: value))
                    return
                }
                scanner.position = start  // out of range: the general path reports it
            }
        case .int64 where byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "n"):
            if let value = scanner.readShortInteger() {
                builder.append(int64: value)
                return
            }
        case .boolean:
            if let value = scanner.readBoolean() {
                builder.append(bool: value)
                return
            }
        case .timestamptz where byte == UInt8(ascii: "\""), .timestamp where byte == UInt8(ascii: "\""):
            if let microseconds = scanner.readCommonTimestamp(dates: &dates) {
                builder.append(int64: microseconds)
                return
            }
        default:
            break
        }
        try decodeValue(&scanner, plan: planIndex, into: &builder, depth: depth)
    }

    /// ``decodeObject(_:table:into:depth:)`` over the builders of an array.
    mutating func decodeObject(_ scanner: inout JSONScanner, table: Int32, into builders: inout [ColumnBuilder], depth: Int) throws(JSONDecodeError) {
        var failure: JSONDecodeError?
        builders.withUnsafeMutableBufferPointer { buffer in
            do throws(JSONDecodeError) {
                try decodeObject(&scanner, table: table, into: buffer, depth: depth)
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// A struct value: an object, or a string holding one (RisingWave's
    /// `StructHandling::AllowJsonString`).
    mutating func decodeStruct(_ scanner: inout JSONScanner, plan: ValuePlan, into builder: inout ColumnBuilder, depth: Int) throws(JSONDecodeError) {
        if scanner.peek == UInt8(ascii: "{") {
            try decodeObject(&scanner, table: plan.child, into: &builder.children, depth: depth + 1)
            builder.appendStructRow()
            return
        }
        guard scanner.peek == UInt8(ascii: "\"") else { throw mismatch(scanner, plan: plan) }
        let stringStart = scanner.position
        var text: [UInt8]
        if let range = try scanner.readString(into: &scratch) {
            text = Array(UnsafeBufferPointer(start: scanner.base + range.lowerBound, count: range.count))
        } else {
            text = scratch
        }
        let count = builder.children.isEmpty ? 0 : builder.children[0].count
        var failure: JSONDecodeError?
        text.withUnsafeBytes { bytes in
            do throws(JSONDecodeError) {
                var inner = JSONScanner(bytes)
                inner.skipWhitespace()
                guard inner.peek == UInt8(ascii: "{") else {
                    throw JSONDecodeError(.typeMismatch, "expected an object or a string holding one, found string \(scanner.excerpt(stringStart ..< scanner.position))", at: 0)
                }
                try decodeObject(&inner, table: plan.child, into: &builder.children, depth: depth + 1)
                inner.skipWhitespace()
                guard inner.isAtEnd else { throw inner.unexpected("end of the embedded object") }
            } catch {
                failure = error
            }
        }
        if var error = failure {
            // Offsets inside the embedded text mean nothing to the reader of the message.
            for index in builder.children.indices { builder.children[index].truncate(to: count) }
            if error.kind != .typeMismatch { error.problem = "in the object embedded in a string: " + error.problem }
            error.offset = stringStart
            throw error
        }
        text.removeAll()
        builder.appendStructRow()
    }

    /// A list value: an array whose elements decode as the element type.
    mutating func decodeList(_ scanner: inout JSONScanner, plan: ValuePlan, into builder: inout ColumnBuilder, depth: Int) throws(JSONDecodeError) {
        guard scanner.peek == UInt8(ascii: "[") else { throw mismatch(scanner, plan: plan) }
        guard depth < maximumDepth else { throw JSONDecodeError(.tooDeep, "nesting deeper than \(maximumDepth) levels", at: scanner.position) }
        scanner.position += 1
        scanner.skipWhitespace()
        if scanner.peek == UInt8(ascii: "]") {
            scanner.position += 1
            builder.appendListRow()
            return
        }
        var elementIndex = 0
        while true {
            do throws(JSONDecodeError) {
                try decodeValue(&scanner, plan: Int(plan.child), into: &builder.children[0], depth: depth + 1)
            } catch {
                throw error.inElement(elementIndex)
            }
            elementIndex += 1
            scanner.skipWhitespace()
            if scanner.peek == UInt8(ascii: ",") {
                scanner.position += 1
                scanner.skipWhitespace()
            } else if scanner.peek == UInt8(ascii: "]") {
                scanner.position += 1
                break
            } else {
                throw scanner.unexpected("',' or ']'")
            }
        }
        builder.appendListRow()
    }

    /// The error for a JSON value of the wrong kind at the cursor.
    func mismatch(_ scanner: JSONScanner, plan: ValuePlan, typeName: String? = nil) -> JSONDecodeError {
        let found: String
        switch scanner.peek {
        case UInt8(ascii: "\""): found = "a string"
        case UInt8(ascii: "{"): found = "an object"
        case UInt8(ascii: "["): found = "an array"
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            // A misspelt literal is a syntax error, not a boolean of the wrong type.
            var probe = scanner
            do throws(JSONDecodeError) {
                try probe.expectLiteral(scanner.peek == UInt8(ascii: "t") ? "true" : "false")
            } catch {
                return error
            }
            found = "a boolean"
        case UInt8(ascii: "-"), UInt8(ascii: "0") ... UInt8(ascii: "9"): found = "a number"
        case 0 where scanner.isAtEnd: return scanner.unexpected("a value")
        default: return scanner.unexpected("a value")
        }
        return JSONDecodeError(.typeMismatch, "expected \(typeName ?? kindName(plan.kind)), found \(found)", at: scanner.position)
    }

    func kindName(_ kind: ValueKind) -> String {
        switch kind {
        case .boolean: "boolean"
        case .int16: "smallint"
        case .int32: "integer"
        case .int64: "bigint"
        case .float32: "real"
        case .float64: "double precision"
        case .decimal: "numeric"
        case .varchar: "a string, number or boolean"
        case .date: "date"
        case .time: "time"
        case .timestamp: "timestamp"
        case .timestamptz: "timestamp with time zone"
        case .interval: "interval"
        case .jsonb: "jsonb"
        case .bytea: "bytea"
        case .structure: "an object"
        case .list: "an array"
        case .unknown: "null"
        }
    }
}
