import SluiceCore
import SluiceDataflow
import SluiceFormats
import SluiceLakehouse

/// The options of `CREATE SINK … WITH (connector = 'fs', fs.path = '/data/out', …) FORMAT PLAIN
/// ENCODE PARQUET|JSON|CSV`, with RisingWave's names where it has them:
/// - `fs.path`: the folder files go to (an absolute path);
/// - `rollover_seconds` (default 10) and `max_row_count`: a file is finished once it has been
///   open this long (checked at each checkpoint) or holds this many rows;
/// - `path_partition_prefix` (`none`, `day`, `month`, `hour`): a folder per day
///   (`2026-11-26/`), month (`2026-11/`) or hour (`2026-11-26/10/`) of the time a file opens;
/// - `partition_by = 'event_type, dt'`: Hive-style folders (`event_type=buy/dt=2026-11-26/`) by
///   the rows' values; the partition columns are left out of the files, as Hive and Spark do;
/// - `success_file = 'true'`: an empty `_SUCCESS` in each folder a commit wrote to.
struct FileSinkOptions: Sendable {
    enum Encoding: Sendable, Equatable {
        case parquet(ParquetCompression)
        case json
        case csv(CSVTextOptions)

        var fileExtension: String {
            switch self {
            case .parquet: "parquet"
            case .json: "json"
            case .csv: "csv"
            }
        }
    }

    enum PathPrefix: String, Sendable {
        case none, day, month, hour
    }

    /// Where committed files go: a local folder (`fs`), or `s3://bucket/prefix` (`s3`, with `s3`).
    var root: String
    var s3: S3Config?
    var rolloverMicroseconds: Int64
    var maxRowCount: Int?
    var pathPrefix: PathPrefix
    var partitionColumns: [Int]
    var successFile: Bool
    var encoding: Encoding

    static let common: [ConnectorOption] = [
        .integer("rollover_seconds", 1 ... 86_400 * 365), .integer("max_row_count", 1 ... .max),
        .choice("path_partition_prefix", ["none", "day", "month", "hour"]), .text("partition_by"), .boolean("success_file"),
    ]
    static let schema: [ConnectorOption] = [.text("fs.path", required: true)] + common
    static let s3Schema: [ConnectorOption] = [
        .text("s3.bucket_name", required: true), .text("s3.path"), .text("s3.region_name"), .text("s3.credentials.access"),
        .text("s3.credentials.secret"), .text("s3.endpoint_url"),
    ] + common

    init(_ description: SinkDescription) throws(SluiceError) {
        let options = description.options
        guard description.appendOnly else {
            throw SluiceError(
                .invalidParameterValue, "a file sink is append-only: files are never rewritten",
                hint: "Use type = 'append-only' (with force_append_only = 'true' over a view that updates rows).")
        }
        if options["connector"]?.lowercased() == "s3" {
            let bucket = options["s3.bucket_name"] ?? ""
            guard !bucket.isEmpty, !bucket.contains("/") else {
                throw SluiceError(.invalidParameterValue, "s3.bucket_name must name a bucket, not '\(bucket)'")
            }
            var prefix = options["s3.path"] ?? ""
            while prefix.hasPrefix("/") { prefix.removeFirst() }
            while prefix.hasSuffix("/") { prefix.removeLast() }
            root = prefix.isEmpty ? "s3://\(bucket)" : "s3://\(bucket)/\(prefix)"
            s3 = try FileSourceOptions.s3Config(options)
        } else {
            root = options["fs.path"] ?? ""
            while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
            if root.hasPrefix("file://") { root.removeFirst("file://".count) }
            guard root.hasPrefix("/") else {
                throw SluiceError(.invalidParameterValue, "fs.path must be an absolute folder, not '\(options["fs.path"] ?? "")'")
            }
        }
        rolloverMicroseconds = (options["rollover_seconds"].flatMap { Int64($0) } ?? 10) * 1_000_000
        maxRowCount = options["max_row_count"].flatMap { Int($0) }
        pathPrefix = PathPrefix(rawValue: options["path_partition_prefix"]?.lowercased() ?? "none") ?? .none
        successFile = try OptionValues.boolean(options, "success_file") ?? false
        partitionColumns = []
        if let list = options["partition_by"] {
            for part in list.split(separator: ",") {
                let name = String(part.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
                guard let index = description.columns.firstIndex(where: { $0.name == name }) ?? description.columns.firstIndex(where: { $0.name == name.lowercased() }) else {
                    throw SluiceError(.undefinedColumn, "partition_by names column \"\(name)\", which the sink's input does not have")
                }
                if case .structure = description.columns[index].type { throw Self.unpartitionable(name) }
                if case .list = description.columns[index].type { throw Self.unpartitionable(name) }
                if !partitionColumns.contains(index) { partitionColumns.append(index) }
            }
            guard !partitionColumns.isEmpty else { throw SluiceError(.invalidParameterValue, "partition_by names no column") }
            guard partitionColumns.count < description.columns.count else {
                throw SluiceError(.invalidParameterValue, "partition_by takes every column of the sink, leaving none for the files")
            }
        }
        encoding = try Self.encoding(description)
    }

    private static func unpartitionable(_ name: String) -> SluiceError {
        SluiceError(.invalidParameterValue, "partition_by cannot name column \"\(name)\": a struct or an array has no folder name")
    }

    /// The file format `FORMAT … ENCODE …` names, with its options checked.
    private static func encoding(_ description: SinkDescription) throws(SluiceError) -> Encoding {
        let options = description.formatOptions
        let encode = try EncodeClause.check(
            format: description.format, encode: description.encode, options: options,
            schemas: ["PARQUET": [.choice("compression", ["zstd", "snappy", "gzip", "uncompressed", "none"])], "JSON": [], "CSV": EncodeClause.csvOptions],
            subject: "a file sink", verb: "writes")
        switch encode {
        case "PARQUET":
            switch options["compression"]?.lowercased() ?? "zstd" {
            case "snappy": return .parquet(.snappy)
            case "gzip": return .parquet(.gzip)
            case "uncompressed", "none": return .parquet(.uncompressed)
            default: return .parquet(.zstd)
            }
        case "JSON":
            return .json
        default:
            return .csv(try EncodeClause.csv(options))
        }
    }
}
