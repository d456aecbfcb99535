/// Parquet's footer and page-header structures (apache/parquet-format `parquet.thrift`), with
/// the fields Sluice writes and reads; other fields are skipped on read and not written.
///
/// Enum-valued fields are kept as their raw `Int32`s, so a file using a value this reader does
/// not know still parses and fails only where that value matters.
struct ParquetFileMetaData: Equatable {
    var version: Int32 = 2
    var schema: [ParquetSchemaElement] = []
    var rowCount: Int64 = 0
    var rowGroups: [ParquetRowGroup] = []
    var keyValueMetadata: [ParquetKeyValue] = []
    var createdBy: String?
    /// Whether `column_orders` lists TYPE_ORDER for every leaf (what makes readers trust
    /// `min_value`/`max_value`).
    var hasTypeDefinedColumnOrders = false
}

/// `parquet.thrift` `Type`.
enum ParquetPhysicalType: Int32 {
    case boolean = 0, int32 = 1, int64 = 2, int96 = 3, float = 4, double = 5, byteArray = 6, fixedLenByteArray = 7
}

/// `parquet.thrift` `FieldRepetitionType`.
enum ParquetRepetition: Int32 {
    case required = 0, optional = 1, repeated = 2
}

/// `parquet.thrift` `ConvertedType` values used here.
enum ParquetConvertedType {
    static let utf8: Int32 = 0, map: Int32 = 1, mapKeyValue: Int32 = 2, list: Int32 = 3, enumeration: Int32 = 4
    static let decimal: Int32 = 5, date: Int32 = 6, timeMillis: Int32 = 7, timeMicros: Int32 = 8
    static let timestampMillis: Int32 = 9, timestampMicros: Int32 = 10
    static let uint8: Int32 = 11, uint16: Int32 = 12, uint32: Int32 = 13, uint64: Int32 = 14
    static let int8: Int32 = 15, int16: Int32 = 16, int32: Int32 = 17, int64: Int32 = 18
    static let json: Int32 = 19, bson: Int32 = 20, interval: Int32 = 21
}

/// `parquet.thrift` `Encoding`.
enum ParquetEncoding {
    static let plain: Int32 = 0, plainDictionary: Int32 = 2, rle: Int32 = 3, bitPacked: Int32 = 4
    static let deltaBinaryPacked: Int32 = 5, deltaLengthByteArray: Int32 = 6, deltaByteArray: Int32 = 7
    static let rleDictionary: Int32 = 8, byteStreamSplit: Int32 = 9
}

/// `parquet.thrift` `PageType`.
enum ParquetPageType {
    static let dataPage: Int32 = 0, indexPage: Int32 = 1, dictionaryPage: Int32 = 2, dataPageV2: Int32 = 3
}

/// `parquet.thrift` `TimeUnit`.
enum ParquetTimeUnit: Equatable {
    case millis, micros, nanos
}

/// `parquet.thrift` `LogicalType`, the annotations Sluice maps; others read as `.other`.
enum ParquetLogicalType: Equatable {
    case string
    case map
    case list
    case enumeration
    case decimal(scale: Int32, precision: Int32)
    case date
    case time(isAdjustedToUTC: Bool, unit: ParquetTimeUnit)
    case timestamp(isAdjustedToUTC: Bool, unit: ParquetTimeUnit)
    case integer(bitWidth: Int8, isSigned: Bool)
    case unknown
    case json
    case bson
    case uuid
    case float16
    /// A union member this reader does not know (its field id).
    case other(Int16)
}

/// `parquet.thrift` `SchemaElement`.
struct ParquetSchemaElement: Equatable {
    var type: Int32?
    var typeLength: Int32?
    var repetition: Int32?
    var name: String = ""
    var childCount: Int32?
    var convertedType: Int32?
    var scale: Int32?
    var precision: Int32?
    var fieldID: Int32?
    var logicalType: ParquetLogicalType?
}

/// `parquet.thrift` `Statistics`: min/max as PLAIN-encoded bytes (without a length prefix).
struct ParquetStatistics: Equatable {
    /// Deprecated `max`/`min` (fields 1, 2): read only when `max_value`/`min_value` are absent
    /// and the order is known to be signed.
    var legacyMax: [UInt8]?
    var legacyMin: [UInt8]?
    var nullCount: Int64?
    var distinctCount: Int64?
    var maxValue: [UInt8]?
    var minValue: [UInt8]?
}

/// `parquet.thrift` `KeyValue`.
struct ParquetKeyValue: Equatable {
    var key: String
    var value: String?
}

/// `parquet.thrift` `RowGroup`.
struct ParquetRowGroup: Equatable {
    var columns: [ParquetColumnChunk] = []
    var totalByteSize: Int64 = 0
    var rowCount: Int64 = 0
    var fileOffset: Int64?
    var totalCompressedSize: Int64?
    var ordinal: Int16?
}

/// `parquet.thrift` `ColumnChunk` with its `ColumnMetaData` (which every writer inlines).
struct ParquetColumnChunk: Equatable {
    var filePath: String?
    var fileOffset: Int64 = 0
    var metaData: ParquetColumnMetaData?
}

/// `parquet.thrift` `ColumnMetaData`.
struct ParquetColumnMetaData: Equatable {
    var type: Int32 = 0
    var encodings: [Int32] = []
    var pathInSchema: [String] = []
    var codec: Int32 = 0
    var valueCount: Int64 = 0
    var totalUncompressedSize: Int64 = 0
    var totalCompressedSize: Int64 = 0
    var dataPageOffset: Int64 = 0
    var dictionaryPageOffset: Int64?
    var statistics: ParquetStatistics?
}

/// `parquet.thrift` `PageHeader` with the headers of the page types Sluice reads.
struct ParquetPageHeader: Equatable {
    var type: Int32 = 0
    var uncompressedSize: Int32 = 0
    var compressedSize: Int32 = 0
    var dataPage: ParquetDataPageHeader?
    var dictionaryPage: ParquetDictionaryPageHeader?
    var dataPageV2: ParquetDataPageHeaderV2?
}

/// `parquet.thrift` `DataPageHeader`.
struct ParquetDataPageHeader: Equatable {
    var valueCount: Int32 = 0
    var encoding: Int32 = 0
    var definitionLevelEncoding: Int32 = ParquetEncoding.rle
    var repetitionLevelEncoding: Int32 = ParquetEncoding.rle
}

/// `parquet.thrift` `DictionaryPageHeader`.
struct ParquetDictionaryPageHeader: Equatable {
    var valueCount: Int32 = 0
    var encoding: Int32 = ParquetEncoding.plain
}

/// `parquet.thrift` `DataPageHeaderV2`.
struct ParquetDataPageHeaderV2: Equatable {
    var valueCount: Int32 = 0
    var nullCount: Int32 = 0
    var rowCount: Int32 = 0
    var encoding: Int32 = 0
    var definitionLevelsByteLength: Int32 = 0
    var repetitionLevelsByteLength: Int32 = 0
    var isCompressed = true
}

extension ParquetFileMetaData: Sendable {}
extension ParquetPhysicalType: Sendable {}
extension ParquetTimeUnit: Sendable {}
extension ParquetLogicalType: Sendable {}
extension ParquetSchemaElement: Sendable {}
extension ParquetStatistics: Sendable {}
extension ParquetKeyValue: Sendable {}
extension ParquetRowGroup: Sendable {}
extension ParquetColumnChunk: Sendable {}
extension ParquetColumnMetaData: Sendable {}
