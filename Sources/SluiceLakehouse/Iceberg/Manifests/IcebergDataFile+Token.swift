import SluiceCore
import SluiceFormats

extension IcebergDataFile {
    /// The first byte of a token. Tokens from before parts were one Avro array of files, which
    /// starts with the array's item count: a zigzag varint whose first byte is even for every
    /// positive count, so an odd marker tells the two apart.
    private static let partsMarker: UInt8 = 0x53

    /// `parts` (each committed as its own snapshot, in order) as bytes a sink keeps in its
    /// checkpoint until it commits them: the marker, then an Avro array of arrays of the
    /// manifest's `data_file` records (with the table's partition type), so the token holds
    /// exactly what the manifests will.
    package static func encodeParts(_ parts: [[IcebergDataFile]], partitionType: [IcebergManifestPartitionField] = []) throws(SluiceError) -> [UInt8] {
        var encoder = AvroBinaryEncoder()
        let schema = AvroSchema(.array(items: AvroSchema(.array(items: IcebergManifestSchemas.dataFile(partitionType: partitionType)))))
        try encoder.encode(.array(parts.map { .array($0.map { $0.avroValue() }) }), as: schema)
        return [partsMarker] + encoder.bytes
    }

    /// The parts ``encodeParts(_:partitionType:)`` wrote (or one part, from a token of one
    /// list); damaged bytes are an error, not a crash.
    package static func decodeParts(_ bytes: [UInt8], partitionType: [IcebergManifestPartitionField] = []) throws(SluiceError) -> [[IcebergDataFile]] {
        let dataFileSchema = IcebergManifestSchemas.dataFile(partitionType: partitionType)
        let damaged = SluiceError(.dataCorrupted, "a sink's prepared data files are damaged")
        let isParts = bytes.first == partsMarker
        var schema = AvroSchema(.array(items: dataFileSchema))
        if isParts { schema = AvroSchema(.array(items: schema)) }
        var decoder = AvroBinaryDecoder(isParts ? Array(bytes.dropFirst()) : bytes)
        guard case .array(let values) = try decoder.decode(schema), decoder.isAtEnd else { throw damaged }
        let parts = isParts ? values : [.array(values)]
        var decoded: [[IcebergDataFile]] = []
        for part in parts {
            guard case .array(let values) = part else { throw damaged }
            var files: [IcebergDataFile] = []
            for value in values { files.append(try IcebergDataFile(IcebergAvroRecord(value, schema: dataFileSchema, name: "data_file"))) }
            decoded.append(files)
        }
        return decoded
    }
}
