/// Writing Parquet's metadata structures in the compact protocol, field ids as in
/// `parquet.thrift`.
extension ParquetFileMetaData {
    func encoded() -> [UInt8] {
        var writer = ThriftCompactWriter()
        writer.beginStruct()
        writer.write(i32: version, field: 1)
        writer.beginListField(2, elementType: .structure, count: schema.count)
        for element in schema { element.encode(into: &writer) }
        writer.write(i64: rowCount, field: 3)
        writer.beginListField(4, elementType: .structure, count: rowGroups.count)
        for rowGroup in rowGroups { rowGroup.encode(into: &writer) }
        if !keyValueMetadata.isEmpty {
            writer.beginListField(5, elementType: .structure, count: keyValueMetadata.count)
            for pair in keyValueMetadata {
                writer.beginStruct()
                writer.write(string: pair.key, field: 1)
                if let value = pair.value { writer.write(string: value, field: 2) }
                writer.endStruct()
            }
        }
        if let createdBy { writer.write(string: createdBy, field: 6) }
        if hasTypeDefinedColumnOrders {
            // ColumnOrder is a union whose member 1 is the empty TypeDefinedOrder.
            let leafCount = schema.filter { $0.childCount == nil }.count
            writer.beginListField(7, elementType: .structure, count: leafCount)
            for _ in 0 ..< leafCount {
                writer.beginStruct()
                writer.beginStructField(1)
                writer.endStruct()
                writer.endStruct()
            }
        }
        writer.endStruct()
        return writer.bytes
    }
}

extension ParquetSchemaElement {
    func encode(into writer: inout ThriftCompactWriter) {
        writer.beginStruct()
        if let type { writer.write(i32: type, field: 1) }
        if let typeLength { writer.write(i32: typeLength, field: 2) }
        if let repetition { writer.write(i32: repetition, field: 3) }
        writer.write(string: name, field: 4)
        if let childCount { writer.write(i32: childCount, field: 5) }
        if let convertedType { writer.write(i32: convertedType, field: 6) }
        if let scale { writer.write(i32: scale, field: 7) }
        if let precision { writer.write(i32: precision, field: 8) }
        if let fieldID { writer.write(i32: fieldID, field: 9) }
        if let logicalType {
            writer.beginStructField(10)
            logicalType.encode(into: &writer)
            writer.endStruct()
        }
        writer.endStruct()
    }
}

extension ParquetLogicalType {
    /// The union's one member (the caller has opened the LogicalType struct).
    func encode(into writer: inout ThriftCompactWriter) {
        func empty(_ field: Int16) {
            writer.beginStructField(field)
            writer.endStruct()
        }
        func unit(_ unit: ParquetTimeUnit) {
            writer.beginStructField(2)
            switch unit {
            case .millis: empty(1)
            case .micros: empty(2)
            case .nanos: empty(3)
            }
            writer.endStruct()
        }
        switch self {
        case .string: empty(1)
        case .map: empty(2)
        case .list: empty(3)
        case .enumeration: empty(4)
        case .decimal(let scale, let precision):
            writer.beginStructField(5)
            writer.write(i32: scale, field: 1)
            writer.write(i32: precision, field: 2)
            writer.endStruct()
        case .date: empty(6)
        case .time(let isAdjustedToUTC, let timeUnit):
            writer.beginStructField(7)
            writer.write(bool: isAdjustedToUTC, field: 1)
            unit(timeUnit)
            writer.endStruct()
        case .timestamp(let isAdjustedToUTC, let timeUnit):
            writer.beginStructField(8)
            writer.write(bool: isAdjustedToUTC, field: 1)
            unit(timeUnit)
            writer.endStruct()
        case .integer(let bitWidth, let isSigned):
            writer.beginStructField(10)
            writer.write(byte: bitWidth, field: 1)
            writer.write(bool: isSigned, field: 2)
            writer.endStruct()
        case .unknown: empty(11)
        case .json: empty(12)
        case .bson: empty(13)
        case .uuid: empty(14)
        case .float16: empty(15)
        case .other(let field): empty(field)
        }
    }
}

