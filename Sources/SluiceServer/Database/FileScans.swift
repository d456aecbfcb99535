import Foundation
import Synchronization
import SluiceCore
import SluiceDataflow
import SluicePlanner
import SluiceSQL

/// The files a session's `file_scan(…)` calls read (RisingWave's function):
///
///     file_scan('parquet' | 'csv' | 'json', 's3', region, access key, secret key, 's3://bucket/path')
///     file_scan('parquet' | 'csv' | 'json', 'posix_fs', '/folder/or/file')
///
/// A location ending in `/` (or a folder) reads every file in it, one whose last part has glob
/// characters the files it matches, otherwise the one file. An S3 region given as an
/// `http(s)://` address is the endpoint of an S3-compatible store (MinIO), as is a seventh
/// argument. The columns come from the files: Parquet's schema, a CSV header (text), a JSON
/// line's keys.
///
/// Each distinct call is a file source of its own, outside the catalog, kept for the session
/// (under an id below every catalog relation's) so a prepared statement finds it again; the
/// files are listed and read anew each time a query runs.
package final class FileScans: ExternalRelations, @unchecked Sendable {
    package struct Relation: Sendable {
        package var connector: any SourceConnector
        package var types: [DataType]
        var columns: [(name: String, type: DataType)]
        var id: Int
    }

    private let known = Mutex<[[String]: Relation]>([:])
    /// More distinct calls than this in one session are refused (each holds a small source).
    static let limit = 1024

    /// Builds a file source for a call (`Database`'s connectors, outside the catalog).
    private let makeSource: Database.ConnectorFactory

    /// A front door's names (Trino's catalogs): what a name in FROM means, given these scans to
    /// register an outside table in; nil: the catalog's names only.
    package typealias NameResolver = @Sendable (ObjectName, FileScans) throws(SluiceError) -> ResolvedRelationName?
    private let nameResolver: NameResolver?

    package init(makeSource: @escaping Database.ConnectorFactory, nameResolver: NameResolver? = nil) {
        self.makeSource = makeSource
        self.nameResolver = nameResolver
    }

    package func resolve(_ name: ObjectName) throws(SluiceError) -> ResolvedRelationName? {
        try nameResolver?(name, self)
    }

    /// The relation of an outside table the session reads by `key` (made from `description` the
    /// first time): its scan's id and its columns.
    package func relation(
        key: [String], description: @autoclosure () throws(SluiceError) -> SourceDescription, noColumns: String? = nil
    ) throws(SluiceError) -> (id: Int, columns: [(name: String, type: DataType)]) {
        if let found = known.withLock({ $0[key] }) { return (found.id, found.columns) }
        let source = try makeSource(try description(), true)
        guard let columns = source.inferredColumns, !columns.isEmpty else {
            throw SluiceError(.invalidParameterValue, noColumns ?? "found no columns in \(key.last ?? "the table")")
        }
        return try register(source, columns: columns, key: key)
    }

    package var relations: [Int: Relation] {
        known.withLock { Dictionary(uniqueKeysWithValues: $0.values.map { ($0.id, $0) }) }
    }

    package func relation(function: String, arguments: [String]) throws(SluiceError) -> (id: Int, columns: [(name: String, type: DataType)])? {
        switch function {
        case "file_scan":
            return try relation(key: [function] + arguments, description: Self.description(arguments), noColumns: "file_scan found no columns in the files")
        case "iceberg":
            return try relation(key: [function] + arguments, description: Self.icebergDescription(arguments), noColumns: "the Iceberg table has no columns")
        default:
            return nil
        }
    }

    private func register(_ source: any SourceConnector, columns: [(name: String, type: DataType)], key arguments: [String]) throws(SluiceError) -> (id: Int, columns: [(name: String, type: DataType)]) {
        try known.withLock { known throws(SluiceError) in
            if let found = known[arguments] { return (found.id, found.columns) }
            guard known.count < Self.limit else {
                throw SluiceError(.programLimitExceeded, "a session may read at most \(Self.limit) different file_scan calls", hint: "Create a source over the files.")
            }
            let relation = Relation(connector: source, types: columns.map(\.type), columns: columns, id: Int(Int32.min) + known.count)
            known[arguments] = relation
            return (relation.id, columns)
        }
    }

    /// An Iceberg source's description for a table of a Flink Iceberg catalog: its database,
    /// its name, then the catalog's options as key and value.
    static func icebergDescription(_ arguments: [String]) throws(SluiceError) -> SourceDescription {
        guard arguments.count >= 2, arguments.count % 2 == 0 else { throw SluiceError(.internalError, "an Iceberg catalog table's arguments are malformed") }
        var catalog: [String: String] = [:]
        for index in stride(from: 2, to: arguments.count, by: 2) { catalog[arguments[index]] = arguments[index + 1] }
        let options = FlinkDialect.icebergOptions(catalog: catalog, database: arguments[0], table: arguments[1])
        return SourceDescription(
            id: 0, name: arguments[1], columns: [], primaryKey: [], options: options, format: "PLAIN", encode: "PARQUET", formatOptions: [:], isTable: false)
    }

    /// A file source's description for a call's arguments.
    static func description(_ arguments: [String]) throws(SluiceError) -> SourceDescription {
        let usage = "file_scan(format, 's3', region, access key, secret key, 's3://bucket/path') or file_scan(format, 'posix_fs', '/path')"
        guard arguments.count >= 2 else { throw SluiceError(.undefinedFunction, "file_scan takes \(usage)") }
        let encode: String
        switch arguments[0].lowercased() {
        case "parquet": encode = "PARQUET"
        case "csv": encode = "CSV"
        case "json": encode = "JSON"
        default: throw SluiceError(.invalidParameterValue, "file_scan reads 'parquet', 'csv' or 'json' files, not '\(arguments[0])'")
        }
        var options: [String: String] = [:]
        let location: String
        switch arguments[1].lowercased() {
        case "s3":
            guard arguments.count == 6 || arguments.count == 7 else { throw SluiceError(.undefinedFunction, "file_scan of 's3' takes \(usage)") }
            options["connector"] = "s3"
            let region = arguments[2]
            if region.hasPrefix("http://") || region.hasPrefix("https://") {
                options["s3.endpoint_url"] = region
            } else if !region.isEmpty {
                options["s3.region_name"] = region
            }
            if arguments.count == 7 { options["s3.endpoint_url"] = arguments[6] }
            options["s3.credentials.access"] = arguments[3]
            options["s3.credentials.secret"] = arguments[4]
            guard arguments[5].hasPrefix("s3://") else {
                throw SluiceError(.invalidParameterValue, "file_scan's S3 location must start with s3://, not '\(arguments[5])'")
            }
            let path = arguments[5].dropFirst("s3://".count)
            let bucket = path.prefix { $0 != "/" }
            guard !bucket.isEmpty else { throw SluiceError(.invalidParameterValue, "file_scan's S3 location names no bucket") }
            options["s3.bucket_name"] = String(bucket)
            location = String(path.dropFirst(bucket.count + 1))
        case "posix_fs":
            guard arguments.count == 3 else { throw SluiceError(.undefinedFunction, "file_scan of 'posix_fs' takes \(usage)") }
            options["connector"] = "posix_fs"
            var path = arguments[2]
            if path.hasPrefix("file://") { path.removeFirst("file://".count) }
            guard path.hasPrefix("/") else { throw SluiceError(.invalidParameterValue, "file_scan's posix_fs location must be an absolute path, not '\(path)'") }
            var isFolder: ObjCBool = false
            if !path.hasSuffix("/"), FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), isFolder.boolValue { path += "/" }
            location = path
        default:
            throw SluiceError(.invalidParameterValue, "file_scan reads from 's3' or 'posix_fs', not '\(arguments[1])'")
        }
        // The folder, and the files in it: all, a glob, or one.
        let slash = location.lastIndex(of: "/")
        let folder = slash.map { String(location[...$0]) } ?? ""
        var name = slash.map { String(location[location.index(after: $0)...]) } ?? location
        if name.isEmpty { name = "*" }
        if options["connector"] == "s3" {
            options["s3.path"] = folder
        } else {
            options["posix_fs.root"] = folder
        }
        options["match_pattern"] = name
        return SourceDescription(
            id: 0, name: "file_scan", columns: [], primaryKey: [], options: options, format: "PLAIN", encode: encode, formatOptions: [:], isTable: false)
    }
}
