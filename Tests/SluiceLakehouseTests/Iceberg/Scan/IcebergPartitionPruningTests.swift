import SluiceCore
import SluiceFormats
import Testing
@testable import SluiceLakehouse

@Suite struct IcebergPartitionPruningTests {
    static let schema = IcebergSchema(fields: [
        IcebergNestedField(id: 1, name: "id", isRequired: false, type: .long),
        IcebergNestedField(id: 2, name: "ts", isRequired: false, type: .timestamp),
        IcebergNestedField(id: 3, name: "region", isRequired: false, type: .string),
    ])
    static let spec = IcebergPartitionSpec(fields: [
        IcebergPartitionField(sourceID: 2, fieldID: 1000, name: "ts_day", transform: .day),
        IcebergPartitionField(sourceID: 3, fieldID: 1001, name: "region", transform: .identity),
        IcebergPartitionField(sourceID: 1, fieldID: 1002, name: "id_bucket", transform: .bucket(4)),
    ])
    /// 2024-01-01 is day 19723 since the epoch.
    static let january1 = Int64(19723) * TemporalUnits.microsecondsPerDay
    static let hour = TemporalUnits.microsecondsPerHour

    /// One single-row file per (id, ts, region), without column metrics, partitioned as `spec`.
    static func table() throws -> (IcebergScanTestTable, [IcebergDataFile]) {
        let table = IcebergScanTestTable("partitions", schema: schema, spec: spec)
        let columns = schema.fields.map { ParquetColumnSchema(name: $0.name, type: try! $0.type.sluiceType(), fieldID: Int32($0.id)) }
        var files: [IcebergDataFile] = []
        for (id, ts, region) in [(Int64(1), january1 + 10 * hour, "eu"), (2, january1 + 35 * hour, "eu"), (3, january1 + 12 * hour, "us"), (4, january1 + 48 * hour, "us")] {
            let bucket = try IcebergTransform.bucket(4).apply(to: .int64(id), sourceType: .long)
            guard case .int32(let bucketValue) = bucket else { throw SluiceError.internalError("bucket") }
            files.append(try table.writeFile(columns, rowGroups: [Chunk(columns: [
                Column(type: .int64, values: [.int64(id)]), Column(type: .timestamp, values: [.timestamp(ts)]),
                Column(type: .varchar, values: [.string(region)]),
            ])], partition: [.int(Int32(ts / TemporalUnits.microsecondsPerDay)), .string(region), .int(bucketValue)], metrics: false))
        }
        try table.commit(data: Array(files[0 ... 1]))
        try table.commit(data: Array(files[2 ... 3]))
        return (table, files)
    }

    @Test func manifestsAndFilesAreSkippedByPartitionValues() throws {
        let (table, _) = try Self.table()
        func counters(_ terms: [IcebergScanTerm]) throws -> IcebergScanCounters {
            try table.scan.plan(fields: [1], predicate: IcebergScanPredicate(terms)).counters
        }
        // The "us" manifest's region summary is us..us: skipped whole.
        let region = try counters([.compare(fieldID: 3, .equal, .string("eu"))])
        #expect(region.dataManifests == 2 && region.dataManifestsPruned == 1 && region.dataFiles == 2 && region.dataFilesPruned == 0)
        // Days 19723, 19724 (eu) and 19723, 19725 (us): ts >= 2024-01-02 keeps day 19724 and 19725.
        let day = try counters([.compare(fieldID: 2, .greaterThanOrEqual, .timestamp(Self.january1 + 24 * Self.hour))])
        #expect(day.dataManifestsPruned == 0 && day.dataFilesPrunedByPartition == 2)
        // Before 2024-01-01: both manifests' day summaries start at 19723.
        let before = try counters([.compare(fieldID: 2, .lessThan, .timestamp(Self.january1))])
        #expect(before.dataManifestsPruned == 2 && before.dataFiles == 0)
        // A date literal is midnight.
        let date = try counters([.compare(fieldID: 2, .lessThan, .date(19724))])
        #expect(date.dataFilesPrunedByPartition == 2)
        // Buckets: ids whose bucket differs from id 3's are skipped; ranges on a bucket prune nothing.
        let buckets = try (1 ... 4).map { try IcebergTransform.bucket(4).apply(to: .int64($0), sourceType: .long) }
        // (Files of a manifest whose bucket summary excludes id 3's bucket are not even listed.)
        let byBucket = try table.scan.plan(fields: [1], predicate: IcebergScanPredicate([.compare(fieldID: 1, .equal, .int64(3))]))
        #expect(byBucket.tasks.count == buckets.filter { $0 == buckets[2] }.count)
        #expect(byBucket.counters.dataFilesPruned + byBucket.counters.dataManifestsPruned * 2 == 4 - byBucket.tasks.count)
        #expect(try counters([.compare(fieldID: 1, .greaterThan, .int64(3))]).dataFilesPruned == 0)
        #expect(try counters([.isNull(fieldID: 3)]).dataManifestsPruned == 2)
        // Every row is still read for each predicate that could match it.
        let rows = try table.scan.rows(fields: [1], predicate: IcebergScanPredicate([.compare(fieldID: 2, .greaterThanOrEqual, .timestamp(Self.january1 + 24 * Self.hour))]))
        #expect(Set(rows.map { $0[0] }) == [.int64(2), .int64(4)])
    }

