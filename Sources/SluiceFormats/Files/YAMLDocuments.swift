import SluiceCore

/// Reads YAML files for `ENCODE YAML` sources: block mappings and sequences, flow `[…]` and
/// `{…}`, plain, single- and double-quoted scalars, `|` and `>` block scalars, comments, and
/// several documents split by `---`. Values resolve as YAML 1.2's core schema does (null, booleans,
/// integers, floats, else strings). Anchors, aliases and tags are refused with an error naming the
/// line, as is anything else it cannot read: a file is read whole or not at all.
///
/// Rows: a document that is a mapping is one row; a document that is a sequence gives a row per
/// mapping in it. Each row comes out as a JSON object's text, for the JSON row decoder to type.
///
/// - Complexity: O(bytes); nesting is bounded (``maximumDepth``) so no input exhausts the stack.
package enum YAMLDocuments {
    package static let maximumDepth = 64

    /// The rows of `text`, each as a JSON object.
    package static func rows(_ text: [UInt8]) throws(SluiceError) -> [[UInt8]] {
        var parser = YAMLParser(lines: YAMLLine.split(text))
        var rows: [[UInt8]] = []
        for document in try parser.documents() {
            switch document {
            case .null:
                continue
            case .mapping:
                rows.append(document.json())
            case .sequence(let items):
                for item in items {
                    guard case .mapping = item else {
                        throw SluiceError(.invalidTextRepresentation, "a YAML sequence of rows holds something other than a mapping")
                    }
                    rows.append(item.json())
                }
            default:
                throw SluiceError(.invalidTextRepresentation, "a YAML document must be a mapping or a sequence of mappings")
            }
        }
        return rows
    }
}

