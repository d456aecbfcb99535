import SluiceCore
import SluiceLakehouse
import Testing

/// Expected values come from the Iceberg spec: Appendix B's hash test values and the
/// "Truncate Transform Details" examples; bucket counts as pyiceberg's tests compute them.
@Suite struct IcebergTransformTests {
    @Test func murmur3MatchesAppendixB() throws {
        #expect(IcebergTransform.hashLong(34) == 2017239379)
        #expect(try IcebergTransform.bucketHash(.int32(34), type: .int) == 2017239379)
        #expect(try IcebergTransform.bucketHash(.int64(34), type: .long) == 2017239379)
        #expect(try IcebergTransform.bucketHash(.decimal(Decimal(mantissa: 1420, scale: 2)), type: .decimal(precision: 9, scale: 2)) == -500754589)
        #expect(try IcebergTransform.bucketHash(.date(17486), type: .date) == -653330422)
        #expect(try IcebergTransform.bucketHash(.time(81_068_000_000), type: .time) == -662762989)
        #expect(try IcebergTransform.bucketHash(.timestamp(1_510_871_468_000_000), type: .timestamp) == -2047944441)
        // 2017-11-16T14:31:08-08:00 is the same instant.
        #expect(try IcebergTransform.bucketHash(.timestamptz(1_510_871_468_000_000), type: .timestamptz) == -2047944441)
        #expect(try IcebergTransform.bucketHash(.string("iceberg"), type: .string) == 1210000089)
        #expect(try IcebergTransform.bucketHash(.string("f79c3e09-677c-4bbd-a479-3f349cb785e7"), type: .uuid) == 1488055340)
        #expect(try IcebergTransform.bucketHash(.bytea([0, 1, 2, 3]), type: .binary) == -188683207)
        #expect(try IcebergTransform.bucketHash(.bytea([0, 1, 2, 3]), type: .fixed(4)) == -188683207)
        #expect(Murmur3.hash32([UInt8]()) == 0)
    }

    @Test func bucketsValues() throws {
        #expect(try IcebergTransform.bucket(16).apply(to: .int32(34), sourceType: .int) == .int32(3))
        #expect(try IcebergTransform.bucket(16).apply(to: .string("iceberg"), sourceType: .string) == .int32(9))
        #expect(try IcebergTransform.bucket(100).apply(to: .int64(34), sourceType: .long) == .int32(79))
        #expect(try IcebergTransform.bucket(16).apply(to: .null, sourceType: .long) == .null)
        // A smallint column maps to int and hashes like its int value.
        #expect(try IcebergTransform.bucket(100).apply(to: .int16(34), sourceType: .int) == .int32(79))
        // A decimal stored at a smaller scale is rescaled to the column's scale first.
        #expect(try IcebergTransform.bucketHash(.decimal(Decimal(mantissa: 142, scale: 1)), type: .decimal(precision: 9, scale: 2)) == -500754589)
    }

