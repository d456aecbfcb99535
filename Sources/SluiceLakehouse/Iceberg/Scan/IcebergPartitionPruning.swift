import SluiceCore
import SluiceFormats

// Iceberg spec: "Scan Planning". A predicate on source columns is turned into an inclusive
// projection on partition values: a condition every partition value of a matching row meets.
// Then manifests are pruned by their partition field summaries and files by their partition
// tuples.

/// The terms of a predicate projected onto one partition spec's fields.
struct IcebergPartitionFilter {
    /// Per projected term: the index of the partition field and the term on its values.
    private(set) var terms: [(fieldIndex: Int, term: IcebergScanTerm)] = []
    /// The partition fields' result types, in spec order.
    let resultTypes: [IcebergType?]

    init(spec: IcebergPartitionSpec, schema: IcebergSchema, predicate: IcebergScanPredicate) {
        var resultTypes: [IcebergType?] = []
        for field in spec.fields {
            let source = schema.field(id: field.sourceID)
            resultTypes.append(source.flatMap { try? field.transform.resultType(for: $0.type) })
        }
        self.resultTypes = resultTypes
        for term in predicate.terms {
            for (index, field) in spec.fields.enumerated() where field.sourceID == term.fieldID {
                guard let source = schema.field(id: field.sourceID), resultTypes[index] != nil,
                      let projected = IcebergPartitionFilter.project(term, through: field.transform, sourceType: source.type) else { continue }
                terms.append((index, projected))
            }
        }
    }

    var isEmpty: Bool { terms.isEmpty }

    /// Whether a manifest whose field summaries are `summaries` may list a matching file.
    func mayMatch(summaries: [IcebergFieldSummary]?) -> Bool {
        guard let summaries else { return true }
        for (index, term) in terms where index < summaries.count {
            guard let type = resultTypes[index].flatMap({ try? $0.sluiceType() }) else { continue }
            let summary = summaries[index]
            let lower = summary.lowerBound.flatMap { IcebergSingleValue.decode($0, as: type) }
            let upper = summary.upperBound.flatMap { IcebergSingleValue.decode($0, as: type) }
            var evidence = IcebergColumnEvidence(lower: lower, upper: upper, hasNulls: summary.containsNull, hasNaN: summary.containsNaN)
            if lower != nil || upper != nil {
                evidence.hasNonNulls = true
            } else if summary.containsNull, summary.containsNaN == false, summary.lowerBound == nil, summary.upperBound == nil {
                // Java's ManifestEvaluator: nulls and no bounds mean every value is null.
                evidence.hasNonNulls = false
            }
            if !evidence.mayMatch(term) { return false }
        }
        return true
    }

    /// Whether a data file with partition tuple `partition` may hold a matching row;
    /// `positions` maps spec field indices to tuple positions (nil: the tuple lacks the field).
    func mayMatch(partition: [AvroValue], positions: [Int?]) -> Bool {
        for (index, term) in terms {
            guard index < positions.count, let position = positions[index], position < partition.count,
                  let type = resultTypes[index],
                  let value = IcebergPartitionFilter.value(partition[position], as: type) else { continue }
            if !IcebergColumnEvidence(single: value).mayMatch(term) { return false }
        }
        return true
    }

    /// The inclusive projection of `term` through `transform`, or nil when it implies nothing
    /// about the partition value.
    static func project(_ term: IcebergScanTerm, through transform: IcebergTransform, sourceType: IcebergType) -> IcebergScanTerm? {
        let fieldID = term.fieldID
        switch transform {
        case .void, .unknown:
            return nil
        case .identity, .bucket, .truncate, .year, .month, .day, .hour:
            break
        }
        // Every transform but void maps null to null and other values to non-null values.
        switch term {
        case .isNull, .isNotNull:
            return term
        case .compare(_, let comparison, let literal):
            guard let image = image(of: literal, transform, sourceType) else { return nil }
            if case .identity = transform { return .compare(fieldID: fieldID, comparison, image) }
            if case .bucket = transform {
                return comparison == .equal ? .compare(fieldID: fieldID, .equal, image) : nil
            }
            // truncate, year, month, day and hour never decrease: x <= v implies t(x) <= t(v).
            // Over integers (and microseconds, days, unscaled decimals) x < v is x <= v - 1,
            // which projects tighter: ts < midnight excludes that day (Java's projection too).
            switch comparison {
            case .equal:
                return .compare(fieldID: fieldID, .equal, image)
            case .lessThanOrEqual:
                return .compare(fieldID: fieldID, .lessThanOrEqual, image)
            case .greaterThanOrEqual:
                return .compare(fieldID: fieldID, .greaterThanOrEqual, image)
            case .lessThan:
                let bound = IcebergLiteral.coerce(literal, to: sourceType).flatMap { IcebergLiteral.adjacent($0, by: -1) }
                return .compare(fieldID: fieldID, .lessThanOrEqual, bound.flatMap { IcebergPartitionFilter.image(of: $0, transform, sourceType) } ?? image)
            case .greaterThan:
                let bound = IcebergLiteral.coerce(literal, to: sourceType).flatMap { IcebergLiteral.adjacent($0, by: 1) }
                return .compare(fieldID: fieldID, .greaterThanOrEqual, bound.flatMap { IcebergPartitionFilter.image(of: $0, transform, sourceType) } ?? image)
            }
        case .isIn(_, let literals):
            var images: [Value] = []
            for literal in literals where !literal.isNull {
                guard let image = image(of: literal, transform, sourceType) else { return nil }
                images.append(image)
            }
            return images.isEmpty ? nil : .isIn(fieldID: fieldID, images)
        }
    }

