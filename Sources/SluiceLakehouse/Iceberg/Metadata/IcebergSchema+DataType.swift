import SluiceCore

// Mapping between Sluice's SQL types and Iceberg types, as RisingWave's Iceberg sink maps them:
//
// | Sluice | Iceberg |
// |---|---|
// | boolean | boolean |
// | smallint, integer | int |
// | bigint | long |
// | real / double precision | float / double |
// | numeric(p,s) / numeric(p) | decimal(p,s) / decimal(p,0) |
// | numeric (unconstrained) | decimal(28,10) — RisingWave's `ICEBERG_DECIMAL_PRECISION/SCALE` |
// | varchar, jsonb | string (jsonb as its text) |
// | bytea | binary |
// | date, time, timestamp, timestamptz | date, time, timestamp, timestamptz (microseconds) |
// | struct<…> / T[] | struct / list (elements optional) |
// | interval | error 0A000 (Iceberg has no interval type) |
//
// Back: uuid → varchar, fixed and binary → bytea, map → error 0A000 (Sluice has no map type).

extension IcebergSchema {
    /// A new schema for `columns`, with fresh field ids assigned as Java's `TypeUtil.assignFreshIds`
    /// does: every field of a struct first (1, 2, …), then each field's nested ids in order.
    ///
    /// Columns are optional except those in `identifierColumns` (the sink's primary key), which
    /// Iceberg requires to be `required`; their ids become `identifier-field-ids`.
    /// - Throws: `0A000` for a type Iceberg cannot store (interval), `42703` for an identifier
    ///   column that is not among `columns`.
    package init(columns: [StructField], identifierColumns: [String] = [], schemaID: Int = 0) throws(SluiceError) {
        var nextID = 1
        let required = Set(identifierColumns)
        let fields = try IcebergType.freshFields(columns, required: required, nextID: &nextID)
        var identifierIDs: [Int] = []
        for name in identifierColumns {
            guard let field = fields.first(where: { $0.name == name }) else {
                throw SluiceError(.undefinedColumn, "identifier column \"\(name)\" does not exist")
            }
            identifierIDs.append(field.id)
        }
        self.init(schemaID: schemaID, identifierFieldIDs: identifierIDs, fields: fields)
    }

    /// The schema's columns as Sluice types.
    /// - Throws: `0A000` for an Iceberg type Sluice cannot represent (map).
    package func columns() throws(SluiceError) -> [StructField] {
        var result: [StructField] = []
        for field in fields { result.append(StructField(name: field.name, type: try field.type.sluiceType())) }
        return result
    }
}

extension IcebergType {
    /// Unconstrained `numeric` maps to this, as in RisingWave.
    package static let unconstrainedDecimal = IcebergType.decimal(precision: 28, scale: 10)

    /// The Iceberg type of a Sluice type, assigning nested field ids from `nextID`.
    package init(_ type: DataType, nextID: inout Int) throws(SluiceError) {
        switch type {
        case .boolean: self = .boolean
        case .int16, .int32: self = .int
        case .int64: self = .long
        case .float32: self = .float
        case .float64: self = .double
        case .decimal(let precision?, let scale):
            guard (1 ... 38).contains(precision), (0 ... precision).contains(scale ?? 0) else {
                throw SluiceError(.featureNotSupported, "numeric(\(precision),\(scale ?? 0)) cannot be stored in Iceberg",
                                  hint: "Iceberg decimals have a precision of 1 to 38 and a scale between 0 and the precision.")
            }
            self = .decimal(precision: precision, scale: scale ?? 0)
        case .decimal(nil, _): self = IcebergType.unconstrainedDecimal
        case .varchar, .jsonb: self = .string
        case .bytea: self = .binary
        case .date: self = .date
        case .time: self = .time
        case .timestamp: self = .timestamp
        case .timestamptz: self = .timestamptz
        case .structure(let fields):
            self = .structure(IcebergStructType(fields: try IcebergType.freshFields(fields, required: [], nextID: &nextID)))
        case .list(let element):
            let elementID = nextID
            nextID += 1
            self = .list(IcebergListType(elementID: elementID, element: try IcebergType(element, nextID: &nextID), isElementRequired: false))
        case .interval:
            throw SluiceError(.featureNotSupported, "type interval cannot be stored in Iceberg",
                              hint: "Cast the column to varchar or extract its parts into numeric columns.")
        case .unknown:
            throw SluiceError(.featureNotSupported, "a column of unknown type cannot be stored in Iceberg")
        }
    }

    /// Assigns ids to every field of the struct, then to the nested fields of each in order.
    static func freshFields(_ columns: [StructField], required: Set<String>, nextID: inout Int) throws(SluiceError) -> [IcebergNestedField] {
        let firstID = nextID
        nextID += columns.count
        var result: [IcebergNestedField] = []
        for (position, column) in columns.enumerated() {
            let type = try IcebergType(column.type, nextID: &nextID)
            result.append(IcebergNestedField(id: firstID + position, name: column.name, isRequired: required.contains(column.name), type: type))
        }
        return result
    }

    /// The Sluice type that holds this Iceberg type's values.
    package func sluiceType() throws(SluiceError) -> DataType {
        switch self {
        case .boolean: return .boolean
        case .int: return .int32
        case .long: return .int64
        case .float: return .float32
        case .double: return .float64
        case .decimal(let precision, let scale): return .decimal(precision: precision, scale: scale)
        case .date: return .date
        case .time: return .time
        case .timestamp: return .timestamp
        case .timestamptz: return .timestamptz
        case .string, .uuid: return .varchar
        case .fixed, .binary: return .bytea
        case .structure(let structure):
            var fields: [StructField] = []
            for field in structure.fields { fields.append(StructField(name: field.name, type: try field.type.sluiceType())) }
            return .structure(fields)
        case .list(let list): return .list(try list.element.sluiceType())
        case .map: throw SluiceError(.featureNotSupported, "Iceberg map columns are not supported")
        }
    }
}