    @Test func truncatesAsTheSpecExamplesShow() throws {
        #expect(try IcebergTransform.truncate(10).apply(to: .int32(1), sourceType: .int) == .int32(0))
        #expect(try IcebergTransform.truncate(10).apply(to: .int32(-1), sourceType: .int) == .int32(-10))
        #expect(try IcebergTransform.truncate(10).apply(to: .int64(-1), sourceType: .long) == .int64(-10))
        #expect(try IcebergTransform.truncate(50).apply(to: .decimal(Decimal(mantissa: 1065, scale: 2)), sourceType: .decimal(precision: 9, scale: 2))
            == .decimal(Decimal(mantissa: 1050, scale: 2)))
        #expect(try IcebergTransform.truncate(3).apply(to: .string("iceberg"), sourceType: .string) == .string("ice"))
        #expect(try IcebergTransform.truncate(2).apply(to: .string("éa😀"), sourceType: .string) == .string("éa"))
        #expect(try IcebergTransform.truncate(3).apply(to: .bytea([1, 2, 3, 4, 5]), sourceType: .binary) == .bytea([1, 2, 3]))
        #expect(throws: SluiceError.self) { try IcebergTransform.truncate(10).apply(to: .int64(.min), sourceType: .long) }
    }

    @Test func temporalTransforms() throws {
        let micros: Int64 = 1_510_871_468_000_000  // 2017-11-16T22:31:08
        #expect(try IcebergTransform.year.apply(to: .timestamp(micros), sourceType: .timestamp) == .int32(47))
        #expect(try IcebergTransform.month.apply(to: .timestamptz(micros), sourceType: .timestamptz) == .int32(574))
        #expect(try IcebergTransform.day.apply(to: .timestamp(micros), sourceType: .timestamp) == .date(17486))
        #expect(try IcebergTransform.hour.apply(to: .timestamp(micros), sourceType: .timestamp) == .int32(419686))
        #expect(try IcebergTransform.day.apply(to: .date(17486), sourceType: .date) == .date(17486))
        #expect(try IcebergTransform.month.apply(to: .date(17486), sourceType: .date) == .int32(574))
        // Before the epoch: floor, not truncation toward zero.
        #expect(try IcebergTransform.day.apply(to: .timestamp(-1), sourceType: .timestamp) == .date(-1))
        #expect(try IcebergTransform.hour.apply(to: .timestamp(-1), sourceType: .timestamp) == .int32(-1))
        #expect(try IcebergTransform.year.apply(to: .timestamp(-1), sourceType: .timestamp) == .int32(-1))
        #expect(try IcebergTransform.month.apply(to: .date(-1), sourceType: .date) == .int32(-1))
        #expect(throws: SluiceError.self) { try IcebergTransform.hour.apply(to: .date(1), sourceType: .date) }
    }

    @Test func resultTypesAndText() throws {
        #expect(try IcebergTransform.bucket(4).resultType(for: .string) == .int)
        #expect(try IcebergTransform.day.resultType(for: .timestamptz) == .date)
        #expect(try IcebergTransform.truncate(4).resultType(for: .decimal(precision: 10, scale: 2)) == .decimal(precision: 10, scale: 2))
        #expect(try IcebergTransform.identity.resultType(for: .uuid) == .uuid)
        #expect(throws: SluiceError.self) { try IcebergTransform.year.resultType(for: .long) }
        #expect(throws: SluiceError.self) { try IcebergTransform.bucket(4).resultType(for: .double) }
        for text in ["identity", "bucket[16]", "truncate[4]", "year", "month", "day", "hour", "void"] {
            #expect(IcebergTransform(text).description == text)
        }
        #expect(IcebergTransform("zorder") == .unknown("zorder"))
        #expect(IcebergTransform("bucket[0]") == .unknown("bucket[0]"))
        #expect(try IcebergTransform.void.apply(to: .int32(3), sourceType: .int) == .null)
    }
}

@Suite struct IcebergSchemaMappingTests {
    /// Field ids as pyiceberg's `assign_fresh_schema_ids` assigns them: a struct's fields first,
    /// then each field's nested ids.
    @Test func assignsFreshIdsLikeJava() throws {
        let schema = try IcebergSchema(columns: [
            StructField(name: "id", type: .int64),
            StructField(name: "name", type: .varchar),
            StructField(name: "tags", type: .list(.varchar)),
            StructField(name: "s", type: .structure([StructField(name: "a", type: .decimal(precision: 10, scale: 2)), StructField(name: "b", type: .bytea)])),
            StructField(name: "at", type: .timestamptz),
        ], identifierColumns: ["id"])
        #expect(schema.fields.map(\.id) == [1, 2, 3, 4, 5])
        #expect(schema.fields[2].type == .list(IcebergListType(elementID: 6, element: .string, isElementRequired: false)))
        #expect(schema.fields[3].type == .structure(IcebergStructType(fields: [
            IcebergNestedField(id: 7, name: "a", isRequired: false, type: .decimal(precision: 10, scale: 2)),
            IcebergNestedField(id: 8, name: "b", isRequired: false, type: .binary),
        ])))
        #expect(schema.identifierFieldIDs == [1])
        #expect(schema.fields[0].isRequired && !schema.fields[1].isRequired)
        #expect(schema.highestFieldID == 8)
    }

    @Test func mapsTypesBothWays() throws {
        var nextID = 1
        #expect(try IcebergType(.int16, nextID: &nextID) == .int)
        #expect(try IcebergType(.jsonb, nextID: &nextID) == .string)
        #expect(try IcebergType(.numeric, nextID: &nextID) == .decimal(precision: 28, scale: 10))
        #expect(try IcebergType(.decimal(precision: 12, scale: nil), nextID: &nextID) == .decimal(precision: 12, scale: 0))
        #expect(try IcebergType(.timestamp, nextID: &nextID) == .timestamp)
        #expect(try IcebergType(.timestamptz, nextID: &nextID) == .timestamptz)
        #expect(try IcebergType(.bytea, nextID: &nextID) == .binary)
        do {
            _ = try IcebergType(.interval, nextID: &nextID)
            Issue.record("interval mapped")
        } catch {
            #expect(error.code == .featureNotSupported)
        }
        let columns = [StructField(name: "a", type: .list(.structure([StructField(name: "x", type: .float32)]))), StructField(name: "d", type: .date)]
        #expect(try IcebergSchema(columns: columns).columns() == columns)
        #expect(try IcebergType.uuid.sluiceType() == .varchar)
        #expect(throws: SluiceError.self) { try IcebergType.map(IcebergMapType(keyID: 1, key: .string, valueID: 2, value: .int, isValueRequired: false)).sluiceType() }
    }
}