    /// The transform of a literal, after converting it exactly to the source column's type.
    private static func image(of literal: Value, _ transform: IcebergTransform, _ sourceType: IcebergType) -> Value? {
        guard let value = IcebergLiteral.coerce(literal, to: sourceType) else { return nil }
        if case .identity = transform { return value }
        return try? transform.apply(to: value, sourceType: sourceType)
    }

    /// A partition value read from a manifest as a value of the field's result type (a uuid as
    /// its 16 bytes); nil when it does not fit (then it is not used).
    static func value(_ value: AvroValue, as type: IcebergType) -> Value? {
        switch (type, value) {
        case (_, .null): return .null
        case (.boolean, .boolean(let flag)): return .bool(flag)
        case (.int, .int(let integer)): return .int32(integer)
        case (.long, .long(let integer)): return .int64(integer)
        case (.long, .int(let integer)): return .int64(Int64(integer))
        case (.float, .float(let number)): return .float32(number)
        case (.double, .double(let number)): return .float64(number)
        case (.double, .float(let number)): return .float64(Double(number))
        case (.date, .int(let days)): return .date(days)
        case (.time, .long(let micros)): return .time(micros)
        case (.timestamp, .long(let micros)): return .timestamp(micros)
        case (.timestamptz, .long(let micros)): return .timestamptz(micros)
        case (.string, .string(let text)): return .string(text)
        case (.binary, .bytes(let bytes)), (.binary, .fixed(let bytes)), (.fixed, .bytes(let bytes)), (.fixed, .fixed(let bytes)),
             (.uuid, .fixed(let bytes)), (.uuid, .bytes(let bytes)):
            return .bytea(bytes)
        case (.decimal(let precision, let scale), .bytes(let bytes)), (.decimal(let precision, let scale), .fixed(let bytes)):
            return IcebergSingleValue.decode(bytes, as: .decimal(precision: precision, scale: scale))
        default:
            return nil
        }
    }
}

/// Converting a caller's literal to a column's values.
enum IcebergLiteral {
    /// `literal` as a value of an Iceberg column of `type`, in the form transforms take, when
    /// the conversion is exact; nil otherwise (a fraction for an integer column, a uuid).
    static func coerce(_ literal: Value, to type: IcebergType) -> Value? {
        switch (type, literal) {
        case (.boolean, .bool): return literal
        case (.int, .int16(let integer)): return .int32(Int32(integer))
        case (.int, .int32): return literal
        case (.int, .int64(let integer)): return Int32(exactly: integer).map { .int32($0) }
        case (.long, .int16(let integer)): return .int64(Int64(integer))
        case (.long, .int32(let integer)): return .int64(Int64(integer))
        case (.long, .int64): return literal
        case (.float, .float32), (.double, .float64): return literal
        case (.double, .float32(let number)): return .float64(Double(number))
        case (.decimal(_, let scale), .decimal(let decimal)):
            guard decimal.isFinite, let rescaled = try? decimal.rescaled(to: scale), rescaled == decimal else { return nil }
            return .decimal(rescaled)
        case (.decimal(_, let scale), .int16), (.decimal(_, let scale), .int32), (.decimal(_, let scale), .int64):
            guard let integer = literal.integerValue, let rescaled = try? Decimal(integer).rescaled(to: scale) else { return nil }
            return .decimal(rescaled)
        case (.date, .date): return literal
        case (.time, .time): return literal
        case (.timestamp, .timestamp), (.timestamptz, .timestamptz): return literal
        case (.timestamp, .timestamptz(let micros)): return .timestamp(micros)
        case (.timestamptz, .timestamp(let micros)): return .timestamptz(micros)
        case (.timestamp, .date(let days)), (.timestamptz, .date(let days)):
            let (micros, overflow) = Int64(days).multipliedReportingOverflow(by: TemporalUnits.microsecondsPerDay)
            guard !overflow else { return nil }
            if case .timestamp = type { return .timestamp(micros) }
            return .timestamptz(micros)
        case (.string, .string): return literal
        case (.binary, .bytea), (.fixed, .bytea): return literal
        default: return nil
        }
    }

    /// The value next to `value` (`step` is 1 or -1) in a discrete domain: integers, days,
    /// microseconds, decimals in units of their scale; nil for other values and at the ends.
    static func adjacent(_ value: Value, by step: Int64) -> Value? {
        switch value {
        case .int32(let integer):
            let (result, overflow) = integer.addingReportingOverflow(Int32(step))
            return overflow ? nil : .int32(result)
        case .date(let days):
            let (result, overflow) = days.addingReportingOverflow(Int32(step))
            return overflow ? nil : .date(result)
        case .int64(let integer), .time(let integer), .timestamp(let integer), .timestamptz(let integer):
            let (result, overflow) = integer.addingReportingOverflow(step)
            guard !overflow else { return nil }
            switch value {
            case .time: return .time(result)
            case .timestamp: return .timestamp(result)
            case .timestamptz: return .timestamptz(result)
            default: return .int64(result)
            }
        case .decimal(let decimal):
            guard decimal.isFinite else { return nil }
            let mantissa = decimal.mantissa + Int128(step)
            guard mantissa.magnitude <= Decimal.maximumMantissa.magnitude else { return nil }
            return .decimal(Decimal(mantissa: mantissa, scale: decimal.scale))
        default:
            return nil
        }
    }
}
