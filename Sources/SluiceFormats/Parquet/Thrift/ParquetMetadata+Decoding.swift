import SluiceCore

/// Reading Parquet's metadata structures from the compact protocol; unknown fields are skipped.
extension ParquetFileMetaData {
    init(decoding bytes: [UInt8]) throws(SluiceError) {
        var reader = ThriftCompactReader(bytes)
        var result = ParquetFileMetaData()
        result.version = 0
        try reader.readStruct { (reader, field, type) throws(SluiceError) in
            switch field {
            case 1: result.version = try reader.readI32(type)
            case 2: result.schema = try reader.readList(type) { (reader, elementType) throws(SluiceError) in
                try ParquetSchemaElement(reading: &reader, elementType)
            }
            case 3: result.rowCount = try reader.readInteger(type)
            case 4: result.rowGroups = try reader.readList(type) { (reader, elementType) throws(SluiceError) in
                try ParquetRowGroup(reading: &reader, elementType)
            }
            case 5: result.keyValueMetadata = try reader.readList(type) { (reader, elementType) throws(SluiceError) in
                try ParquetKeyValue(reading: &reader, elementType)
            }
            case 6: result.createdBy = try reader.readString(type)
            case 7:
                let orders = try reader.readList(type) { (reader, elementType) throws(SluiceError) -> Bool in
                    try expectStruct(elementType)
                    var isTypeDefined = false
                    try reader.readStruct { (reader, field, type) throws(SluiceError) in
                        if field == 1 { isTypeDefined = true }
                        try reader.skip(type)
                    }
                    return isTypeDefined
                }
                result.hasTypeDefinedColumnOrders = !orders.isEmpty && orders.allSatisfy { $0 }
            default: try reader.skip(type)
            }
        }
        self = result
    }
}

private func expectStruct(_ type: ThriftCompactType) throws(SluiceError) {
    guard type == .structure else { throw ThriftCompactReader.corrupt("expected a struct, found type \(type.rawValue)") }
}

extension ParquetKeyValue {
    init(reading reader: inout ThriftCompactReader, _ type: ThriftCompactType) throws(SluiceError) {
        try expectStruct(type)
        var key = ""
        var value: String?
        try reader.readStruct { (reader, field, type) throws(SluiceError) in
            switch field {
            case 1: key = try reader.readString(type)
            case 2: value = try reader.readString(type)
            default: try reader.skip(type)
            }
        }
        self.init(key: key, value: value)
    }
}

extension ParquetSchemaElement {
    init(reading reader: inout ThriftCompactReader, _ type: ThriftCompactType) throws(SluiceError) {
        try expectStruct(type)
        var element = ParquetSchemaElement()
        try reader.readStruct { (reader, field, type) throws(SluiceError) in
            switch field {
            case 1: element.type = try reader.readI32(type)
            case 2: element.typeLength = try reader.readI32(type)
            case 3: element.repetition = try reader.readI32(type)
            case 4: element.name = try reader.readString(type)
            case 5: element.childCount = try reader.readI32(type)
            case 6: element.convertedType = try reader.readI32(type)
            case 7: element.scale = try reader.readI32(type)
            case 8: element.precision = try reader.readI32(type)
            case 9: element.fieldID = try reader.readI32(type)
            case 10: element.logicalType = try ParquetLogicalType(reading: &reader, type)
            default: try reader.skip(type)
            }
        }
        self = element
    }
}