    /// Soundness of the inclusive projections: for random values x and random terms, a file
    /// whose partition value is t(x) is never skipped when x satisfies the term.
    @Test(arguments: [
        (IcebergTransform.identity, IcebergType.long), (.bucket(7), .long), (.truncate(10), .long), (.truncate(10), .int),
        (.truncate(2), .string), (.year, .timestamp), (.month, .timestamp), (.day, .timestamp), (.hour, .timestamp),
        (.year, .date), (.month, .date), (.day, .date), (.identity, .string), (.bucket(5), .string),
        (.truncate(100), .decimal(precision: 10, scale: 2)),
    ])
    func projectionsNeverSkipAMatchingValue(transform: IcebergTransform, sourceType: IcebergType) throws {
        let schema = IcebergSchema(fields: [IcebergNestedField(id: 1, name: "x", isRequired: false, type: sourceType)])
        let spec = IcebergPartitionSpec(fields: [IcebergPartitionField(sourceID: 1, fieldID: 1000, name: "p", transform: transform)])
        var random = SplitMix64(seed: 0x5EED ^ UInt64(transform.description.utf8.count))
        var pruned = 0
        for _ in 0 ..< 400 {
            let value = Self.randomValue(sourceType, &random)
            let literal = Self.randomValue(sourceType, &random)
            let term: IcebergScanTerm
            switch random.next(below: 8) {
            case 0: term = .compare(fieldID: 1, .equal, random.next(below: 3) == 0 ? value : literal)
            case 1: term = .compare(fieldID: 1, .lessThan, literal)
            case 2: term = .compare(fieldID: 1, .lessThanOrEqual, literal)
            case 3: term = .compare(fieldID: 1, .greaterThan, literal)
            case 4: term = .compare(fieldID: 1, .greaterThanOrEqual, literal)
            case 5: term = .isIn(fieldID: 1, [literal, Self.randomValue(sourceType, &random)])
            case 6: term = .isNull(fieldID: 1)
            default: term = .isNotNull(fieldID: 1)
            }
            let filter = IcebergPartitionFilter(spec: spec, schema: schema, predicate: IcebergScanPredicate([term]))
            let partition = try transform.apply(to: value, sourceType: sourceType)
            let mayMatch = filter.mayMatch(partition: [Self.avro(partition)], positions: [0])
            if Self.satisfies(value, term) {
                #expect(mayMatch, "\(transform) on \(value) skipped for \(term)")
            }
            if !mayMatch { pruned += 1 }
        }
        #expect(pruned > 0, "\(transform) never pruned")
    }

    static func randomValue(_ type: IcebergType, _ random: inout SplitMix64) -> Value {
        let small = Int64(random.next(below: 2000)) - 1000
        switch type {
        case .long: return .int64(small)
        case .int: return .int32(Int32(small))
        case .string: return .string(String((0 ..< random.next(below: 4)).map { _ in Character(Unicode.Scalar(UInt8(97 + random.next(below: 3)))) }))
        case .timestamp: return .timestamp(small * 7 * TemporalUnits.microsecondsPerHour + Int64(random.next(below: 3600)))
        case .date: return .date(Int32(small * 9))
        case .decimal(_, let scale): return .decimal(Decimal(mantissa: Int128(small * 37), scale: Int16(scale)))
        default: return .null
        }
    }

    static func satisfies(_ value: Value, _ term: IcebergScanTerm) -> Bool {
        switch term {
        case .isNull: return value.isNull
        case .isNotNull: return !value.isNull
        case .compare(_, let comparison, let literal):
            guard let order = IcebergValueOrder.compare(value, literal) else { return false }
            switch comparison {
            case .equal: return order == 0
            case .lessThan: return order < 0
            case .lessThanOrEqual: return order <= 0
            case .greaterThan: return order > 0
            case .greaterThanOrEqual: return order >= 0
            }
        case .isIn(_, let literals):
            return literals.contains { IcebergValueOrder.compare(value, $0) == 0 }
        }
    }

    static func avro(_ value: Value) -> AvroValue {
        switch value {
        case .int32(let integer), .date(let integer): .int(integer)
        case .int64(let integer), .timestamp(let integer): .long(integer)
        case .string(let text): .string(text)
        case .decimal(let decimal): .bytes(IcebergSingleValue.encode(value, as: .decimal(precision: 10, scale: Int(decimal.scale))) ?? [])
        default: .null
        }
    }
}
