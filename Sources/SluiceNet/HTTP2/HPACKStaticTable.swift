/// RFC 7541 Appendix A: the static table, entries 1 through 61 (index 0 here is entry 1).
enum HPACKStaticTable {
    static let entries: [(name: String, value: String)] = [
        (":authority", ""), (":method", "GET"), (":method", "POST"), (":path", "/"), (":path", "/index.html"),
        (":scheme", "http"), (":scheme", "https"), (":status", "200"), (":status", "204"), (":status", "206"),
        (":status", "304"), (":status", "400"), (":status", "404"), (":status", "500"), ("accept-charset", ""),
        ("accept-encoding", "gzip, deflate"), ("accept-language", ""), ("accept-ranges", ""), ("accept", ""),
        ("access-control-allow-origin", ""), ("age", ""), ("allow", ""), ("authorization", ""), ("cache-control", ""),
        ("content-disposition", ""), ("content-encoding", ""), ("content-language", ""), ("content-length", ""),
        ("content-location", ""), ("content-range", ""), ("content-type", ""), ("cookie", ""), ("date", ""), ("etag", ""),
        ("expect", ""), ("expires", ""), ("from", ""), ("host", ""), ("if-match", ""), ("if-modified-since", ""),
        ("if-none-match", ""), ("if-range", ""), ("if-unmodified-since", ""), ("last-modified", ""), ("link", ""),
        ("location", ""), ("max-forwards", ""), ("proxy-authenticate", ""), ("proxy-authorization", ""), ("range", ""),
        ("referer", ""), ("refresh", ""), ("retry-after", ""), ("server", ""), ("set-cookie", ""),
        ("strict-transport-security", ""), ("transfer-encoding", ""), ("user-agent", ""), ("vary", ""), ("via", ""),
        ("www-authenticate", ""),
    ]

    /// The entries as bytes, as the decoder hands them out.
    static let byteEntries: [(name: [UInt8], value: [UInt8])] = entries.map { (Array($0.name.utf8), Array($0.value.utf8)) }

    /// The index (1-based) of the first entry named `name`, for the encoder's literals.
    static let nameIndex: [String: Int] = {
        var index: [String: Int] = [:]
        for (offset, entry) in entries.enumerated() where index[entry.name] == nil { index[entry.name] = offset + 1 }
        return index
    }()
}

/// The dynamic table (RFC 7541 Section 2.3.2, 4): newest entry first, each counted as its name's
/// and value's lengths plus 32, the oldest evicted past the maximum size.
struct HPACKDynamicTable {
    /// Oldest first: dynamic index 1 is the last element.
    private(set) var entries: [(name: [UInt8], value: [UInt8])] = []
    private(set) var size = 0
    private(set) var maximumSize: Int

    init(maximumSize: Int) {
        self.maximumSize = maximumSize
    }

    var count: Int { entries.count }

    /// Entry `index` (1 = newest).
    func entry(_ index: Int) -> (name: [UInt8], value: [UInt8]) {
        entries[entries.count - index]
    }

    /// Section 4.4: an entry larger than the table empties it and is not added.
    mutating func add(name: [UInt8], value: [UInt8]) {
        let entrySize = name.count + value.count + 32
        evict(toFit: maximumSize - entrySize)
        if entrySize <= maximumSize {
            entries.append((name, value))
            size += entrySize
        }
    }

    /// Section 4.3: a smaller maximum evicts the oldest entries.
    mutating func resize(to newSize: Int) {
        maximumSize = newSize
        evict(toFit: newSize)
    }

    private mutating func evict(toFit limit: Int) {
        var dropped = 0
        while size > max(0, limit), dropped < entries.count {
            let entry = entries[dropped]
            size -= entry.name.count + entry.value.count + 32
            dropped += 1
        }
        if dropped > 0 { entries.removeFirst(dropped) }
    }
}