extension ParquetStatistics {
    func encode(into writer: inout ThriftCompactWriter) {
        if let legacyMax { writer.write(binary: legacyMax, field: 1) }
        if let legacyMin { writer.write(binary: legacyMin, field: 2) }
        if let nullCount { writer.write(i64: nullCount, field: 3) }
        if let distinctCount { writer.write(i64: distinctCount, field: 4) }
        if let maxValue { writer.write(binary: maxValue, field: 5) }
        if let minValue { writer.write(binary: minValue, field: 6) }
    }
}

extension ParquetRowGroup {
    func encode(into writer: inout ThriftCompactWriter) {
        writer.beginStruct()
        writer.beginListField(1, elementType: .structure, count: columns.count)
        for column in columns { column.encode(into: &writer) }
        writer.write(i64: totalByteSize, field: 2)
        writer.write(i64: rowCount, field: 3)
        if let fileOffset { writer.write(i64: fileOffset, field: 5) }
        if let totalCompressedSize { writer.write(i64: totalCompressedSize, field: 6) }
        if let ordinal { writer.write(i16: ordinal, field: 7) }
        writer.endStruct()
    }
}

extension ParquetColumnChunk {
    func encode(into writer: inout ThriftCompactWriter) {
        writer.beginStruct()
        if let filePath { writer.write(string: filePath, field: 1) }
        writer.write(i64: fileOffset, field: 2)
        if let metaData {
            writer.beginStructField(3)
            metaData.encodeFields(into: &writer)
            writer.endStruct()
        }
        writer.endStruct()
    }
}

extension ParquetColumnMetaData {
    func encodeFields(into writer: inout ThriftCompactWriter) {
        writer.write(i32: type, field: 1)
        writer.beginListField(2, elementType: .i32, count: encodings.count)
        for encoding in encodings { writer.writeElement(i32: encoding) }
        writer.beginListField(3, elementType: .binary, count: pathInSchema.count)
        for name in pathInSchema { writer.writeBinary(Array(name.utf8)) }
        writer.write(i32: codec, field: 4)
        writer.write(i64: valueCount, field: 5)
        writer.write(i64: totalUncompressedSize, field: 6)
        writer.write(i64: totalCompressedSize, field: 7)
        writer.write(i64: dataPageOffset, field: 9)
        if let dictionaryPageOffset { writer.write(i64: dictionaryPageOffset, field: 11) }
        if let statistics {
            writer.beginStructField(12)
            statistics.encode(into: &writer)
            writer.endStruct()
        }
    }
}

extension ParquetPageHeader {
    func encoded() -> [UInt8] {
        var writer = ThriftCompactWriter()
        encode(into: &writer)
        return writer.bytes
    }

    func encode(into writer: inout ThriftCompactWriter) {
        writer.beginStruct()
        writer.write(i32: type, field: 1)
        writer.write(i32: uncompressedSize, field: 2)
        writer.write(i32: compressedSize, field: 3)
        if let dataPage {
            writer.beginStructField(5)
            writer.write(i32: dataPage.valueCount, field: 1)
            writer.write(i32: dataPage.encoding, field: 2)
            writer.write(i32: dataPage.definitionLevelEncoding, field: 3)
            writer.write(i32: dataPage.repetitionLevelEncoding, field: 4)
            writer.endStruct()
        }
        if let dictionaryPage {
            writer.beginStructField(7)
            writer.write(i32: dictionaryPage.valueCount, field: 1)
            writer.write(i32: dictionaryPage.encoding, field: 2)
            writer.endStruct()
        }
        if let dataPageV2 {
            writer.beginStructField(8)
            writer.write(i32: dataPageV2.valueCount, field: 1)
            writer.write(i32: dataPageV2.nullCount, field: 2)
            writer.write(i32: dataPageV2.rowCount, field: 3)
            writer.write(i32: dataPageV2.encoding, field: 4)
            writer.write(i32: dataPageV2.definitionLevelsByteLength, field: 5)
            writer.write(i32: dataPageV2.repetitionLevelsByteLength, field: 6)
            writer.write(bool: dataPageV2.isCompressed, field: 7)
            writer.endStruct()
        }
        writer.endStruct()
    }
}