extension ParquetLogicalType {
    init(reading reader: inout ThriftCompactReader, _ type: ThriftCompactType) throws(SluiceError) {
        try expectStruct(type)
        var result: ParquetLogicalType?
        try reader.readStruct { (reader, field, type) throws(SluiceError) in
            guard result == nil else { return try reader.skip(type) }
            switch field {
            case 5:
                try expectStruct(type)
                var scale: Int32 = 0, precision: Int32 = 0
                try reader.readStruct { (reader, field, type) throws(SluiceError) in
                    switch field {
                    case 1: scale = try reader.readI32(type)
                    case 2: precision = try reader.readI32(type)
                    default: try reader.skip(type)
                    }
                }
                result = .decimal(scale: scale, precision: precision)
            case 7, 8:
                try expectStruct(type)
                var isAdjustedToUTC = false
                var unit = ParquetTimeUnit.micros
                try reader.readStruct { (reader, field, type) throws(SluiceError) in
                    switch field {
                    case 1: isAdjustedToUTC = try reader.readBool(type)
                    case 2:
                        try expectStruct(type)
                        try reader.readStruct { (reader, field, type) throws(SluiceError) in
                            switch field {
                            case 1: unit = .millis
                            case 2: unit = .micros
                            case 3: unit = .nanos
                            default: break
                            }
                            try reader.skip(type)
                        }
                    default: try reader.skip(type)
                    }
                }
                result = field == 7 ? .time(isAdjustedToUTC: isAdjustedToUTC, unit: unit) : .timestamp(isAdjustedToUTC: isAdjustedToUTC, unit: unit)
            case 10:
                try expectStruct(type)
                var bitWidth: Int8 = 0, isSigned = true
                try reader.readStruct { (reader, field, type) throws(SluiceError) in
                    switch field {
                    case 1: bitWidth = Int8(truncatingIfNeeded: try reader.readInteger(type))
                    case 2: isSigned = try reader.readBool(type)
                    default: try reader.skip(type)
                    }
                }
                result = .integer(bitWidth: bitWidth, isSigned: isSigned)
            default:
                try reader.skip(type)
                switch field {
                case 1: result = .string
                case 2: result = .map
                case 3: result = .list
                case 4: result = .enumeration
                case 6: result = .date
                case 11: result = .unknown
                case 12: result = .json
                case 13: result = .bson
                case 14: result = .uuid
                case 15: result = .float16
                default: result = .other(field)
                }
            }
        }
        guard let result else { throw ThriftCompactReader.corrupt("empty logical type") }
        self = result
    }
}

extension ParquetStatistics {
    init(reading reader: inout ThriftCompactReader, _ type: ThriftCompactType) throws(SluiceError) {
        try expectStruct(type)
        var statistics = ParquetStatistics()
        try reader.readStruct { (reader, field, type) throws(SluiceError) in
            switch field {
            case 1: statistics.legacyMax = try reader.readBinary(type)
            case 2: statistics.legacyMin = try reader.readBinary(type)
            case 3: statistics.nullCount = try reader.readInteger(type)
            case 4: statistics.distinctCount = try reader.readInteger(type)
            case 5: statistics.maxValue = try reader.readBinary(type)
            case 6: statistics.minValue = try reader.readBinary(type)
            default: try reader.skip(type)
            }
        }
        self = statistics
    }
}

extension ParquetRowGroup {
    init(reading reader: inout ThriftCompactReader, _ type: ThriftCompactType) throws(SluiceError) {
        try expectStruct(type)
        var rowGroup = ParquetRowGroup()
        try reader.readStruct { (reader, field, type) throws(SluiceError) in
            switch field {
            case 1: rowGroup.columns = try reader.readList(type) { (reader, elementType) throws(SluiceError) in
                try ParquetColumnChunk(reading: &reader, elementType)
            }
            case 2: rowGroup.totalByteSize = try reader.readInteger(type)
            case 3: rowGroup.rowCount = try reader.readInteger(type)
            case 5: rowGroup.fileOffset = try reader.readInteger(type)
            case 6: rowGroup.totalCompressedSize = try reader.readInteger(type)
            case 7: rowGroup.ordinal = Int16(truncatingIfNeeded: try reader.readInteger(type))
            default: try reader.skip(type)
            }
        }
        self = rowGroup
    }
}

