import Foundation
import Synchronization
import SluiceCodecs
import SluiceCore

/// One view's state in a checkpoint: a base (everything it holds) or a delta (what changed since
/// the checkpoint before), one ``StateSection`` per state table that has something to say.
///
/// A paged table (``PagedImage``: a view's rows) is written in blocks of at most a page of keys,
/// each its own section, as the checkpoint file is written: whole, its pages one by one (read
/// back without staying in memory if evicted), so a base larger than memory never sits in
/// memory; as changes, its put keys in page-sized slices, then its removals. Each block is
/// marked, so recovery can leave it in the file as a page (``StatePage/Reference``).
package struct FragmentCheckpoint: Sendable {
    /// The view's or table's relation id.
    package var view: Int
    package var isBase: Bool
    /// A table's rows rather than a view's state: a table may not be left out of a checkpoint.
    package var isTable = false
    package var sections: [StateSection]
    /// Paged tables, to be written in blocks.
    package var pagedTables: [PagedImage] = []
    /// Blocks read back as references into the run file, by table
    /// (``decode(_:view:lazily:file:at:)``); a table whose first block is whole is those pages.
    package var storedPages: [Int: [StatePage.Reference]] = [:]
    /// Sections of tables restored lazily, left in the run file until their table's restore
    /// reads them, one at a time (a chain of large deltas is never all in memory), in order.
    package var storedSections: [StatePage.Reference] = []

    /// A paged table's part: all its pages, or its changes since the last checkpoint.
    package struct PagedImage: Sendable {
        package var table: Int
        package var types: [DataType]
        /// Every page (a whole table), when `changes` is nil.
        package var pages: [StatePage]
        package var changes: StateSection?
        /// Changes not merged yet (oldest first), to be merged into `changes` off the thread
        /// that took them (``FragmentCheckpoint/settle()``).
        package var unmerged: [StateSection]?
        /// Whether the pages are the whole table; otherwise they add their keys to it.
        package var isWhole = true

        package init(table: Int, types: [DataType], pages: [StatePage], isWhole: Bool = true) {
            self.table = table
            self.types = types
            self.pages = pages
            self.isWhole = isWhole
        }

        package init(changes: StateSection) {
            self.table = changes.table
            self.types = changes.types
            self.pages = []
            self.changes = changes
        }

        /// Changes of table `table` still to be merged, oldest first.
        package init(table: Int, types: [DataType], unmerged: [StateSection]) {
            self.table = table
            self.types = types
            self.pages = []
            self.unmerged = unmerged
        }

        package var isEmpty: Bool { changes?.isEmpty ?? unmerged?.allSatisfy(\.isEmpty) ?? false }

        /// Bytes the pages or changes hold.
        package var byteCount: Int {
            changes?.byteCount ?? unmerged?.reduce(0) { $0 + $1.byteCount } ?? pages.reduce(0) { $0 + $1.byteCount }
        }

        /// What the image holds as one section (its pages' rows as puts, or its changes).
        package func section() -> StateSection {
            var image = self
            image.settle()
            var parts: [StateSection] = []
            try! image.blocks { (section, _) throws(SluiceError) in parts.append(section) }
            var merged = StateSection.merged(parts, keepingRemovals: true) ?? StateSection(table: table, types: types)
            merged.table = table
            return merged
        }

        /// Merges the unmerged changes.
        mutating func settle() {
            guard let parts = unmerged else { return }
            unmerged = nil
            var merged = StateSection.merged(parts, keepingRemovals: true) ?? StateSection(table: table, types: types)
            merged.table = table
            changes = merged
        }

        /// The blocks it is written as, each with whether it is a page block (puts only).
        func blocks(_ body: (StateSection, _ isPageBlock: Bool) throws(SluiceError) -> Void) throws(SluiceError) {
            if let changes {
                var start = 0
                while start < changes.keys.count {
                    let end = min(changes.keys.count, start + PagedTable.pageCapacity)
                    try body(changes.slice(start ..< end), true)
                    start = end
                }
                if !changes.removed.isEmpty {
                    try body(StateSection(table: table, types: types, removed: changes.removed), false)
                }
                return
            }
            guard !pages.isEmpty else {
                guard isWhole else { return }
                var empty = StateSection(table: table, types: types)
                empty.isWhole = true
                try body(empty, false)
                return
            }
            for (index, page) in pages.enumerated() {
                let contents = page.readContents()
                var section = StateSection(
                    table: table, types: types, keys: contents.keys,
                    counts: contents.counts ?? [Int32](repeating: 1, count: page.keyCount), rows: contents.rows)
                section.isWhole = isWhole && index == 0
                try body(section, true)
            }
        }

        /// How many blocks ``blocks(_:)`` makes.
        var blockCount: Int {
            guard let changes else { return isWhole ? max(pages.count, 1) : pages.count }
            return (changes.keys.count + PagedTable.pageCapacity - 1) / PagedTable.pageCapacity + (changes.removed.isEmpty ? 0 : 1)
        }
    }

    package init(view: Int, isBase: Bool, sections: [StateSection], pagedTables: [PagedImage] = []) {
        self.view = view
        self.isBase = isBase
        self.sections = sections
        self.pagedTables = pagedTables
    }

    /// Merges what the paged tables' changes left unmerged (before ``write(to:)``).
    package mutating func settle() {
        for index in pagedTables.indices { pagedTables[index].settle() }
    }

    /// The first format: sections back to back, no lengths or checksums (still read).
    static let headerVersion1: [UInt8] = Array("SLUICE-VIEW-STATE-1".utf8)
    static let header: [UInt8] = Array("SLUICE-VIEW-STATE-2".utf8)

    /// Layout: the header, a base flag byte, the section count (u32), then each section as a
    /// kind byte (1: a page block, puts only and at most a page of keys; 0: any other), its
    /// length (u32), its CRC-32C (u32) and its bytes (``StateSection``).
    ///
    /// Calls `emit` with the bytes in order, a section at a time. Returns the bytes emitted.
    @discardableResult
    package func write(to emit: (borrowing [UInt8]) throws(SluiceError) -> Void) throws(SluiceError) -> Int {
        var bytes = Self.header
        bytes.append(isBase ? 1 : 0)
        let count = sections.count + pagedTables.reduce(0) { $0 + $1.blockCount }
        bytes.appendLittleEndian(UInt32(count))
        var total = bytes.count
        try emit(bytes)
        func emitSection(_ section: StateSection, isPageBlock: Bool) throws(SluiceError) {
            var body: [UInt8] = [isPageBlock ? 1 : 0, 0, 0, 0, 0, 0, 0, 0, 0]
            body.reserveCapacity(section.byteCount + 64)
            section.encode(into: &body)
            let length = UInt32(body.count - 9)
            let checksum = body.withUnsafeBytes { CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[9...])) }
            body.withUnsafeMutableBytes { buffer in
                buffer.storeBytes(of: length.littleEndian, toByteOffset: 1, as: UInt32.self)
                buffer.storeBytes(of: checksum.littleEndian, toByteOffset: 5, as: UInt32.self)
            }
            total += body.count
            try emit(body)
        }
        for section in sections { try emitSection(section, isPageBlock: false) }
        for image in pagedTables {
            try image.blocks { (section, isPageBlock) throws(SluiceError) in try emitSection(section, isPageBlock: isPageBlock) }
        }
        return total
    }

    package func encoded() -> [UInt8] {
        var bytes: [UInt8] = []
        try! write { (piece: borrowing [UInt8]) in bytes += copy piece }
        return bytes
    }

    /// Which state tables' page blocks recovery leaves in the run files, to be read as their
    /// pages are touched.
    package enum LazyTables: Sendable, Equatable {
        case none
        case only(Set<Int>)
        /// Every table's: an operator that loads its state whole reads them at once
        /// (``RestoredTables/section(_:)``).
        case all

        func contains(_ table: Int) -> Bool {
            switch self {
            case .none: false
            case .only(let tables): tables.contains(table)
            case .all: true
            }
        }
    }

    /// The checkpoint `bytes` hold. The page blocks of a table in `lazily` are not read but
    /// referred to in `file`, where `bytes` begin at offset `fileOffset`. With `verified` (the
    /// whole file's checksum held), a page block left in the file is not checksummed again
    /// now: its checksum is checked when the page is first read.
    ///
    /// `readThrough`, when given, is told after each section how far into `bytes` the decode
    /// has read (a reader of a mapped file lets go of the pages behind it).
    package static func decode(
        _ bytes: UnsafeRawBufferPointer, view: Int, lazily: LazyTables = .none, file: SpillFile? = nil, at fileOffset: Int = 0,
        verified: Bool = false, readThrough: ((Int) -> Void)? = nil
    ) throws(SluiceError) -> FragmentCheckpoint {
        let isVersion1 = bytes.starts(with: headerVersion1)
        guard isVersion1 || bytes.starts(with: header) else { throw SluiceError(.ioError, "view state has an unknown format") }
        var reader = ByteReader(bytes: bytes, offset: header.count)
        let isBase = try reader.read(UInt8.self) == 1
        let count = Int(try reader.read(UInt32.self))
        guard count <= bytes.count else { throw SluiceError(.ioError, "stored data is truncated") }
        var offset = reader.offset
        var sections: [StateSection] = []
        var storedPages: [Int: [StatePage.Reference]] = [:]
        var storedSections: [StatePage.Reference] = []
        for _ in 0 ..< count {
            if isVersion1 {
                sections.append(try StateSection.decode(bytes, offset: &offset))
                continue
            }
            var framing = ByteReader(bytes: bytes, offset: offset)
            let kind = try framing.read(UInt8.self)
            let length = Int(try framing.read(UInt32.self))
            let checksum = try framing.read(UInt32.self)
            let start = framing.offset
            guard kind <= 1, length <= bytes.count - start else { throw SluiceError(.ioError, "stored data is truncated") }
            let body = UnsafeRawBufferPointer(rebasing: bytes[start ..< start + length])
            offset = start + length
            let leftInFile = file != nil && length >= 4 && lazily.contains(Int(body.loadUnaligned(as: UInt32.self).littleEndian))
            guard (verified && leftInFile) || CRC32C.checksum(body) == checksum else {
                throw SluiceError(.ioError, "a state section fails its checksum")
            }
            if leftInFile, kind == 0, let file {
                let summary = try StateSection.summary(body)
                storedSections.append(StatePage.Reference(
                    file: file, region: SpillFile.Region(offset: fileOffset + start, length: length, checksum: checksum), summary: summary))
                readThrough?(offset)
                continue
            }
            if leftInFile, let file {
                let summary = try StateSection.summary(body)
                guard summary.keyCount > 0, summary.keyCount <= PagedTable.pageCapacity else {
                    throw SluiceError(.ioError, "a page block holds \(summary.keyCount) keys")
                }
                let region = SpillFile.Region(offset: fileOffset + start, length: length, checksum: checksum)
                storedPages[summary.table, default: []].append(StatePage.Reference(file: file, region: region, summary: summary))
                readThrough?(offset)
                continue
            }
            var bodyOffset = 0
            sections.append(try StateSection.decode(body, offset: &bodyOffset))
            guard bodyOffset == length else { throw SluiceError(.ioError, "a state section has bytes after its end") }
            readThrough?(offset)
        }
        guard offset == bytes.count else { throw SluiceError(.ioError, "view state has bytes after its sections") }
        var checkpoint = FragmentCheckpoint(view: view, isBase: isBase, sections: sections)
        checkpoint.storedPages = storedPages
        checkpoint.storedSections = storedSections
        return checkpoint
    }

    /// Each state table's contents after `chain` (a base, then deltas, oldest first), by table id.
    package static func contents(of chain: [FragmentCheckpoint]) throws(SluiceError) -> RestoredTables {
        guard let first = chain.first, first.isBase else { throw SluiceError(.dataCorrupted, "a view's stored state does not start with a base") }
        var byTable: [Int: [RestoredTables.Step]] = [:]
        var steps: [Int: [RestoredTables.Step]] = [:]
        func add(_ change: RestoredTables.Step, table: Int, isWhole: Bool) {
            byTable[table, default: []].append(change)
            if isWhole && steps[table] != nil { steps[table] = [] }
            steps[table]?.append(change)
        }
        for checkpoint in chain {
            // Its sections, decoded or left in the run file (each table's all one way).
            var changes: [(step: RestoredTables.Step, table: Int, isWhole: Bool)] = checkpoint.sections.map { (.changes($0), $0.table, $0.isWhole) }
            changes += checkpoint.storedSections.map { (.storedChanges($0), $0.summary.table, $0.summary.isWhole) }
            // A table's whole section comes before its page blocks of the same checkpoint (an
            // aggregate's base: the groups in memory, then the pages of the groups moved out,
            // which must not be dropped by it); otherwise a checkpoint's page blocks and
            // sections of one table hold different keys, and their order does not matter.
            for change in changes where change.isWhole { add(change.step, table: change.table, isWhole: true) }
            for (table, stored) in checkpoint.storedPages {
                if stored.first?.summary.isWhole == true {
                    steps[table] = []
                } else if steps[table] == nil {
                    // (Sections before the first page blocks, as an older format wrote them.)
                    steps[table] = byTable[table] ?? []
                }
                steps[table, default: []].append(.pages(stored))
            }
            for change in changes where !change.isWhole { add(change.step, table: change.table, isWhole: false) }
        }
        var result = RestoredTables()
        for (table, changes) in byTable where steps[table] == nil && !changes.isEmpty {
            var sections: [StateSection] = []
            for change in changes {
                switch change {
                case .changes(let section): sections.append(section)
                case .storedChanges(let reference): sections.append(try reference.read())
                case .pages: break
                }
            }
            guard sections.allSatisfy({ $0.types == sections[0].types }) else {
                throw SluiceError(.dataCorrupted, "state table \(table) changes its column types between checkpoints")
            }
            result.sections[table] = StateSection.merged(sections)
        }
        result.paged = steps
        return result
    }
}

