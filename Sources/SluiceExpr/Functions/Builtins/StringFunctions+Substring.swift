import SluiceCore

/// Cutting, searching and padding strings by characters.
extension StringFunctions {
    /// `substr(text, from [, for])`, also `substring`: characters `from ..< from + for`, counted from 1;
    /// positions before the first character count but yield nothing.
    static func substring(_ name: String, withLength: Bool) -> ScalarFunction {
        let types: [DataType] = withLength ? [.varchar, .int32, .int32] : [.varchar, .int32]
        return function(name, types, .varchar) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let input = StringArgument(arguments[0])
            let starts = arguments[1].integerElements()
            let lengths = withLength ? arguments[2].integerElements() : []
            return try Kernels.strings(arguments, rowCount: rowCount) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                let start = starts[rowIndex]
                var end = Int64.max
                if withLength {
                    let length = lengths[rowIndex]
                    if length < 0 { throw SluiceError(SQLState("22011"), "negative substring length not allowed") }
                    end = start + length
                }
                let first = max(start, 1)
                guard end > first else { return true }
                input.withBytes(rowIndex) { (bytes: UnsafeBufferPointer<UInt8>) in
                    let from = UTF8Bytes.byteOffset(ofCharacter: Int(clamping: first - 1), in: bytes)
                    let to = end == Int64.max
                        ? bytes.count : UTF8Bytes.byteOffset(ofCharacter: Int(clamping: end - first), in: bytes, from: from)
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[from ..< to]))
                }
                return true
            }
        }
    }

    /// `left(text, n)`: the first `n` characters; with negative `n`, all but the last `|n|`.
    /// `right(text, n)`: the last `n` characters; with negative `n`, all but the first `|n|`.
    static func leftOrRight(fromLeft: Bool) -> ScalarFunction {
        function(fromLeft ? "left" : "right", [.varchar, .int32], .varchar) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let input = StringArgument(arguments[0])
            let counts = arguments[1].integerElements()
            return try Kernels.strings(arguments, rowCount: rowCount) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                input.withBytes(rowIndex) { (bytes: UnsafeBufferPointer<UInt8>) in
                    let length = Int64(UTF8Bytes.characterCount(bytes))
                    let count = counts[rowIndex]
                    let kept = max(0, min(length, count >= 0 ? count : length + count))
                    let range: Range<Int>
                    if fromLeft {
                        range = 0 ..< UTF8Bytes.byteOffset(ofCharacter: Int(kept), in: bytes)
                    } else {
                        range = UTF8Bytes.byteOffset(ofCharacter: Int(length - kept), in: bytes) ..< bytes.count
                    }
                    out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[range]))
                }
                return true
            }
        }
    }

    /// `strpos(text, substring)` and `position(substring IN text)` (which the binder passes as
    /// `position(text, substring)`): the 1-based character position of the first match, or 0.
    static func strpos(_ name: String) -> ScalarFunction {
        function(name, [.varchar, .varchar], .int32) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let text = StringArgument(arguments[0])
            let needle = StringArgument(arguments[1])
            return try Kernels.values(arguments, rowCount: rowCount, type: .int32) { (rowIndex: Int) throws(SluiceError) -> Int32 in
                text.withBytes(rowIndex) { (haystack: UnsafeBufferPointer<UInt8>) -> Int32 in
                    needle.withBytes(rowIndex) { (needle: UnsafeBufferPointer<UInt8>) -> Int32 in
                        guard let match = UTF8Bytes.firstRange(of: needle, in: haystack) else { return 0 }
                        return Int32(UTF8Bytes.characterCount(UnsafeBufferPointer(rebasing: haystack[..<match.lowerBound])) + 1)
                    }
                }
            }
        }
    }

    /// `lpad`/`rpad(text, length [, fill])`: pads with `fill` (default a space) to `length`
    /// characters, or cuts to `length`.
    static func pad(left: Bool, withFill: Bool) -> ScalarFunction {
        let types: [DataType] = withFill ? [.varchar, .int32, .varchar] : [.varchar, .int32]
        return function(left ? "lpad" : "rpad", types, .varchar) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let input = StringArgument(arguments[0])
            let lengths = arguments[1].integerElements()
            let fill = withFill ? StringArgument(arguments[2]) : nil
            let space: [UInt8] = [0x20]
            return try Kernels.strings(arguments, rowCount: rowCount) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                let target = Int(clamping: max(0, lengths[rowIndex]))
                if target > 10_000_000 { throw SluiceError(.programLimitExceeded, "requested length too large") }
                let fillBytes = fill.map { Array($0.slice(rowIndex)) } ?? space
                input.withBytes(rowIndex) { (bytes: UnsafeBufferPointer<UInt8>) in
                    let length = UTF8Bytes.characterCount(bytes)
                    let kept = min(length, target)
                    let keptBytes = UnsafeBufferPointer(rebasing: bytes[..<UTF8Bytes.byteOffset(ofCharacter: kept, in: bytes)])
                    if !left { out.append(contentsOf: keptBytes) }
                    if !fillBytes.isEmpty {
                        fillBytes.withUnsafeBufferPointer { fillBuffer in
                            var missing = target - kept
                            var offset = 0
                            while missing > 0 {
                                let characterLength = UTF8Bytes.characterLength(at: offset, in: fillBuffer)
                                out.append(contentsOf: fillBuffer[offset ..< offset + characterLength])
                                offset += characterLength
                                if offset >= fillBuffer.count { offset = 0 }
                                missing -= 1
                            }
                        }
                    }
                    if left { out.append(contentsOf: keptBytes) }
                }
                return true
            }
        }
    }

    /// Which ends `trim` strips.
    enum TrimSides { case leading, trailing, both }

    /// `ltrim`/`rtrim`/`btrim(text [, characters])`: strips the characters in the set (default a
    /// space) from the chosen ends.
    static func trim(_ sides: TrimSides, withCharacters: Bool) -> ScalarFunction {
        let name = switch sides {
        case .leading: "ltrim"
        case .trailing: "rtrim"
        case .both: "btrim"
        }
        let types: [DataType] = withCharacters ? [.varchar, .varchar] : [.varchar]
        return function(name, types, .varchar) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let input = StringArgument(arguments[0])
            let set = withCharacters ? StringArgument(arguments[1]) : nil
            let space: [UInt8] = [0x20]
            return try Kernels.strings(arguments, rowCount: rowCount) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                let setBytes = set.map { Array($0.slice(rowIndex)) } ?? space
                setBytes.withUnsafeBufferPointer { setBuffer in
                    let members = UTF8Bytes.characterRanges(setBuffer).map { Array(setBuffer[$0]) }
                    input.withBytes(rowIndex) { (bytes: UnsafeBufferPointer<UInt8>) in
                        func member(at range: Range<Int>) -> Bool {
                            members.contains { $0.elementsEqual(bytes[range]) }
                        }
                        var start = 0
                        var end = bytes.count
                        if sides != .trailing {
                            while start < end {
                                let length = UTF8Bytes.characterLength(at: start, in: bytes)
                                guard member(at: start ..< start + length) else { break }
                                start += length
                            }
                        }
                        if sides != .leading {
                            while end > start {
                                var characterStart = end - 1
                                while characterStart > start, UTF8Bytes.isContinuation(bytes[characterStart]) { characterStart -= 1 }
                                guard member(at: characterStart ..< end) else { break }
                                end = characterStart
                            }
                        }
                        out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start ..< end]))
                    }
                }
                return true
            }
        }
    }

    /// `replace(text, from, to)`: every non-overlapping occurrence of `from`, left to right.
    static func replace() -> ScalarFunction {
        function("replace", [.varchar, .varchar, .varchar], .varchar) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let input = StringArgument(arguments[0])
            let from = StringArgument(arguments[1])
            let to = StringArgument(arguments[2])
            return try Kernels.strings(arguments, rowCount: rowCount) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                input.withBytes(rowIndex) { (bytes: UnsafeBufferPointer<UInt8>) in
                    from.withBytes(rowIndex) { (needle: UnsafeBufferPointer<UInt8>) in
                        to.withBytes(rowIndex) { (replacement: UnsafeBufferPointer<UInt8>) in
                            guard !needle.isEmpty else { out.append(contentsOf: bytes); return }
                            var offset = 0
                            while let match = UTF8Bytes.firstRange(of: needle, in: bytes, from: offset) {
                                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[offset ..< match.lowerBound]))
                                out.append(contentsOf: replacement)
                                offset = match.upperBound
                            }
                            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[offset...]))
                        }
                    }
                }
                return true
            }
        }
    }

    /// `split_part(text, delimiter, n)`: field `n` (from 1, or from the end when negative).
    static func splitPart() -> ScalarFunction {
        function("split_part", [.varchar, .varchar, .int32], .varchar) { (arguments: [Column], rowCount: Int, _: EvaluationContext) throws(SluiceError) -> Column in
            let input = StringArgument(arguments[0])
            let delimiter = StringArgument(arguments[1])
            let positions = arguments[2].integerElements()
            return try Kernels.strings(arguments, rowCount: rowCount) { (rowIndex: Int, out: inout [UInt8]) throws(SluiceError) -> Bool in
                let position = positions[rowIndex]
                if position == 0 { throw SluiceError(.invalidParameterValue, "field position must not be zero") }
                input.withBytes(rowIndex) { (bytes: UnsafeBufferPointer<UInt8>) in
                    delimiter.withBytes(rowIndex) { (separator: UnsafeBufferPointer<UInt8>) in
                        if separator.isEmpty {
                            if position == 1 || position == -1 { out.append(contentsOf: bytes) }
                            return
                        }
                        var fields: [Range<Int>] = []
                        var offset = 0
                        while let match = UTF8Bytes.firstRange(of: separator, in: bytes, from: offset) {
                            fields.append(offset ..< match.lowerBound)
                            offset = match.upperBound
                        }
                        fields.append(offset ..< bytes.count)
                        let index = position > 0 ? Int(clamping: position - 1) : fields.count + Int(clamping: position)
                        if index >= 0 && index < fields.count {
                            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[fields[index]]))
                        }
                    }
                }
                return true
            }
        }
    }
}
