import SluiceCore

/// An element of a small XML document: S3's responses (list results, errors, upload ids) are
/// shallow trees of elements holding text, which is all this models. Attributes, namespaces
/// and mixed content are read past; the text of an element is its character data with entities
/// and CDATA sections decoded.
package struct XMLElement: Sendable, Hashable {
    package var name: String
    package var text: String
    package var children: [XMLElement]

    package init(name: String, text: String = "", children: [XMLElement] = []) {
        self.name = name
        self.text = text
        self.children = children
    }

    /// The first child named `name`.
    package func child(_ name: String) -> XMLElement? {
        children.first { $0.name == name }
    }

    /// The children named `name`, in document order.
    package func children(named name: String) -> [XMLElement] {
        children.filter { $0.name == name }
    }

    /// Parses a whole document with a hand-written scanner (no FoundationXML on the data path).
    /// Malformed input — unbalanced or unterminated tags, bad entities, invalid UTF-8, nesting
    /// deeper than `maxDepth`, no root element — is a `22P02` error; it never traps.
    package static func parse(_ bytes: [UInt8], maxDepth: Int = 64) throws(SluiceError) -> XMLElement {
        var parser = XMLParser(bytes: bytes, maxDepth: maxDepth)
        return try parser.document()
    }
}

/// The scanner behind ``XMLElement/parse(_:maxDepth:)``: one pass over the bytes with an explicit
/// stack of open elements, so deep input cannot overflow the call stack.
private struct XMLParser {
    let bytes: [UInt8]
    let maxDepth: Int
    var offset = 0
    var stack: [(element: XMLElement, text: [UInt8])] = []
    var root: XMLElement?

    init(bytes: [UInt8], maxDepth: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
    }

    mutating func document() throws(SluiceError) -> XMLElement {
        while offset < bytes.count {
            if bytes[offset] == UInt8(ascii: "<") {
                try markup()
            } else {
                let end = bytes[offset...].firstIndex(of: UInt8(ascii: "<")) ?? bytes.count
                try appendText(from: offset, to: end)
                offset = end
            }
        }
        guard stack.isEmpty else { throw failure("element <\(stack[stack.count - 1].element.name)> is not closed") }
        guard let root else { throw failure("there is no root element") }
        return root
    }

