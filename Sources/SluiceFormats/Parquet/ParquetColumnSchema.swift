import SluiceCore

/// One column of a Parquet file as Sluice sees it: a name, a ``DataType``, whether it may be
/// null, and the Iceberg field id Parquet keeps in `SchemaElement.field_id`, at every level.
///
/// Invariant: a `.structure` column has one child per struct field, in order, with the field's
/// name and type; a `.list` column has one child, its element (named `element`); other columns
/// have none. ``init(name:type:nullable:fieldID:)`` fills the children in from the type.
package struct ParquetColumnSchema: Hashable, Sendable {
    package var name: String
    package var type: DataType
    package var nullable: Bool
    package var fieldID: Int32?
    package var children: [ParquetColumnSchema]

    /// A column whose nested fields (if any) are nullable and have no field ids.
    package init(name: String, type: DataType, nullable: Bool = true, fieldID: Int32? = nil) {
        self.init(name: name, type: type, nullable: nullable, fieldID: fieldID, children: ParquetColumnSchema.defaultChildren(of: type))
    }

    /// A column with explicit children (struct fields, or one list element).
    package init(name: String, type: DataType, nullable: Bool, fieldID: Int32?, children: [ParquetColumnSchema]) {
        self.name = name
        self.type = type
        self.nullable = nullable
        self.fieldID = fieldID
        self.children = children
    }

    static func defaultChildren(of type: DataType) -> [ParquetColumnSchema] {
        switch type {
        case .structure(let fields): fields.map { ParquetColumnSchema(name: $0.name, type: $0.type) }
        case .list(let element): [ParquetColumnSchema(name: "element", type: element)]
        default: []
        }
    }
}

/// A column of the schema with the levels Parquet's record shredding gives it (the Dremel
/// encoding, parquet-format README "Nested encoding"): the same tree serves the writer, which
/// shreds columns into levels, and the reader, which assembles them back.
struct ParquetNode {
    enum Kind {
        /// A leaf column chunk: its index among the file's leaves.
        case leaf(Int)
        case structure([ParquetNode])
        /// A repeated field; the element is the child. `repetitionLevel` is the repeated
        /// level's, and `elementDefinitionLevel` the definition level at which an element exists.
        case list(element: [ParquetNode], repetitionLevel: Int, elementDefinitionLevel: Int)
    }

    var name: String
    var type: DataType
    var nullable: Bool
    var fieldID: Int32?
    var kind: Kind
    /// The definition level at which this node's value is present (not null).
    var definitionLevel: Int

    /// The schema the caller sees.
    var columnSchema: ParquetColumnSchema {
        let children: [ParquetColumnSchema]
        switch kind {
        case .leaf: children = []
        case .structure(let fields): children = fields.map(\.columnSchema)
        case .list(let element, _, _): children = element.map(\.columnSchema)
        }
        return ParquetColumnSchema(name: name, type: type, nullable: nullable, fieldID: fieldID, children: children)
    }

    /// The leaf indices under this node, in order.
    var leafIndices: [Int] {
        switch kind {
        case .leaf(let index): [index]
        case .structure(let fields): fields.flatMap(\.leafIndices)
        case .list(let element, _, _): element.flatMap(\.leafIndices)
        }
    }
}

/// How a leaf column's Parquet values become a Sluice column's values.
enum ParquetLeafConversion: Equatable {
    case boolean
    /// INT32 kept as is (int32, date).
    case int32
    /// INT32 narrowed to int16 (INT(8|16), UINT(8)).
    case int32ToInt16
    /// INT32 read as unsigned, widened to int64 (UINT(32)).
    case uint32ToInt64
    /// INT32 milliseconds times 1000 (TIME_MILLIS).
    case int32MillisToMicros
    /// INT64 multiplied (`multiplier > 0`) or divided (`divisor > 0`) into microseconds.
    case int64(multiplier: Int64, divisor: Int64)
    /// INT64 read as unsigned into numeric(20,0).
    case uint64ToDecimal
    /// INT96 (Impala's nanoseconds of day and Julian day) into microseconds.
    case int96ToMicros
    case float
    case double
    /// BYTE_ARRAY or FIXED_LEN_BYTE_ARRAY kept as bytes.
    case bytes
    /// An unscaled integer (INT32, INT64 or big-endian two's complement bytes) with a scale.
    case decimal(scale: Int)
}

/// A leaf column chunk's description: where it sits, its physical type and levels.
struct ParquetLeaf {
    var path: [String]
    var physicalType: ParquetPhysicalType
    /// FIXED_LEN_BYTE_ARRAY's width.
    var typeLength: Int
    var maxDefinitionLevel: Int
    var maxRepetitionLevel: Int
    var type: DataType
    var fieldID: Int32?
    var conversion: ParquetLeafConversion
}

/// The schema as a node tree and its leaves.
struct ParquetSchemaTree {
    var columns: [ParquetNode]
    var leaves: [ParquetLeaf]
}

extension ParquetNode: Sendable {}
extension ParquetNode.Kind: Sendable {}
extension ParquetLeafConversion: Sendable {}
extension ParquetLeaf: Sendable {}
extension ParquetSchemaTree: Sendable {}