/// A parsed YAML value.
indirect enum YAMLValue: Equatable {
    case null
    case bool(Bool)
    /// A number as JSON writes it.
    case number(String)
    case string(String)
    case sequence([YAMLValue])
    case mapping([(key: String, value: YAMLValue)])

    static func == (lhs: YAMLValue, rhs: YAMLValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.number(let a), .number(let b)), (.string(let a), .string(let b)): a == b
        case (.sequence(let a), .sequence(let b)): a == b
        case (.mapping(let a), .mapping(let b)): a.map(\.key) == b.map(\.key) && a.map(\.value) == b.map(\.value)
        default: false
        }
    }

    func json() -> [UInt8] {
        var out: [UInt8] = []
        write(to: &out)
        return out
    }

    func write(to out: inout [UInt8]) {
        switch self {
        case .null: out += Array("null".utf8)
        case .bool(let value): out += Array((value ? "true" : "false").utf8)
        case .number(let text): out += Array(text.utf8)
        case .string(let text): out += Array(JSONText.quoted(text).utf8)
        case .sequence(let items):
            out.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                item.write(to: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .mapping(let members):
            out.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { out.append(UInt8(ascii: ",")) }
                out += Array(JSONText.quoted(member.key).utf8)
                out.append(UInt8(ascii: ":"))
                member.value.write(to: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    /// A plain scalar resolved as YAML 1.2's core schema resolves it.
    static func resolve(_ text: String) -> YAMLValue {
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        case "true", "True", "TRUE": return .bool(true)
        case "false", "False", "FALSE": return .bool(false)
        case ".inf", ".Inf", ".INF", "+.inf": return .string("Infinity")
        case "-.inf", "-.Inf", "-.INF": return .string("-Infinity")
        case ".nan", ".NaN", ".NAN": return .string("NaN")
        default: break
        }
        let bytes = Array(text.utf8)
        if isInteger(bytes) {
            // JSON has no leading `+` and no leading zeros: the integer's digits as they mean.
            var digits = text.hasPrefix("+") ? String(text.dropFirst()) : text
            let negative = digits.hasPrefix("-")
            if negative { digits.removeFirst() }
            while digits.count > 1 && digits.hasPrefix("0") { digits.removeFirst() }
            return .number((negative ? "-" : "") + digits)
        }
        if text.hasPrefix("0x"), let value = Int64(text.dropFirst(2), radix: 16) { return .number(String(value)) }
        if text.hasPrefix("0o"), let value = Int64(text.dropFirst(2), radix: 8) { return .number(String(value)) }
        if isFloat(bytes), let value = Double(text), value.isFinite {
            return .number(text.hasPrefix("+") ? String(text.dropFirst()) : (text.hasPrefix(".") || text.hasPrefix("-.") ? String(value) : text))
        }
        return .string(text)
    }

    private static func isInteger(_ bytes: [UInt8]) -> Bool {
        var index = 0
        if index < bytes.count && (bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+")) { index += 1 }
        guard index < bytes.count else { return false }
        return bytes[index...].allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") } && bytes.count - index <= 18
    }

    private static func isFloat(_ bytes: [UInt8]) -> Bool {
        var sawDigit = false, sawDot = false, sawExponent = false
        for (index, byte) in bytes.enumerated() {
            switch byte {
            case UInt8(ascii: "0") ... UInt8(ascii: "9"): sawDigit = true
            case UInt8(ascii: "."): if sawDot || sawExponent { return false }; sawDot = true
            case UInt8(ascii: "e"), UInt8(ascii: "E"): if sawExponent || !sawDigit { return false }; sawExponent = true
            case UInt8(ascii: "-"), UInt8(ascii: "+"):
                guard index == 0 || bytes[index - 1] == UInt8(ascii: "e") || bytes[index - 1] == UInt8(ascii: "E") else { return false }
            default: return false
            }
        }
        return sawDigit && (sawDot || sawExponent)
    }
}

/// One line of a YAML file: its indent and its content without the comment and trailing blanks.
struct YAMLLine {
    var number: Int
    var indent: Int
    var content: ArraySlice<UInt8>

    /// The lines that hold something, comments and blank lines dropped (block scalars take their
    /// lines raw, through ``raw``).
    static func split(_ text: [UInt8]) -> [YAMLLine] {
        var lines: [YAMLLine] = []
        var start = 0
        var number = 0
        while start <= text.count {
            let end = text[start...].firstIndex(of: 10) ?? text.count
            number += 1
            var line = text[start ..< end]
            if line.last == 13 { line = line.dropLast() }
            var indent = 0
            while indent < line.count && line[line.startIndex + indent] == 32 { indent += 1 }
            let body = stripComment(line.dropFirst(indent))
            lines.append(YAMLLine(number: number, indent: indent, content: body))
            start = end + 1
        }
        return lines
    }

    /// `line` without a `#` comment (one after a blank or at the start, outside quotes) and
    /// without trailing blanks.
    static func stripComment(_ line: ArraySlice<UInt8>) -> ArraySlice<UInt8> {
        var quote: UInt8?
        var end = line.endIndex
        var index = line.startIndex
        while index < line.endIndex {
            let byte = line[index]
            if let open = quote {
                if byte == open {
                    if open == UInt8(ascii: "'") && index + 1 < line.endIndex && line[index + 1] == open { index += 1 } else { quote = nil }
                } else if byte == UInt8(ascii: "\\") && open == UInt8(ascii: "\"") {
                    index += 1
                }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                let previous = index == line.startIndex ? 32 : line[index - 1]
                if previous == 32 || previous == 9 || previous == UInt8(ascii: "[") || previous == UInt8(ascii: "{")
                    || previous == UInt8(ascii: ",") || previous == UInt8(ascii: ":") || previous == UInt8(ascii: "-") { quote = byte }
            } else if byte == UInt8(ascii: "#") && (index == line.startIndex || line[index - 1] == 32 || line[index - 1] == 9) {
                end = index
                break
            }
            index += 1
        }
        var result = line[line.startIndex ..< end]
        while let last = result.last, last == 32 || last == 9 { result = result.dropLast() }
        return result
    }
}

/// The recursive-descent reader over ``YAMLLine``s.
struct YAMLParser {
    private var lines: [YAMLLine]
    private var index = 0
    private var depth = 0

    init(lines: [YAMLLine]) {
        self.lines = lines
    }

    mutating func documents() throws(SluiceError) -> [YAMLValue] {
        var documents: [YAMLValue] = []
        while true {
            skipBlank()
            guard index < lines.count else { break }
            let line = lines[index]
            if line.indent == 0 && Self.isMarker(line.content) {
                // `--- value` carries the document's node on the marker's line.
                let rest = line.content.dropFirst(3).drop(while: { $0 == 32 })
                if line.content.starts(with: Array("---".utf8)) && !rest.isEmpty {
                    lines[index] = YAMLLine(number: line.number, indent: 0, content: rest)
                } else {
                    index += 1
                }
                continue
            }
            documents.append(try node(indent: 0))
            skipBlank()
            if index < lines.count && !(lines[index].indent == 0 && Self.isMarker(lines[index].content)) {
                throw error("text after the document's end")
            }
        }
        return documents
    }

    /// `---` (alone or before a node) or `...`.
    private static func isMarker(_ content: ArraySlice<UInt8>) -> Bool {
        let dashes = Array("---".utf8)
        return content.elementsEqual(Array("...".utf8)) || content.elementsEqual(dashes) || (content.starts(with: dashes) && content.dropFirst(3).first == 32)
    }

    private mutating func skipBlank() {
        while index < lines.count && lines[index].content.isEmpty { index += 1 }
    }

    private func error(_ what: String) -> SluiceError {
        let line = index < lines.count ? lines[index].number : (lines.last?.number ?? 0)
        return SluiceError(.invalidTextRepresentation, "YAML line \(line): \(what)")
    }

    /// The node starting at the current line, whose lines are indented at least `indent`.
    private mutating func node(indent: Int) throws(SluiceError) -> YAMLValue {
        depth += 1
        defer { depth -= 1 }
        guard depth <= YAMLDocuments.maximumDepth else { throw error("nested more than \(YAMLDocuments.maximumDepth) deep") }
        skipBlank()
        guard index < lines.count, lines[index].indent >= indent else { return .null }
        let line = lines[index]
        let content = line.content
        if content.first == UInt8(ascii: "&") || content.first == UInt8(ascii: "*") || content.first == UInt8(ascii: "!") {
            throw error("anchors, aliases and tags are not supported")
        }
        if content.first == UInt8(ascii: "-") && (content.count == 1 || content[content.startIndex + 1] == 32) {
            return try sequence(indent: line.indent)
        }
        if Self.keySplit(content) != nil { return try mapping(indent: line.indent) }
        // A scalar or a flow collection, perhaps over several lines.
        index += 1
        var text = Array(content)
        if content.first != UInt8(ascii: "[") && content.first != UInt8(ascii: "{") && content.first != UInt8(ascii: "\"") && content.first != UInt8(ascii: "'") {
            while index < lines.count && lines[index].indent > indent && !lines[index].content.isEmpty && Self.keySplit(lines[index].content) == nil {
                text += [32] + lines[index].content
                index += 1
            }
        }
        return try scalarOrFlow(text[...])
    }

    private mutating func sequence(indent: Int) throws(SluiceError) -> YAMLValue {
        var items: [YAMLValue] = []
        while true {
            skipBlank()
            guard index < lines.count, lines[index].indent == indent else { break }
            let content = lines[index].content
            guard content.first == UInt8(ascii: "-"), content.count == 1 || content[content.startIndex + 1] == 32 else { break }
            let rest = content.dropFirst().drop(while: { $0 == 32 })
            if rest.isEmpty {
                index += 1
                items.append(try node(indent: indent + 1))
            } else {
                // `- key: value` and its next lines at the item's column: the item's own node.
                let column = indent + (content.count - rest.count)
                lines[index] = YAMLLine(number: lines[index].number, indent: column, content: rest)
                items.append(try node(indent: column))
            }
        }
        return .sequence(items)
    }

    private mutating func mapping(indent: Int) throws(SluiceError) -> YAMLValue {
        var members: [(key: String, value: YAMLValue)] = []
        while true {
            skipBlank()
            guard index < lines.count, lines[index].indent == indent else { break }
            let line = lines[index]
            guard let (keyText, valueText) = Self.keySplit(line.content) else {
                if line.content.first == UInt8(ascii: "-") { break }
                throw error("a line that is neither a key nor an item of the mapping")
            }
            let key = try keyString(keyText)
            if members.contains(where: { $0.key == key }) { throw error("the key \"\(key)\" is given twice") }
            index += 1
            let value: YAMLValue
            if valueText.isEmpty {
                skipBlank()
                if index < lines.count, lines[index].indent > indent {
                    value = try node(indent: indent + 1)
                } else if index < lines.count, lines[index].indent == indent, lines[index].content.first == UInt8(ascii: "-"),
                          lines[index].content.count == 1 || lines[index].content[lines[index].content.startIndex + 1] == 32 {
                    value = try sequence(indent: indent)
                } else {
                    value = .null
                }
            } else if valueText.first == UInt8(ascii: "|") || valueText.first == UInt8(ascii: ">") {
                value = .string(blockScalar(folded: valueText.first == UInt8(ascii: ">"), keep: valueText.contains(UInt8(ascii: "+")),
                                            strip: valueText.contains(UInt8(ascii: "-")), parentIndent: indent, header: line.number))
            } else if valueText.first == UInt8(ascii: "&") || valueText.first == UInt8(ascii: "*") || valueText.first == UInt8(ascii: "!") {
                index -= 1
                throw error("anchors, aliases and tags are not supported")
            } else {
                var text = Array(valueText)
                if valueText.first != UInt8(ascii: "[") && valueText.first != UInt8(ascii: "{") && valueText.first != UInt8(ascii: "\"")
                    && valueText.first != UInt8(ascii: "'") {
                    // A plain scalar may go on over more indented lines.
                    while index < lines.count && lines[index].indent > indent && !lines[index].content.isEmpty {
                        text += [32] + lines[index].content
                        index += 1
                    }
                }
                value = try scalarOrFlow(text[...])
            }
            members.append((key, value))
        }
        return .mapping(members)
    }

    /// A `|` or `>` block scalar: the lines after the key indented more than it, read raw.
    private mutating func blockScalar(folded: Bool, keep: Bool, strip: Bool, parentIndent: Int, header: Int) -> String {
        var body: [(indent: Int, text: ArraySlice<UInt8>)] = []
        var blockIndent: Int?
        while index < lines.count {
            let line = lines[index]
            if line.content.isEmpty {
                body.append((0, []))
                index += 1
                continue
            }
            guard line.indent > parentIndent else { break }
            if blockIndent == nil { blockIndent = line.indent }
            guard line.indent >= blockIndent! else { break }
            body.append((line.indent - blockIndent!, line.content))
            index += 1
        }
        var trailing = 0
        while let last = body.last, last.text.isEmpty {
            body.removeLast()
            trailing += 1
        }
        var text = ""
        for (number, line) in body.enumerated() {
            let content = String(repeating: " ", count: line.indent) + String(decoding: line.text, as: UTF8.self)
            if number > 0 {
                let previousBlank = body[number - 1].text.isEmpty
                text += folded && !line.text.isEmpty && !previousBlank && line.indent == 0 && body[number - 1].indent == 0 ? " " : "\n"
            }
            text += content
        }
        if !strip && !body.isEmpty { text += "\n" }
        if keep { text += String(repeating: "\n", count: trailing) }
        return text
    }

    private func keyString(_ text: ArraySlice<UInt8>) throws(SluiceError) -> String {
        if text.first == UInt8(ascii: "\"") || text.first == UInt8(ascii: "'") {
            var scanner = FlowScanner(bytes: Array(text), line: index < lines.count ? lines[index].number : 0)
            guard case .string(let key) = try scanner.value(), scanner.atEnd else { throw error("a quoted key that does not end") }
            return key
        }
        return String(decoding: text, as: UTF8.self)
    }

    private func scalarOrFlow(_ text: ArraySlice<UInt8>) throws(SluiceError) -> YAMLValue {
        guard let first = text.first else { return .null }
        if first == UInt8(ascii: "[") || first == UInt8(ascii: "{") || first == UInt8(ascii: "\"") || first == UInt8(ascii: "'") {
            var scanner = FlowScanner(bytes: Array(text), line: index > 0 ? lines[index - 1].number : 0)
            let value = try scanner.value()
            guard scanner.atEnd else { throw scanner.error("text after the value") }
            return value
        }
        return YAMLValue.resolve(String(decoding: text, as: UTF8.self))
    }

    /// `key: value` split at the first `: ` (or a final `:`) outside quotes and brackets.
    static func keySplit(_ content: ArraySlice<UInt8>) -> (key: ArraySlice<UInt8>, value: ArraySlice<UInt8>)? {
        var quote: UInt8?
        var nesting = 0
        var index = content.startIndex
        if content.first == UInt8(ascii: "[") || content.first == UInt8(ascii: "{") { return nil }
        while index < content.endIndex {
            let byte = content[index]
            if let open = quote {
                if byte == open { quote = nil } else if byte == UInt8(ascii: "\\") && open == UInt8(ascii: "\"") { index += 1 }
            } else if (byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'")) && index == content.startIndex {
                quote = byte
            } else if byte == UInt8(ascii: "[") || byte == UInt8(ascii: "{") {
                nesting += 1
            } else if byte == UInt8(ascii: "]") || byte == UInt8(ascii: "}") {
                nesting -= 1
            } else if byte == UInt8(ascii: ":") && nesting == 0 && (index + 1 == content.endIndex || content[index + 1] == 32) {
                let key = content[content.startIndex ..< index]
                guard !key.isEmpty else { return nil }
                var value = content[(index + 1)...]
                while value.first == 32 { value = value.dropFirst() }
                return (key, value)
            }
            index += 1
        }
        return nil
    }
}

/// Flow collections and quoted scalars within one line's text.
struct FlowScanner {
    let bytes: [UInt8]
    let line: Int
    var position = 0
    var depth = 0

    init(bytes: [UInt8], line: Int) {
        self.bytes = bytes
        self.line = line
    }

    var atEnd: Bool {
        var index = position
        while index < bytes.count && bytes[index] == 32 { index += 1 }
        return index == bytes.count
    }

    func error(_ what: String) -> SluiceError {
        SluiceError(.invalidTextRepresentation, "YAML line \(line): \(what)")
    }

    mutating func skipBlanks() {
        while position < bytes.count && bytes[position] == 32 { position += 1 }
    }

    mutating func value() throws(SluiceError) -> YAMLValue {
        skipBlanks()
        guard position < bytes.count else { return .null }
        switch bytes[position] {
        case UInt8(ascii: "["):
            return try collection(close: UInt8(ascii: "]"), mapping: false)
        case UInt8(ascii: "{"):
            return try collection(close: UInt8(ascii: "}"), mapping: true)
        case UInt8(ascii: "\""):
            return .string(try doubleQuoted())
        case UInt8(ascii: "'"):
            return .string(try singleQuoted())
        case UInt8(ascii: "&"), UInt8(ascii: "*"), UInt8(ascii: "!"):
            throw error("anchors, aliases and tags are not supported")
        default:
            let start = position
            while position < bytes.count && bytes[position] != UInt8(ascii: ",") && bytes[position] != UInt8(ascii: "]")
                && bytes[position] != UInt8(ascii: "}") && !(bytes[position] == UInt8(ascii: ":") && (position + 1 == bytes.count || bytes[position + 1] == 32 || depth > 0 && (bytes[position + 1] == UInt8(ascii: ",") || bytes[position + 1] == UInt8(ascii: "}")))) {
                position += 1
            }
            var text = bytes[start ..< position]
            while text.last == 32 { text = text.dropLast() }
            return YAMLValue.resolve(String(decoding: text, as: UTF8.self))
        }
    }

    private mutating func collection(close: UInt8, mapping: Bool) throws(SluiceError) -> YAMLValue {
        depth += 1
        defer { depth -= 1 }
        guard depth <= YAMLDocuments.maximumDepth else { throw error("nested more than \(YAMLDocuments.maximumDepth) deep") }
        position += 1
        var items: [YAMLValue] = []
        var members: [(key: String, value: YAMLValue)] = []
        while true {
            skipBlanks()
            guard position < bytes.count else { throw error("a flow collection that does not end on its line") }
            if bytes[position] == close {
                position += 1
                break
            }
            if mapping {
                let key = try value()
                skipBlanks()
                guard position < bytes.count, bytes[position] == UInt8(ascii: ":") else { throw error("a flow mapping's key without a value") }
                position += 1
                let item = try value()
                let name: String
                switch key {
                case .string(let text), .number(let text): name = text
                case .bool(let flag): name = flag ? "true" : "false"
                case .null: name = "null"
                default: throw error("a flow mapping's key that is a collection")
                }
                members.append((name, item))
            } else {
                items.append(try value())
            }
            skipBlanks()
            guard position < bytes.count else { throw error("a flow collection that does not end on its line") }
            if bytes[position] == UInt8(ascii: ",") {
                position += 1
            } else if bytes[position] != close {
                throw error("expected , or \(Character(UnicodeScalar(close)))")
            }
        }
        return mapping ? .mapping(members) : .sequence(items)
    }

    private mutating func singleQuoted() throws(SluiceError) -> String {
        position += 1
        var out: [UInt8] = []
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: "'") {
                if position < bytes.count && bytes[position] == UInt8(ascii: "'") {
                    out.append(byte)
                    position += 1
                    continue
                }
                return String(decoding: out, as: UTF8.self)
            }
            out.append(byte)
        }
        throw error("a quoted string that does not end on its line")
    }

    private mutating func doubleQuoted() throws(SluiceError) -> String {
        position += 1
        var out: [UInt8] = []
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            if byte == UInt8(ascii: "\"") { return String(decoding: out, as: UTF8.self) }
            guard byte == UInt8(ascii: "\\") else {
                out.append(byte)
                continue
            }
            guard position < bytes.count else { break }
            let escape = bytes[position]
            position += 1
            switch escape {
            case UInt8(ascii: "n"): out.append(10)
            case UInt8(ascii: "t"): out.append(9)
            case UInt8(ascii: "r"): out.append(13)
            case UInt8(ascii: "0"): out.append(0)
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
            case UInt8(ascii: "u"), UInt8(ascii: "x"), UInt8(ascii: "U"):
                let width = escape == UInt8(ascii: "x") ? 2 : escape == UInt8(ascii: "u") ? 4 : 8
                guard position + width <= bytes.count, let code = UInt32(String(decoding: bytes[position ..< position + width], as: UTF8.self), radix: 16),
                      let scalar = Unicode.Scalar(code) else { throw error("a bad \\\(Character(UnicodeScalar(escape))) escape") }
                out += Array(String(Character(scalar)).utf8)
                position += width
            default:
                throw error("an unknown escape \\\(Character(UnicodeScalar(escape)))")
            }
        }
        throw error("a quoted string that does not end on its line")
    }
}