    private mutating func markup() throws(SluiceError) {
        if starts(with: "<?") {
            offset = try end(of: "?>", from: offset + 2)
        } else if starts(with: "<!--") {
            offset = try end(of: "-->", from: offset + 4)
        } else if starts(with: "<![CDATA[") {
            let close = try end(of: "]]>", from: offset + 9)
            guard !stack.isEmpty else { throw failure("character data outside the root element") }
            stack[stack.count - 1].text.append(contentsOf: bytes[(offset + 9) ..< (close - 3)])
            offset = close
        } else if starts(with: "<!") {
            offset = try end(of: ">", from: offset + 2)
        } else if starts(with: "</") {
            let (name, after) = try name(from: offset + 2)
            var position = after
            while position < bytes.count, isSpace(bytes[position]) { position += 1 }
            guard position < bytes.count, bytes[position] == UInt8(ascii: ">") else { throw failure("end tag </\(name)> is not closed") }
            offset = position + 1
            guard let open = stack.popLast() else { throw failure("end tag </\(name)> has no start tag") }
            guard open.element.name == name else { throw failure("end tag </\(name)> does not match <\(open.element.name)>") }
            try finish(open.element, text: open.text)
        } else {
            let (name, after) = try name(from: offset + 1)
            // Skip the attributes, minding quoted values that may hold '>'.
            var position = after
            var quote: UInt8?
            while position < bytes.count {
                let byte = bytes[position]
                if let open = quote {
                    if byte == open { quote = nil }
                } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                    quote = byte
                } else if byte == UInt8(ascii: ">") {
                    break
                }
                position += 1
            }
            guard position < bytes.count else { throw failure("start tag <\(name)> is not closed") }
            let isEmpty = position > after && bytes[position - 1] == UInt8(ascii: "/")
            offset = position + 1
            guard root == nil else { throw failure("more than one root element") }
            guard stack.count < maxDepth else { throw failure("elements are nested more than \(maxDepth) deep") }
            if isEmpty {
                try finish(XMLElement(name: name), text: [])
            } else {
                stack.append((XMLElement(name: name), []))
            }
        }
    }

    /// Attaches a closed element to its parent, or makes it the root.
    private mutating func finish(_ element: XMLElement, text: [UInt8]) throws(SluiceError) {
        var element = element
        element.text = try decode(text)
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].element.children.append(element)
        }
    }

    private mutating func appendText(from start: Int, to end: Int) throws(SluiceError) {
        guard !stack.isEmpty else {
            guard bytes[start ..< end].allSatisfy(isSpace) else { throw failure("text outside the root element") }
            return
        }
        // Entities are decoded with the rest when the element closes; a raw '&' is kept here.
        stack[stack.count - 1].text.append(contentsOf: bytes[start ..< end])
    }

    /// Decodes entity and character references and checks the text is UTF-8.
    private func decode(_ raw: [UInt8]) throws(SluiceError) -> String {
        guard raw.contains(UInt8(ascii: "&")) else {
            guard let text = String(validating: raw, as: UTF8.self) else { throw failure("text is not valid UTF-8") }
            return text
        }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(raw.count)
        var index = 0
        while index < raw.count {
            let byte = raw[index]
            guard byte == UInt8(ascii: "&") else {
                decoded.append(byte)
                index += 1
                continue
            }
            let limit = min(raw.count, index + 12)
            guard let semicolon = raw[index ..< limit].firstIndex(of: UInt8(ascii: ";")) else { throw failure("unterminated entity reference") }
            let entity = String(decoding: raw[(index + 1) ..< semicolon], as: UTF8.self)
            switch entity {
            case "lt": decoded.append(UInt8(ascii: "<"))
            case "gt": decoded.append(UInt8(ascii: ">"))
            case "amp": decoded.append(UInt8(ascii: "&"))
            case "quot": decoded.append(UInt8(ascii: "\""))
            case "apos": decoded.append(UInt8(ascii: "'"))
            default:
                var value: UInt32?
                if entity.hasPrefix("#x") { value = UInt32(entity.dropFirst(2), radix: 16) }
                else if entity.hasPrefix("#") { value = UInt32(entity.dropFirst(), radix: 10) }
                guard let value, let scalar = Unicode.Scalar(value) else { throw failure("unknown entity &\(entity);") }
                decoded.append(contentsOf: Array(String(Character(scalar)).utf8))
            }
            index = semicolon + 1
        }
        guard let text = String(validating: decoded, as: UTF8.self) else { throw failure("text is not valid UTF-8") }
        return text
    }

    private func name(from start: Int) throws(SluiceError) -> (String, Int) {
        var end = start
        while end < bytes.count, !isSpace(bytes[end]), bytes[end] != UInt8(ascii: ">"), bytes[end] != UInt8(ascii: "/") { end += 1 }
        guard end > start, end - start <= 256, let name = String(validating: bytes[start ..< end], as: UTF8.self) else {
            throw failure("invalid element name at byte \(start)")
        }
        return (name, end)
    }

    private func starts(with text: StaticString) -> Bool {
        let count = text.utf8CodeUnitCount
        guard offset + count <= bytes.count else { return false }
        return text.withUTF8Buffer { prefix in
            prefix.indices.allSatisfy { bytes[offset + $0] == prefix[$0] }
        }
    }

    /// The offset just past the first `terminator` at or after `start`.
    private func end(of terminator: StaticString, from start: Int) throws(SluiceError) -> Int {
        let pattern = terminator.withUTF8Buffer { Array($0) }
        var position = start
        while position + pattern.count <= bytes.count {
            if bytes[position] == pattern[0] && bytes[position ..< position + pattern.count].elementsEqual(pattern) {
                return position + pattern.count
            }
            position += 1
        }
        throw failure("unterminated markup at byte \(offset)")
    }

    private func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t")
    }

    private func failure(_ reason: String) -> SluiceError {
        SluiceError(.invalidTextRepresentation, "invalid XML: \(reason)")
    }
}