/// The state tables of a view as a checkpoint chain leaves them, by table id.
///
/// A table in `paged` is rebuilt by its steps, in order (``PagedTable/init(restoring:types:memory:)``):
/// page blocks left in the run files until read, and sections of changes. Any other table is
/// its entry in `sections`, whole, or empty when it has none.
package struct RestoredTables: Sendable {
    package var sections: [Int: StateSection] = [:]
    package var paged: [Int: [Step]] = [:]

    /// One step of a paged table's restore.
    package enum Step: Sendable {
        /// Page blocks: the first may be whole (the table is then rebuilt from it on); the
        /// rest add their keys.
        case pages([StatePage.Reference])
        /// A section: whole, or keys put and removed.
        case changes(StateSection)
        /// A section left in the run file, read when its step is taken.
        case storedChanges(StatePage.Reference)
    }

    package init(sections: [Int: StateSection] = [:]) {
        self.sections = sections
    }

    /// Table `table`'s contents as one section, its stored pages read: for an operator that
    /// loads its state whole. Nil when nothing is stored for it.
    package func section(_ table: Int) throws(SluiceError) -> StateSection? {
        guard let steps = paged[table] else { return sections[table] }
        var parts: [StateSection] = []
        for step in steps {
            switch step {
            case .pages(let references):
                for reference in references { parts.append(try reference.read()) }
            case .changes(let section):
                parts.append(section)
            case .storedChanges(let reference):
                parts.append(try reference.read())
            }
        }
        guard var merged = StateSection.merged(parts) else { return nil }
        merged.table = table
        return merged
    }

    /// About the bytes the tables take on disk.
    package var byteCount: Int {
        var bytes = sections.values.reduce(0) { $0 + $1.byteCount }
        for steps in paged.values {
            for step in steps {
                switch step {
                case .pages(let pages): bytes += pages.reduce(0) { $0 + $1.region.length }
                case .changes(let section): bytes += section.byteCount
                case .storedChanges(let reference): bytes += reference.region.length
                }
            }
        }
        return bytes
    }
}

