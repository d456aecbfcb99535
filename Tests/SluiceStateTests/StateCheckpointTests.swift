import Foundation
import SluiceCore
import Testing

@testable import SluiceState

/// The state store against a sorted-map model, through its files: a paged table changes at
/// random, and between epochs the sequence checkpoints it (a delta or a base, which compacts the
/// chain), restarts (the table is read back from the newest checkpoint on disk and the model
/// goes back to what that checkpoint held), or damages the newest checkpoint (recovery falls back
/// to the one before).
@Suite struct StateCheckpointTests {
    private static func temporaryDirectory() -> String {
        let path = NSTemporaryDirectory() + "sluice-state-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private typealias Model = [Int64: (value: String, count: Int)]

    private static func key(_ k: Int64) -> [UInt8] {
        [UInt8(k % 4), 0] + withUnsafeBytes(of: UInt64(bitPattern: k).bigEndian) { Array($0) }
    }

    private static func contents(_ table: PagedTable) -> [[UInt8]: (row: [Value], count: Int)] {
        Dictionary(uniqueKeysWithValues: table.entries().map { ($0.key, ($0.row, $0.count)) })
    }

    private static func expected(_ model: Model) -> [[UInt8]: (row: [Value], count: Int)] {
        Dictionary(uniqueKeysWithValues: model.map { (key($0.key), ([.int64($0.key), .string($0.value.value)], $0.value.count)) })
    }

    private static func same(_ a: [[UInt8]: (row: [Value], count: Int)], _ b: [[UInt8]: (row: [Value], count: Int)]) -> Bool {
        a.count == b.count && a.allSatisfy { entry in b[entry.key].map { $0.row == entry.value.row && $0.count == entry.value.count } ?? false }
    }

    /// Table 1 as restored: from its stored pages and the changes after them, or from its section.
    private static func table(_ restored: RestoredTables, memory: StateMemory?, lazyRestores: inout Int) throws -> PagedTable {
        var table: PagedTable
        if let steps = restored.paged[1] {
            lazyRestores += 1
            table = try PagedTable(restoring: steps, types: [.int64, .varchar], memory: memory)
        } else {
            table = restored.sections[1].map { PagedTable(restoring: $0, memory: memory) } ?? PagedTable(types: [.int64, .varchar], memory: memory)
        }
        #expect(table.isWellFormed)
        return table
    }

    private static func piece(_ image: FragmentCheckpoint.PagedImage, isBase: Bool) -> FragmentCheckpoint {
        FragmentCheckpoint(view: 9, isBase: isBase, sections: [], pagedTables: [image])
    }

    /// Seeds 4 and 5 run under a memory limit of a few kilobytes: pages are evicted at every
    /// commit, and bases write them from the spill file.
    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func aRandomHistoryOfCheckpointsRestartsAndCompactionsMatchesTheModel(seed: UInt64) throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var random = SplitMix64(seed: seed)
        var checkpoints = try StateCheckpoints(directory: directory)
        let memory = seed >= 4 ? StateMemory(limit: 8 << 10, spillDirectory: directory + "/spill") : nil
        let keySpace: Int64 = memory == nil ? 300 : 5000
        // Under the limit, restarts leave the table's pages in the run files until read.
        let lazily: FragmentCheckpoint.LazyTables = memory != nil || seed == 2 ? .only([1]) : .none
        var lazyRestores = 0
        var table = PagedTable(types: [.int64, .varchar], memory: memory)
        table.tracksChanges = true
        var model: Model = [:]
        /// The model as of each written checkpoint, by number.
        var saved: [UInt64: Model] = [:]
        var hasBase = false
        var restarts = 0
        var fallbacks = 0
        for epoch in 1 ... 150 {
            var ops: [ChangeOp] = []
            var keys: [Int64] = []
            var values: [String] = []
            for _ in 0 ..< Int.random(in: 0 ... 80, using: &random) {
                let k = Int64.random(in: 0 ..< keySpace, using: &random)
                if let present = model[k], Bool.random(using: &random) {
                    ops.append(.delete)
                    keys.append(k)
                    values.append(present.value)
                    model[k] = present.count > 1 ? (present.value, present.count - 1) : nil
                } else {
                    let value = "v\(k)-\(epoch)"
                    ops.append(.insert)
                    keys.append(k)
                    values.append(value)
                    model[k] = (value, (model[k]?.count ?? 0) + 1)
                }
            }
            let chunk = StreamChunk(ops: ops, data: Chunk(columns: [
                Column(type: .int64, storage: .int64(keys)), Column(type: .varchar, values: values.map(Value.string)),
            ]))
            table.stage(chunk) { bytes, row in bytes += Self.key(keys[row]) }
            table.commitEpoch()
            #expect(Self.same(Self.contents(table), Self.expected(model)), "epoch \(epoch)")

            switch Int.random(in: 0 ..< 10, using: &random) {
            case 0 ..< 6:
                // A checkpoint: a base when there is none yet, or now and then (compaction).
                let base = !hasBase || Int.random(in: 0 ..< 5, using: &random) == 0
                let written = try checkpoints.write(
                    epoch: UInt64(epoch), log: LogPosition(segment: 1, offset: Int64(epoch)), positions: [3: [0: Int64(epoch)]],
                    pieces: [Self.piece(table.checkpoint(table: 1, everything: base), isBase: base)])
                #expect(written.brokenChains.isEmpty)
                saved[written.manifest.sequence] = model
                hasBase = true
            case 6:
                // A restart from the newest checkpoint (or from nothing before the first).
                guard let newest = StateCheckpoints.recover(directory: directory, lazily: lazily).checkpoint else { continue }
                table = try Self.table(try FragmentCheckpoint.contents(of: try #require(newest.views[9])), memory: memory, lazyRestores: &lazyRestores)
                table.tracksChanges = true
                model = try #require(saved[newest.manifest.sequence])
                #expect(newest.manifest.positions == [3: [0: Int64(newest.manifest.epoch)]])
                #expect(Self.same(Self.contents(table), Self.expected(model)), "restart at epoch \(epoch)")
                checkpoints = try StateCheckpoints(directory: directory)
                checkpoints.resume(from: newest.manifest)
                restarts += 1
            case 7:
                // The newest manifest damaged: recovery takes the one before, which must still be whole.
                let manifests = StateCheckpoints.manifests(in: directory)
                guard manifests.count == 2 else { continue }
                let path = "\(directory)/MANIFEST-\(manifests[1])"
                var bytes = try Files.read(path)
                bytes[Int.random(in: 0 ..< bytes.count, using: &random)] ^= 0x41
                try Files.writeAtomically(bytes, to: path)
                let recovered = StateCheckpoints.recover(directory: directory, lazily: lazily)
                let older = try #require(recovered.checkpoint)
                #expect(older.manifest.sequence == manifests[0])
                #expect(recovered.damaged.count == 1 && recovered.damaged[0].contains(path))
                table = try Self.table(try FragmentCheckpoint.contents(of: try #require(older.views[9])), memory: memory, lazyRestores: &lazyRestores)
                table.tracksChanges = true
                model = try #require(saved[older.manifest.sequence])
                #expect(Self.same(Self.contents(table), Self.expected(model)), "fallback at epoch \(epoch)")
                Files.remove(path)
                checkpoints = try StateCheckpoints(directory: directory)
                checkpoints.resume(from: older.manifest)
                fallbacks += 1
            default:
                break
            }
        }
        #expect(restarts > 3 && fallbacks > 0)
        if let memory {
            #expect(memory.evictedPages > 0)
            #expect(lazyRestores > 0)
        }
        // After one more checkpoint, only what the two newest manifests need is left on disk
        // (files of a checkpoint passed over at a restart go with it).
        let last = table.checkpoint(table: 1, everything: false)
        _ = try checkpoints.write(
            epoch: 151, log: LogPosition(segment: 1, offset: 151), positions: [:],
            pieces: [Self.piece(last, isBase: false)])
        let files = try Files.list(directory)
        let manifests = StateCheckpoints.manifests(in: directory)
        #expect(manifests.count <= 2)
        var needed = Set<String>()
        for sequence in manifests {
            let checkpoint = try StateCheckpoints.read(directory: directory, sequence: sequence)
            for links in checkpoint.manifest.chains.values { for link in links { needed.insert("run-\(link.file).state") } }
        }
        #expect(Set(files.filter { $0.hasPrefix("run-") }) == needed)
    }

    /// Sections read back exactly, and fold oldest first: the newest put of a key wins unless a
    /// newer section removed it.
    /// Many overlapping sections merged at once equal a dictionary that applies them in order:
    /// the newest put of a key wins, a newer removal drops it (and is kept as a removal when
    /// folding deltas into one).
    @Test(arguments: [false, true]) func manySectionsMergeAsAppliedInOrder(keepingRemovals: Bool) throws {
        var random = SplitMix64(seed: keepingRemovals ? 11 : 12)
        let types: [DataType] = [.int64]
        for round in 0 ..< 40 {
            var sections: [StateSection] = []
            var model: [UInt64: (value: Int64, count: Int32)?] = [:]
            for index in 0 ..< 1 + Int(random.next() % 12) {
                var puts: [UInt64: (Int64, Int32)] = [:]
                var removals = Set<UInt64>()
                for _ in 0 ..< Int(random.next() % 30) {
                    let key = random.next() % 50
                    // The first section is a base (round by round, sometimes with removals too).
                    if random.next() % 4 == 0 && (index > 0 || round % 2 == 0) && puts[key] == nil {
                        removals.insert(key)
                    } else if !removals.contains(key) {
                        puts[key] = (Int64(random.next() % 1000), Int32(1 + random.next() % 3))
                    }
                }
                func bytes(_ key: UInt64) -> [UInt8] { withUnsafeBytes(of: key.bigEndian) { Array($0) } }
                var keys = KeyBuffer()
                var removed = KeyBuffer()
                let sortedPuts = puts.keys.sorted()
                for key in sortedPuts { keys.append(bytes(key)) }
                for key in removals.sorted() { removed.append(bytes(key)) }
                sections.append(StateSection(
                    table: 1, types: types, keys: keys, counts: sortedPuts.map { puts[$0]!.1 },
                    rows: Chunk(columns: [Column(type: .int64, values: sortedPuts.map { .int64(puts[$0]!.0) })]), removed: removed))
                for key in removals { model[key] = .some(nil) }
                for (key, put) in puts { model[key] = .some((put.0, put.1)) }
            }
            let merged = try #require(StateSection.merged(sections, keepingRemovals: keepingRemovals))
            var got: [UInt64: (Int64, Int32)] = [:]
            for index in 0 ..< merged.keys.count {
                let key = merged.keys.key(index).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                guard case .int64(let value) = merged.rows.row(index)[0] else { Issue.record("a merged row is not a bigint"); continue }
                got[key] = (value, merged.counts[index])
            }
            let expected = model.compactMapValues { $0 }
            #expect(got.count == expected.count)
            for (key, put) in expected { #expect(got[key]?.0 == put.value && got[key]?.1 == put.count) }
            let removedKeys = Set((0 ..< merged.removed.count).map { merged.removed.key($0).reduce(UInt64(0)) { $0 << 8 | UInt64($1) } })
            #expect(removedKeys == (keepingRemovals ? Set(model.filter { $0.value == nil }.keys) : []))
        }
    }

    @Test func sectionsRoundTripAndMerge() throws {
        var keys = KeyBuffer()
        for k in [1, 2, 3] as [UInt8] { keys.append([0, k]) }
        var removed = KeyBuffer()
        removed.append([0, 4])
        let types: [DataType] = [.int64, .structure([StructField(name: "a", type: .varchar)]), .decimal(precision: 10, scale: 2)]
        let rows = Chunk(columns: [
            Column(type: types[0], values: [.int64(1), .null, .int64(3)]),
            Column(type: types[1], values: [.structure([.string("x")]), .structure([.null]), .null]),
            Column(type: types[2], values: [.decimal(Decimal(mantissa: 150, scale: 2)), .null, .decimal(Decimal(mantissa: -1, scale: 2))]),
        ])
        let first = StateSection(table: 5, types: types, keys: keys, counts: [1, 2, 3], rows: rows, removed: removed)
        var bytes: [UInt8] = []
        first.encode(into: &bytes)
        var offset = 0
        let back = try bytes.withRawBytes { (raw: UnsafeRawBufferPointer) throws(SluiceError) in try StateSection.decode(raw, offset: &offset) }
        #expect(offset == bytes.count)
        #expect(back.types == types && back.counts == [1, 2, 3] && back.removed.key(0) == [0, 4])
        #expect((0 ..< 3).map { back.rows.row($0) } == (0 ..< 3).map { rows.row($0) })

        var newerKeys = KeyBuffer()
        newerKeys.append([0, 3])
        var newerRemoved = KeyBuffer()
        newerRemoved.append([0, 1])
        let newer = StateSection(
            table: 5, types: types, keys: newerKeys, counts: [7], rows: rows.gather([0]), removed: newerRemoved)
        let merged = try #require(StateSection.merged([back, newer]))
        #expect((0 ..< merged.keys.count).map(merged.keys.key) == [[0, 2], [0, 3]])
        #expect(merged.counts == [2, 7] && merged.removed.isEmpty)
        #expect(merged.rows.row(1) == rows.row(0))
    }

    /// Damaged section bytes are an error, never a crash.
    @Test func damagedSectionsAreErrors() throws {
        var keys = KeyBuffer()
        for k in 0 ..< 50 as Range<UInt8> { keys.append([0, k, k]) }
        let rows = Chunk(columns: [Column(type: .varchar, values: (0 ..< 50).map { .string("row \($0)") })])
        let bytes = FragmentCheckpoint(view: 1, isBase: true, sections: [
            StateSection(table: 1, types: [.varchar], keys: keys, counts: [Int32](repeating: 1, count: 50), rows: rows),
        ]).encoded()
        var random = SplitMix64(seed: 99)
        var rejected = 0
        for round in 0 ..< 2000 {
            var damaged = bytes
            if round % 3 == 0 {
                damaged = Array(damaged.prefix(Int.random(in: 0 ..< damaged.count, using: &random)))
            } else {
                for _ in 0 ... Int.random(in: 0 ..< 4, using: &random) {
                    damaged[Int.random(in: 0 ..< damaged.count, using: &random)] = UInt8.random(in: 0 ... 255, using: &random)
                }
            }
            let result = damaged.withUnsafeBytes { raw in Result { () throws(SluiceError) in try FragmentCheckpoint.decode(raw, view: 1) } }
            if case .failure = result { rejected += 1 }
        }
        #expect(rejected > 500)
    }
}
