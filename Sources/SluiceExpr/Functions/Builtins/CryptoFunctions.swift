import SluiceCore

/// What webhook validation needs, as RisingWave and pgcrypto name it:
/// - `hmac(key, message, algorithm)` (RisingWave's argument order, as its webhook examples
///   write `hmac(secret, data, 'sha256')`), text or bytea in, bytea out; `md5`, `sha1` and
///   `sha256`, what webhook senders sign with;
/// - `secure_compare(a, b)`: equality in time that does not depend on where they differ;
/// - `encode(bytea, 'hex' | 'base64' | 'escape')` and `decode(text, …)`, PostgreSQL's;
/// - `sha256(bytea)`, PostgreSQL's digest.
enum CryptoFunctions {
    static func overloads(named name: String) -> [Overload]? {
        let text = DataType.varchar
        switch name {
        case "secure_compare":
            return [Overload([text, text], secureCompare())]
        case "hmac":
            return [
                Overload([text, text, text], hmac([text, text, text])), Overload([.bytea, .bytea, text], hmac([.bytea, .bytea, text])),
                Overload([text, .bytea, text], hmac([text, .bytea, text])), Overload([.bytea, text, text], hmac([.bytea, text, text])),
            ]
        case "encode":
            return [Overload([.bytea, text], encode())]
        case "decode":
            return [Overload([text, text], decode())]
        case "sha256":
            return [Overload([.bytea], digest(name))]
        default:
            return nil
        }
    }

    private static func function(_ name: String, _ argumentTypes: [DataType], _ resultType: DataType, kernel: @escaping ScalarKernel) -> ScalarFunction {
        ScalarFunction(name: name, argumentTypes: argumentTypes, resultType: resultType, kernel: kernel)
    }

    static func secureCompare() -> ScalarFunction {
        function("secure_compare", [.varchar, .varchar], .boolean) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let left = StringArgument(arguments[0]), right = StringArgument(arguments[1])
            return try Kernels.values(arguments, rowCount: rowCount, type: .boolean) { (row: Int) throws(SluiceError) -> Bool in
                let a = left.slice(row), b = right.slice(row)
                // Every byte of the longer is looked at, whatever the first difference.
                var difference = UInt8(truncatingIfNeeded: a.count ^ b.count) | (a.count == b.count ? 0 : 1)
                let length = max(a.count, b.count)
                for offset in 0 ..< length {
                    let x = offset < a.count ? a[a.startIndex + offset] : 0
                    let y = offset < b.count ? b[b.startIndex + offset] : 0
                    difference |= x ^ y
                }
                return difference == 0
            }
        }
    }

    static func hmac(_ types: [DataType]) -> ScalarFunction {
        function("hmac", types, .bytea) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let key = StringArgument(arguments[0]), message = StringArgument(arguments[1]), algorithm = StringArgument(arguments[2])
            return try Kernels.strings(arguments, rowCount: rowCount, type: .bytea) { (row: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                let secret = Array(key.slice(row))
                let data = message.slice(row)
                switch algorithm.string(row).lowercased() {
                case "md5": out.append(contentsOf: HMAC64.authenticationCode(key: secret, message: data) { bytes in bytes.withUnsafeBufferPointer { MD5.digest($0) } })
                case "sha1": out.append(contentsOf: HMAC64.authenticationCode(key: secret, message: data) { SHA1.hash($0) })
                case "sha256": out.append(contentsOf: HMACSHA256.authenticationCode(for: data, key: secret))
                case let other:
                    throw SluiceError(.invalidParameterValue, "hmac does not know the hash \"\(other)\"", hint: "Use md5, sha1 or sha256.")
                }
                return true
            }
        }
    }

    static func digest(_ name: String) -> ScalarFunction {
        function(name, [.bytea], .bytea) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let input = StringArgument(arguments[0])
            return try Kernels.strings(arguments, rowCount: rowCount, type: .bytea) { (row: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                out.append(contentsOf: SHA256.hash(input.slice(row)))
                return true
            }
        }
    }

    static func encode() -> ScalarFunction {
        function("encode", [.bytea, .varchar], .varchar) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let input = StringArgument(arguments[0]), format = StringArgument(arguments[1])
            let hex = Array("0123456789abcdef".utf8)
            return try Kernels.strings(arguments, rowCount: rowCount) { (row: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                let bytes = input.slice(row)
                switch format.string(row).lowercased() {
                case "hex":
                    for byte in bytes {
                        out.append(hex[Int(byte >> 4)])
                        out.append(hex[Int(byte & 15)])
                    }
                case "base64":
                    out.append(contentsOf: Base64.encode(Array(bytes)).utf8)
                case "escape":
                    for byte in bytes {
                        if byte == 0 || byte >= 0x80 {
                            out.append(UInt8(ascii: "\\"))
                            out.append(contentsOf: String(byte, radix: 8).leftPadded(to: 3).utf8)
                        } else if byte == UInt8(ascii: "\\") {
                            out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
                        } else {
                            out.append(byte)
                        }
                    }
                case let other:
                    throw SluiceError(.invalidParameterValue, "unrecognized encoding: \"\(other)\"", hint: "Use hex, base64 or escape.")
                }
                return true
            }
        }
    }

    static func decode() -> ScalarFunction {
        function("decode", [.varchar, .varchar], .bytea) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let input = StringArgument(arguments[0]), format = StringArgument(arguments[1])
            return try Kernels.strings(arguments, rowCount: rowCount, type: .bytea) { (row: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                let text = input.string(row)
                switch format.string(row).lowercased() {
                case "hex":
                    // bytea's own `\x` input: pairs of hex digits, blanks between them allowed.
                    out.append(contentsOf: try CompositeText.parseBytea("\\x" + text))
                case "base64":
                    let compact = String(text.filter { !$0.isWhitespace })
                    guard let bytes = Base64.decode(compact) else { throw SluiceError(.invalidParameterValue, "invalid base64 data") }
                    out.append(contentsOf: bytes)
                case "escape":
                    out.append(contentsOf: try CompositeText.parseBytea(text))
                case let other:
                    throw SluiceError(.invalidParameterValue, "unrecognized encoding: \"\(other)\"", hint: "Use hex, base64 or escape.")
                }
                return true
            }
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