/// Where a checkpoint cut the write-ahead log: records after it came after the checkpoint.
package struct LogPosition: Sendable, Equatable, Comparable {
    package var segment: UInt64
    package var offset: Int64

    package init(segment: UInt64, offset: Int64) {
        self.segment = segment
        self.offset = offset
    }

    package static func < (lhs: LogPosition, rhs: LogPosition) -> Bool {
        (lhs.segment, lhs.offset) < (rhs.segment, rhs.offset)
    }
}

/// What one state checkpoint holds: where each view's state is (a chain of pieces of run files,
/// base first), the log position and sources' positions it was cut at.
package struct StateManifest: Sendable, Equatable {
    package struct Link: Sendable, Equatable {
        /// The run file's checkpoint number.
        package var file: UInt64
        package var offset: Int
        package var length: Int
    }

    package var sequence: UInt64
    /// The runtime's epoch it was taken at (for the history; epochs restart with the process).
    package var epoch: UInt64
    package var log: LogPosition
    /// Each source's positions (Kafka offsets by partition; a generator's next row), and under
    /// the pseudo-partition `Int32.min` a source's watermark, in microseconds.
    package var positions: [Int: [Int32: Int64]]
    /// Each view's and table's chain, by relation id.
    package var chains: [Int: [Link]]
    /// Which chains are tables'. Nil for a checkpoint from before tables were in them (their
    /// rows then come from the tables' own checkpoint files).
    package var tables: Set<Int>?
    /// The catalog's version at the cut (its next relation id): a relation with this id or a
    /// higher one was created after the cut and has no state here. Nil: not recorded.
    package var catalogVersion: Int?

    /// Whether the checkpoint holds the state of view `id` (not a table's chain, and not one a
    /// relation that had the id before it left).
    package func holds(view id: Int) -> Bool {
        chains[id] != nil && tables?.contains(id) != true && id < (catalogVersion ?? .max)
    }

    /// Whether the checkpoint holds the rows of table `id`.
    package func holds(table id: Int) -> Bool {
        chains[id] != nil && tables?.contains(id) == true && id < (catalogVersion ?? .max)
    }

    static let headerVersion1 = "SLUICE-STATE-MANIFEST-1"
    static let header = "SLUICE-STATE-MANIFEST-2"

    /// Whether the checkpoint holds every table that existed at its cut.
    package var includesTables: Bool { tables != nil }

    func encoded() -> [UInt8] {
        var lines = [tables == nil ? Self.headerVersion1 : Self.header, "checkpoint \(sequence)", "epoch \(epoch)", "log \(log.segment) \(log.offset)"]
        if let catalogVersion { lines.append("catalog \(catalogVersion)") }
        for (relation, partitions) in positions.sorted(by: { $0.key < $1.key }) {
            lines.append("positions \(relation)" + partitions.sorted { $0.key < $1.key }.map { " \($0.key):\($0.value)" }.joined())
        }
        for (view, links) in chains.sorted(by: { $0.key < $1.key }) {
            let kind = tables?.contains(view) == true ? "table" : "view"
            lines.append("\(kind) \(view)" + links.map { " \($0.file):\($0.offset):\($0.length)" }.joined())
        }
        return Array((lines.joined(separator: "\n") + "\n").utf8)
    }

    static func decode(_ bytes: [UInt8], path: String) throws(SluiceError) -> StateManifest {
        let malformed = SluiceError(.dataCorrupted, "state checkpoint manifest \(path) is malformed")
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n").map { $0.split(separator: " ").map(String.init) }
        guard lines.count >= 4, lines[0] == [header] || lines[0] == [headerVersion1], lines[1].count == 2, let sequence = UInt64(lines[1][1]),
            lines[2].count == 2, let epoch = UInt64(lines[2][1]),
            lines[3].count == 3, lines[3][0] == "log", let segment = UInt64(lines[3][1]), let offset = Int64(lines[3][2])
        else { throw malformed }
        var manifest = StateManifest(
            sequence: sequence, epoch: epoch, log: LogPosition(segment: segment, offset: offset), positions: [:], chains: [:],
            tables: lines[0] == [header] ? [] : nil)
        for fields in lines.dropFirst(4) {
            guard fields.count >= 2, let id = Int(fields[1]) else { throw malformed }
            if fields[0] == "catalog" {
                guard fields.count == 2, manifest.catalogVersion == nil else { throw malformed }
                manifest.catalogVersion = id
                continue
            }
            let pairs = fields.dropFirst(2).map { $0.split(separator: ":").map(String.init) }
            switch fields[0] {
            case "positions":
                var partitions: [Int32: Int64] = [:]
                for pair in pairs {
                    guard pair.count == 2, let partition = Int32(pair[0]), let position = Int64(pair[1]) else { throw malformed }
                    partitions[partition] = position
                }
                manifest.positions[id] = partitions
            case "view", "table":
                if fields[0] == "table" {
                    guard manifest.tables != nil else { throw malformed }
                    manifest.tables?.insert(id)
                }
                var links: [Link] = []
                for triple in pairs {
                    guard triple.count == 3, let file = UInt64(triple[0]), let offset = Int(triple[1]), let length = Int(triple[2]),
                        offset >= 0, length >= 0
                    else { throw malformed }
                    links.append(Link(file: file, offset: offset, length: length))
                }
                guard !links.isEmpty else { throw malformed }
                manifest.chains[id] = links
            default:
                throw malformed
            }
        }
        return manifest
    }
}

