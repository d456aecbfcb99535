import SluiceCore
import SluiceFormats

extension IcebergDataFile {
    /// `files` as bytes a sink keeps in its checkpoint until it commits them: an Avro array of
    /// the manifest's `data_file` records (with the table's partition type), so the token holds
    /// exactly what the manifest will.
    package static func encodeList(_ files: [IcebergDataFile], partitionType: [IcebergManifestPartitionField] = []) throws(SluiceError) -> [UInt8] {
        var encoder = AvroBinaryEncoder()
        try encoder.encode(.array(files.map { $0.avroValue() }), as: AvroSchema(.array(items: IcebergManifestSchemas.dataFile(partitionType: partitionType))))
        return encoder.bytes
    }

    /// The files ``encodeList(_:partitionType:)`` wrote; damaged bytes are an error, not a crash.
    package static func decodeList(_ bytes: [UInt8], partitionType: [IcebergManifestPartitionField] = []) throws(SluiceError) -> [IcebergDataFile] {
        let dataFileSchema = IcebergManifestSchemas.dataFile(partitionType: partitionType)
        var decoder = AvroBinaryDecoder(bytes)
        guard case .array(let values) = try decoder.decode(AvroSchema(.array(items: dataFileSchema))), decoder.isAtEnd else {
            throw SluiceError(.dataCorrupted, "a sink's prepared data files are damaged")
        }
        var files: [IcebergDataFile] = []
        for value in values {
            files.append(try IcebergDataFile(IcebergAvroRecord(value, schema: dataFileSchema, name: "data_file")))
        }
        return files
    }
}