extension ParquetColumnChunk {
    init(reading reader: inout ThriftCompactReader, _ type: ThriftCompactType) throws(SluiceError) {
        try expectStruct(type)
        var chunk = ParquetColumnChunk()
        try reader.readStruct { (reader, field, type) throws(SluiceError) in
            switch field {
            case 1: chunk.filePath = try reader.readString(type)
            case 2: chunk.fileOffset = try reader.readInteger(type)
            case 3: chunk.metaData = try ParquetColumnMetaData(reading: &reader, type)
            default: try reader.skip(type)
            }
        }
        self = chunk
    }
}

extension ParquetColumnMetaData {
    init(reading reader: inout ThriftCompactReader, _ type: ThriftCompactType) throws(SluiceError) {
        try expectStruct(type)
        var metaData = ParquetColumnMetaData()
        try reader.readStruct { (reader, field, type) throws(SluiceError) in
            switch field {
            case 1: metaData.type = try reader.readI32(type)
            case 2: metaData.encodings = try reader.readList(type) { (reader, elementType) throws(SluiceError) in try reader.readI32(elementType) }
            case 3: metaData.pathInSchema = try reader.readList(type) { (reader, elementType) throws(SluiceError) in try reader.readString(elementType) }
            case 4: metaData.codec = try reader.readI32(type)
            case 5: metaData.valueCount = try reader.readInteger(type)
            case 6: metaData.totalUncompressedSize = try reader.readInteger(type)
            case 7: metaData.totalCompressedSize = try reader.readInteger(type)
            case 9: metaData.dataPageOffset = try reader.readInteger(type)
            case 11: metaData.dictionaryPageOffset = try reader.readInteger(type)
            case 12: metaData.statistics = try ParquetStatistics(reading: &reader, type)
            default: try reader.skip(type)
            }
        }
        self = metaData
    }
}

extension ParquetPageHeader {
    /// Reads a page header at `reader`'s position (pages follow their headers directly).
    init(reading reader: inout ThriftCompactReader) throws(SluiceError) {
        var header = ParquetPageHeader()
        try reader.readStruct { (reader, field, type) throws(SluiceError) in
            switch field {
            case 1: header.type = try reader.readI32(type)
            case 2: header.uncompressedSize = try reader.readI32(type)
            case 3: header.compressedSize = try reader.readI32(type)
            case 5:
                try expectStruct(type)
                var page = ParquetDataPageHeader()
                try reader.readStruct { (reader, field, type) throws(SluiceError) in
                    switch field {
                    case 1: page.valueCount = try reader.readI32(type)
                    case 2: page.encoding = try reader.readI32(type)
                    case 3: page.definitionLevelEncoding = try reader.readI32(type)
                    case 4: page.repetitionLevelEncoding = try reader.readI32(type)
                    default: try reader.skip(type)
                    }
                }
                header.dataPage = page
            case 7:
                try expectStruct(type)
                var page = ParquetDictionaryPageHeader()
                try reader.readStruct { (reader, field, type) throws(SluiceError) in
                    switch field {
                    case 1: page.valueCount = try reader.readI32(type)
                    case 2: page.encoding = try reader.readI32(type)
                    default: try reader.skip(type)
                    }
                }
                header.dictionaryPage = page
            case 8:
                try expectStruct(type)
                var page = ParquetDataPageHeaderV2()
                try reader.readStruct { (reader, field, type) throws(SluiceError) in
                    switch field {
                    case 1: page.valueCount = try reader.readI32(type)
                    case 2: page.nullCount = try reader.readI32(type)
                    case 3: page.rowCount = try reader.readI32(type)
                    case 4: page.encoding = try reader.readI32(type)
                    case 5: page.definitionLevelsByteLength = try reader.readI32(type)
                    case 6: page.repetitionLevelsByteLength = try reader.readI32(type)
                    case 7: page.isCompressed = try reader.readBool(type)
                    default: try reader.skip(type)
                    }
                }
                header.dataPageV2 = page
            default: try reader.skip(type)
            }
        }
        self = header
    }
}