/// The checkpoints of views' and operators' state, under `<data-dir>/state/`:
/// - `run-<n>.state`: checkpoint `n`'s pieces, one per view (``FragmentCheckpoint``, a base or a
///   delta), one after the other, then a CRC-32C of the file;
/// - `MANIFEST-<n>`: checkpoint `n`'s ``StateManifest`` (checksummed), written and fsynced after
///   its run file: a checkpoint exists once its manifest does.
///
/// A view's state is its chain: its last base and the deltas after it, which may sit in older
/// run files. After each checkpoint the two newest manifests are kept, and every run file
/// neither of them refers to is deleted (a view that writes a new base frees its old chain: the
/// compaction). Checkpoints are written one at a time, by one caller.
package final class StateCheckpoints: Sendable {
    package let directory: String
    private struct State {
        var next: UInt64
        /// The last checkpoint written or recovered.
        var last: StateManifest?
        /// The last write failed: deltas taken before it was known extend a chain that misses
        /// the failed checkpoint's delta, until a write succeeds.
        var failed = false
    }
    private let state: Mutex<State>

    /// The last checkpoint written or recovered.
    package var lastManifest: StateManifest? { state.withLock { $0.last } }

    static let runHeader: [UInt8] = Array("SLUICE-STATE-RUN-1\n".utf8)

    /// Opens the directory; checkpoints written from here on are numbered after every file in it.
    package init(directory: String) throws(SluiceError) {
        self.directory = directory
        try Files.createDirectory(directory)
        let numbers = ((try? Files.list(directory)) ?? []).compactMap(Self.number(ofFile:))
        state = Mutex(State(next: (numbers.max() ?? 0) + 1, last: nil))
    }

    /// Continues the chains of `manifest` (the checkpoint recovery restored).
    package func resume(from manifest: StateManifest) {
        state.withLock { $0.last = manifest }
    }

    /// The last checkpoint written or resumed from.
    package var last: StateManifest? { state.withLock { $0.last } }

    /// What ``write(epoch:log:positions:pieces:)`` did.
    package struct Written: Sendable {
        package var manifest: StateManifest
        /// The checkpoint before it, kept with it (recovery falls back to it if this one is damaged).
        package var previous: StateManifest?
        package var bytes: Int
        /// Views whose delta had no chain to extend (a checkpoint before it failed): they must
        /// write a base next time; their state is left out of this checkpoint.
        package var brokenChains: [Int]
        /// Bytes of the bases and of the deltas among them.
        package var baseBytes = 0
        package var deltaBytes = 0
    }

    /// Writes a checkpoint of `pieces` (every view and table there is now, so one left out was
    /// dropped; each encoded as it is written), then its manifest, then deletes what the two
    /// newest manifests no longer need. A table's delta that has no chain to extend (a
    /// checkpoint before it failed) fails the checkpoint: a table is never left out.
    package func write(
        epoch: UInt64, log: LogPosition, positions: [Int: [Int32: Int64]], catalogVersion: Int? = nil, pieces: [FragmentCheckpoint]
    ) throws(SluiceError) -> Written {
        let (sequence, previous, failedBefore) = state.withLock { state -> (UInt64, StateManifest?, Bool) in
            defer { state.next += 1 }
            return (state.next, state.last, state.failed)
        }
        do {
            let written = try write(
                sequence: sequence, previous: previous, failedBefore: failedBefore, epoch: epoch, log: log, positions: positions,
                catalogVersion: catalogVersion, pieces: pieces)
            state.withLock { $0.failed = false }
            return written
        } catch {
            state.withLock { $0.failed = true }
            throw error
        }
    }

    private func write(
        sequence: UInt64, previous: StateManifest?, failedBefore: Bool, epoch: UInt64, log: LogPosition, positions: [Int: [Int32: Int64]],
        catalogVersion: Int?, pieces: [FragmentCheckpoint]
    ) throws(SluiceError) -> Written {
        func isBroken(_ piece: FragmentCheckpoint) -> Bool {
            !piece.isBase && (failedBefore || previous?.chains[piece.view] == nil)
        }
        if let table = pieces.first(where: { $0.isTable && isBroken($0) }) {
            throw SluiceError(.ioError, "table \(table.view)'s changes extend a checkpoint that was not written; the next checkpoint writes it whole")
        }
        var chains: [Int: [StateManifest.Link]] = [:]
        var broken: [Int] = []
        var compacts = false
        var (baseBytes, deltaBytes) = (0, 0)
        var written = try Files.writeChecksummed(to: path(ofRun: sequence)) { (write: (borrowing [UInt8]) throws(SluiceError) -> Void) throws(SluiceError) in
            try write(Self.runHeader)
            var offset = Self.runHeader.count
            for var piece in pieces {
                if isBroken(piece) {
                    broken.append(piece.view)
                    continue
                }
                piece.settle()
                let length = try piece.write(to: write)
                let link = StateManifest.Link(file: sequence, offset: offset, length: length)
                offset += length
                if piece.isBase {
                    baseBytes += length
                    compacts = compacts || previous?.chains[piece.view] != nil
                    chains[piece.view] = [link]
                } else if let chain = previous?.chains[piece.view] {
                    deltaBytes += length
                    chains[piece.view] = chain + [link]
                }
            }
        }
        try Failpoints.hit("state-run-written")
        if compacts { try Failpoints.hit("state-compaction") }
        let manifest = StateManifest(
            sequence: sequence, epoch: epoch, log: log, positions: positions, chains: chains,
            tables: Set(pieces.filter(\.isTable).map(\.view)), catalogVersion: catalogVersion)
        let encoded = manifest.encoded()
        try Files.writeChecksummed(encoded, to: path(ofManifest: sequence))
        written += encoded.count + 4
        try Failpoints.hit("state-after-manifest")
        state.withLock { $0.last = manifest }
        removeUnreferenced(keeping: [previous, manifest].compactMap { $0 })
        return Written(
            manifest: manifest, previous: previous, bytes: written, brokenChains: broken, baseBytes: baseBytes, deltaBytes: deltaBytes)
    }

    /// Deletes the manifests before the kept ones and every run file they do not refer to.
    private func removeUnreferenced(keeping manifests: [StateManifest]) {
        let keptManifests = Set(manifests.map(\.sequence))
        var keptRuns = Set<UInt64>()
        for manifest in manifests {
            for links in manifest.chains.values { for link in links { keptRuns.insert(link.file) } }
        }
        let newest = manifests.map(\.sequence).max() ?? 0
        for name in (try? Files.list(directory)) ?? [] {
            guard let number = Self.number(ofFile: name), number <= newest else { continue }
            let keep = name.hasPrefix("MANIFEST-") ? keptManifests.contains(number) : keptRuns.contains(number)
            if !keep { Files.remove("\(directory)/\(name)") }
        }
    }

    // MARK: Recovery

    /// The newest checkpoint whose manifest and run files read back whole, with each view's
    /// chain, or nil; damaged ones are passed over, falling back to the one before, and named
    /// in `damaged`. Tables in `lazily` written whole from their pages are left in the run
    /// files, referred to page by page (``FragmentCheckpoint/decode(_:view:lazily:file:at:)``).
    package static func recover(
        directory: String, lazily: FragmentCheckpoint.LazyTables = .none
    ) -> (checkpoint: (manifest: StateManifest, views: [Int: [FragmentCheckpoint]])?, damaged: [String]) {
        var damaged: [String] = []
        for sequence in manifests(in: directory).reversed() {
            do {
                return (try read(directory: directory, sequence: sequence, lazily: lazily), damaged)
            } catch {
                damaged.append(error.message)
            }
        }
        return (nil, damaged)
    }

    /// Reads checkpoint `sequence`: its manifest and every view's chain.
    package static func read(
        directory: String, sequence: UInt64, lazily: FragmentCheckpoint.LazyTables = .none
    ) throws(SluiceError) -> (manifest: StateManifest, views: [Int: [FragmentCheckpoint]]) {
        let manifestPath = "\(directory)/MANIFEST-\(sequence)"
        let manifest = try StateManifest.decode(try Files.readChecksummed(manifestPath), path: manifestPath)
        guard manifest.sequence == sequence else { throw SluiceError(.dataCorrupted, "state checkpoint manifest \(manifestPath) is malformed") }
        var needed: [UInt64: [(view: Int, position: Int, link: StateManifest.Link)]] = [:]
        for (view, links) in manifest.chains {
            for (position, link) in links.enumerated() { needed[link.file, default: []].append((view, position, link)) }
        }
        var views: [Int: [FragmentCheckpoint?]] = manifest.chains.mapValues { [FragmentCheckpoint?](repeating: nil, count: $0.count) }
        // The run files are checked and decoded on every core at once: at a restart with
        // gigabytes of state their checksums are most of the reading.
        let files = needed.sorted { $0.key < $1.key }
        let decoded = Mutex<[(view: Int, position: Int, checkpoint: FragmentCheckpoint)]>([])
        let failures = Mutex<[(file: UInt64, error: SluiceError)]>([])
        DispatchQueue.concurrentPerform(iterations: files.count) { index in
            let (file, links) = files[index]
            let path = "\(directory)/run-\(file).state"
            do throws(SluiceError) {
                let runFile = lazily == .none ? nil : try SpillFile(readingRunFile: path)
                var pieces: [(view: Int, position: Int, checkpoint: FragmentCheckpoint)] = []
                try Files.withMappedChecksummedFile(path) { (bytes: UnsafeRawBufferPointer) throws(SluiceError) in
                    guard bytes.starts(with: runHeader) else { throw SluiceError(.dataCorrupted, "state file \(path) has an unknown format") }
                    // The pages read are let go of a window at a time: what a lazily restored
                    // table reads of a run file larger than memory (each page block's summary)
                    // would otherwise leave all of it resident until the file is closed.
                    var released = 0
                    func readThrough(_ end: Int) {
                        guard end - released >= Files.mappedWindow else { return }
                        Files.dropMappedPages(bytes, released ..< end)
                        released = end
                    }
                    for entry in links {
                        guard entry.link.offset >= runHeader.count, entry.link.length <= bytes.count - entry.link.offset else {
                            throw SluiceError(.dataCorrupted, "state checkpoint \(manifestPath) points past the end of \(path)")
                        }
                        let piece = UnsafeRawBufferPointer(rebasing: bytes[entry.link.offset ..< entry.link.offset + entry.link.length])
                        do throws(SluiceError) {
                            pieces.append((entry.view, entry.position, try FragmentCheckpoint.decode(
                                piece, view: entry.view, lazily: lazily, file: runFile, at: entry.link.offset, verified: true,
                                readThrough: { readThrough(entry.link.offset + $0) })))
                        } catch {
                            throw SluiceError(.dataCorrupted, "state file \(path) is damaged: \(error.message)")
                        }
                    }
                }
                decoded.withLock { $0 += pieces }
            } catch {
                failures.withLock { $0.append((file, error)) }
            }
        }
        // The oldest damaged file is the one named, whatever order the threads met them in.
        if let failure = failures.withLock({ $0.min { $0.file < $1.file } }) { throw failure.error }
        for piece in decoded.withLock({ $0 }) { views[piece.view]![piece.position] = piece.checkpoint }
        return (manifest, views.mapValues { $0.compactMap { $0 } })
    }

    /// The checkpoint numbers that have a manifest in `directory`, ascending.
    package static func manifests(in directory: String) -> [UInt64] {
        Files.numbers(in: directory, prefix: "MANIFEST-")
    }

    private func path(ofRun sequence: UInt64) -> String { "\(directory)/run-\(sequence).state" }
    private func path(ofManifest sequence: UInt64) -> String { "\(directory)/MANIFEST-\(sequence)" }

    /// The checkpoint a file belongs to (`MANIFEST-<n>`, `run-<n>.state`).
    static func number(ofFile name: String) -> UInt64? {
        if name.hasPrefix("MANIFEST-") { return UInt64(name.dropFirst("MANIFEST-".count)) }
        if name.hasPrefix("run-"), name.hasSuffix(".state") { return UInt64(name.dropFirst(4).dropLast(6)) }
        return nil
    }
}
