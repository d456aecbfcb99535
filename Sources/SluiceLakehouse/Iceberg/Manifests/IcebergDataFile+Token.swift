import SluiceCore
import SluiceFormats

extension IcebergDataFile {
    /// `files` as bytes a sink keeps in its checkpoint until it commits them: an Avro array of
    /// the manifest's `data_file` records (of an unpartitioned table), so the token holds
    /// exactly what the manifest will.
    package static func encodeList(_ files: [IcebergDataFile]) throws(SluiceError) -> [UInt8] {
        var encoder = AvroBinaryEncoder()
        try encoder.encode(.array(files.map { $0.avroValue() }), as: tokenSchema)
        return encoder.bytes
    }

    /// The files ``encodeList(_:)`` wrote; damaged bytes are an error, not a crash.
    package static func decodeList(_ bytes: [UInt8]) throws(SluiceError) -> [IcebergDataFile] {
        var decoder = AvroBinaryDecoder(bytes)
        guard case .array(let values) = try decoder.decode(tokenSchema), decoder.isAtEnd else {
            throw SluiceError(.dataCorrupted, "a sink's prepared data files are damaged")
        }
        var files: [IcebergDataFile] = []
        for value in values {
            files.append(try IcebergDataFile(IcebergAvroRecord(value, schema: dataFileSchema, name: "data_file")))
        }
        return files
    }

    private static let dataFileSchema = IcebergManifestSchemas.dataFile(partitionType: [])
    private static let tokenSchema = AvroSchema(.array(items: dataFileSchema))
}
