import SluiceCore

/// Postgres string functions on UTF-8 bytes: case mapping, lengths, and per-character work.
///
/// Kernels read ``VarBytes`` directly; ASCII rows take byte-level fast paths and only rows with
/// non-ASCII text are decoded for Unicode case mapping (the database runs in a UTF-8 locale).
enum StringFunctions {
    static func function(_ name: String, _ argumentTypes: [DataType], _ resultType: DataType, kernel: @escaping ScalarKernel) -> ScalarFunction {
        ScalarFunction(name: name, argumentTypes: argumentTypes, resultType: resultType, kernel: kernel)
    }

    // MARK: Case mapping

    static func upper() -> ScalarFunction {
        function("upper", [.varchar], .varchar) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try mapCase(arguments[0], rowCount: rowCount, upper: true)
        }
    }

    static func lower() -> ScalarFunction {
        function("lower", [.varchar], .varchar) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try mapCase(arguments[0], rowCount: rowCount, upper: false)
        }
    }

    static func mapCase(_ column: Column, rowCount: Int, upper: Bool) throws(SluiceError) -> Column {
        let input = StringArgument(column)
        return try Kernels.strings([column], rowCount: rowCount) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
            let isASCII = input.withBytes(rowIndex) { (bytes: UnsafeBufferPointer<UInt8>) -> Bool in
                guard UTF8Bytes.isASCII(bytes) else { return false }
                for byte in bytes { out.append(upper ? asciiUpper(byte) : asciiLower(byte)) }
                return true
            }
            if !isASCII {
                let text = input.string(rowIndex)
                out.append(contentsOf: (upper ? text.uppercased() : text.lowercased()).utf8)
            }
            return true
        }
    }

    @inline(__always) static func asciiUpper(_ byte: UInt8) -> UInt8 { byte >= 0x61 && byte <= 0x7A ? byte - 0x20 : byte }
    @inline(__always) static func asciiLower(_ byte: UInt8) -> UInt8 { byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte }

    /// `initcap`: the first letter of each run of letters and digits upper case, the rest lower case.
    static func initcap() -> ScalarFunction {
        function("initcap", [.varchar], .varchar) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let input = StringArgument(arguments[0])
            return try Kernels.strings(arguments, rowCount: rowCount) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                let isASCII = input.withBytes(rowIndex) { (bytes: UnsafeBufferPointer<UInt8>) -> Bool in
                    guard UTF8Bytes.isASCII(bytes) else { return false }
                    var inWord = false
                    for byte in bytes {
                        out.append(inWord ? asciiLower(byte) : asciiUpper(byte))
                        inWord = isASCIIAlphanumeric(byte)
                    }
                    return true
                }
                if !isASCII {
                    var inWord = false
                    for scalar in input.string(rowIndex).unicodeScalars {
                        let mapped = inWord ? scalar.properties.lowercaseMapping : scalar.properties.titlecaseMapping
                        out.append(contentsOf: mapped.utf8)
                        inWord = scalar.properties.isAlphabetic || scalar.properties.numericType != nil
                    }
                }
                return true
            }
        }
    }

    @inline(__always) static func isASCIIAlphanumeric(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
    }

    // MARK: Lengths

    /// `length`/`char_length`/`character_length`: the number of characters.
    static func length(_ name: String) -> ScalarFunction {
        function(name, [.varchar], .int32) { (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.unaryBytes(arguments[0], resultType: .int32) { (bytes: UnsafeBufferPointer<UInt8>) in
                Int32(UTF8Bytes.characterCount(bytes))
            }
        }
    }

    /// `octet_length`: the number of bytes (of text, jsonb text or bytea).
    static func octetLength(_ type: DataType) -> ScalarFunction {
        function("octet_length", [type], .int32) { (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.unaryBytes(arguments[0], resultType: .int32) { (bytes: UnsafeBufferPointer<UInt8>) in Int32(bytes.count) }
        }
    }

    /// `bit_length`: eight bits per byte.
    static func bitLength() -> ScalarFunction {
        function("bit_length", [.varchar], .int32) { (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.unaryBytes(arguments[0], resultType: .int32) { (bytes: UnsafeBufferPointer<UInt8>) in Int32(bytes.count * 8) }
        }
    }

    // MARK: Characters

    /// `reverse`: the characters in reverse order.
    static func reverse() -> ScalarFunction {
        function("reverse", [.varchar], .varchar) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let input = StringArgument(arguments[0])
            return try Kernels.strings(arguments, rowCount: rowCount) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                input.withBytes(rowIndex) { (bytes: UnsafeBufferPointer<UInt8>) in
                    var end = bytes.count
                    var start = end
                    while start > 0 {
                        start -= 1
                        if !UTF8Bytes.isContinuation(bytes[start]) {
                            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start ..< end]))
                            end = start
                        }
                    }
                }
                return true
            }
        }
    }

    /// `repeat(text, n)`: `n` copies; none when `n` ≤ 0.
    static func repeatString() -> ScalarFunction {
        function("repeat", [.varchar, .int32], .varchar) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let input = StringArgument(arguments[0])
            let counts = arguments[1].integerElements()
            return try Kernels.strings(arguments, rowCount: rowCount) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                let count = counts[rowIndex]
                guard count > 0 else { return true }
                let length = input.bytes.length(at: rowIndex)
                if Int64(length) * count + Int64(out.count) >= Int64(Int32.max) {
                    throw SluiceError(.programLimitExceeded, "requested length too large")
                }
                input.withBytes(rowIndex) { (bytes: UnsafeBufferPointer<UInt8>) in
                    for _ in 0 ..< count { out.append(contentsOf: bytes) }
                }
                return true
            }
        }
    }

    /// `starts_with(text, prefix)`.
    static func startsWith() -> ScalarFunction {
        function("starts_with", [.varchar, .varchar], .boolean) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let text = StringArgument(arguments[0])
            let prefix = StringArgument(arguments[1])
            return try Kernels.values(arguments, rowCount: rowCount, type: .boolean) { (rowIndex: Int) throws(SluiceError) -> Bool in
                text.slice(rowIndex).starts(with: prefix.slice(rowIndex))
            }
        }
    }

    /// `ascii(text)`: the code point of the first character, 0 for the empty string.
    static func ascii() -> ScalarFunction {
        function("ascii", [.varchar], .int32) { (arguments: [Column], _: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            try Kernels.unaryBytes(arguments[0], resultType: .int32) { (bytes: UnsafeBufferPointer<UInt8>) in
                bytes.isEmpty ? 0 : Int32(UTF8Bytes.codePoint(at: 0, in: bytes))
            }
        }
    }

    /// `chr(int)`: the character with that code point.
    static func chr() -> ScalarFunction {
        function("chr", [.int32], .varchar) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let codes = arguments[0].integerElements()
            return try Kernels.strings(arguments, rowCount: rowCount) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                let code = codes[rowIndex]
                if code == 0 { throw SluiceError(.programLimitExceeded, "null character not permitted") }
                if code < 0 { throw SluiceError(.invalidParameterValue, "character number must be positive") }
                if code > 0x10FFFF { throw SluiceError(.programLimitExceeded, "requested character too large for encoding: \(code)") }
                guard let scalar = Unicode.Scalar(UInt32(code)) else {
                    throw SluiceError(.programLimitExceeded, "requested character not valid for encoding: \(code)")
                }
                UTF8Bytes.append(scalar, to: &out)
                return true
            }
        }
    }
}
