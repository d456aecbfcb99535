import SluiceCore
import SluiceDataflow
import SluiceFormats
import SluiceLakehouse

/// The options of a file source or table, RisingWave's:
/// - `connector = 'posix_fs'` with `posix_fs.root` (a folder), or `connector = 's3'` with
///   `s3.bucket_name`, `s3.region_name`, `s3.credentials.access`, `s3.credentials.secret` and
///   `s3.endpoint_url` (credentials from the AWS environment when not given);
/// - `match_pattern`: a glob of the files to read (`*`, `?`, `[…]` within a name, `**` across
///   folders). A pattern without `/` matches file names at any depth; one with `/` matches the
///   path under the root. Names starting with `.` or `_` (`_SUCCESS`, staging folders) are never
///   read;
/// - `refresh.interval.sec` (default 1 for posix_fs, 5 for s3): how often the folder is listed
///   for new files;
/// - `compression_format` (`none`, `gzip`; by default a file is inflated when it starts with
///   gzip's magic bytes).
struct FileSourceOptions: Sendable {
    enum Encoding: Sendable, Equatable {
        case json
        case csv(CSVTextOptions)
        case parquet
        /// A mapping a row, or a sequence of them, per document (``YAMLDocuments``).
        case yaml
    }

    enum Compression: String, Sendable {
        case auto, none, gzip
    }

    /// Where the files are: a location FileIO reads (`file:///…` or `s3://bucket/…`).
    var rootLocation: String
    var pattern: GlobPattern
    var refreshSeconds: Double
    var compression: Compression
    var encoding: Encoding
    var s3: S3Config?

    static let common: [ConnectorOption] = [
        .text("match_pattern"), .number("refresh.interval.sec", 0.01 ... 86_400), .choice("compression_format", ["none", "gzip", "auto"]),
    ]
    static let posixSchema: [ConnectorOption] = [.text("posix_fs.root", required: true)] + common
    static let s3Schema: [ConnectorOption] = [
        .text("s3.bucket_name", required: true), .text("s3.region_name"), .text("s3.credentials.access"), .text("s3.credentials.secret"),
        .text("s3.endpoint_url"), .text("s3.path"),
    ] + common

    init(_ description: SourceDescription) throws(SluiceError) {
        let options = description.options
        if description.options["connector"]?.lowercased() == "s3" {
            let bucket = options["s3.bucket_name"] ?? ""
            guard !bucket.isEmpty, !bucket.contains("/") else {
                throw SluiceError(.invalidParameterValue, "s3.bucket_name must name a bucket, not '\(bucket)'")
            }
            var prefix = options["s3.path"] ?? ""
            while prefix.hasPrefix("/") { prefix.removeFirst() }
            if !prefix.isEmpty && !prefix.hasSuffix("/") { prefix += "/" }
            rootLocation = "s3://\(bucket)/\(prefix)"
            s3 = try Self.s3Config(options)
            refreshSeconds = options["refresh.interval.sec"].flatMap { Double($0) } ?? 5
        } else {
            var root = options["posix_fs.root"] ?? ""
            if root.hasPrefix("file://") { root.removeFirst("file://".count) }
            while root.count > 1 && root.hasSuffix("/") { root.removeLast() }
            guard root.hasPrefix("/") else {
                throw SluiceError(.invalidParameterValue, "posix_fs.root must be an absolute folder, not '\(options["posix_fs.root"] ?? "")'")
            }
            rootLocation = "file://\(root == "/" ? "" : root)/"
            s3 = nil
            refreshSeconds = options["refresh.interval.sec"].flatMap { Double($0) } ?? 1
        }
        pattern = try GlobPattern(options["match_pattern"] ?? "*")
        compression = Compression(rawValue: options["compression_format"]?.lowercased() ?? "auto") ?? .auto
        encoding = try Self.encoding(description)
    }

    /// S3's settings from the `s3.*` options, the AWS environment filling in what they leave out.
    static func s3Config(_ options: [String: String]) throws(SluiceError) -> S3Config {
        let endpoint = options["s3.endpoint_url"].flatMap { $0.isEmpty ? nil : $0 }
        if let access = options["s3.credentials.access"], let secret = options["s3.credentials.secret"] {
            return S3Config(endpoint: endpoint, region: options["s3.region_name"] ?? "us-east-1", accessKeyID: access, secretAccessKey: secret)
        }
        return try S3Config.fromEnvironment(
            endpoint: endpoint, region: options["s3.region_name"], accessKeyID: options["s3.credentials.access"],
            secretAccessKey: options["s3.credentials.secret"])
    }

    private static func encoding(_ description: SourceDescription) throws(SluiceError) -> Encoding {
        let encode = try EncodeClause.check(
            format: description.format, encode: description.encode, options: description.formatOptions,
            schemas: ["PARQUET": [], "JSON": [], "CSV": EncodeClause.csvOptions, "YAML": []], subject: "a file source", verb: "reads")
        switch encode {
        case "PARQUET": return .parquet
        case "JSON": return .json
        case "YAML": return .yaml
        default: return .csv(try EncodeClause.csv(description.formatOptions))
        }
    }
}

/// A `match_pattern` glob: `*` and `?` match within one path component, `**` any number of
/// components, `[abc]`, `[a-z]` and `[!a]` one character of a set.
package struct GlobPattern: Sendable {
    private let pattern: [UInt8]
    /// Whether the pattern names whole paths (it has a `/`) or file names only.
    package let matchesPaths: Bool

    package init(_ text: String) throws(SluiceError) {
        pattern = Array(text.utf8)
        guard !pattern.isEmpty else { throw SluiceError(.invalidParameterValue, "match_pattern cannot be empty") }
        guard pattern.count <= 1024 else { throw SluiceError(.invalidParameterValue, "match_pattern is longer than 1024 characters") }
        matchesPaths = pattern.contains(UInt8(ascii: "/"))
    }

    /// Whether `path` (relative to the root, `/`-separated) matches.
    package func matches(_ path: String) -> Bool {
        let subject: [UInt8]
        if matchesPaths {
            subject = Array(path.utf8)
        } else {
            subject = Array((path.split(separator: "/").last.map(String.init) ?? path).utf8)
        }
        // Iterative matching with one backtrack point per star kind: O(pattern × subject).
        var memo = [Int8](repeating: -1, count: (pattern.count + 1) * (subject.count + 1))
        return match(0, 0, subject, &memo)
    }

    private func match(_ p: Int, _ s: Int, _ subject: [UInt8], _ memo: inout [Int8]) -> Bool {
        let key = p * (subject.count + 1) + s
        if memo[key] >= 0 { return memo[key] == 1 }
        let result: Bool
        if p == pattern.count {
            result = s == subject.count
        } else {
            let byte = pattern[p]
            switch byte {
            case UInt8(ascii: "*"):
                if p + 1 < pattern.count && pattern[p + 1] == UInt8(ascii: "*") {
                    // `**`: any characters, slashes included; `**/` also matches no folder at all.
                    let next = p + 2
                    var found = next < pattern.count && pattern[next] == UInt8(ascii: "/") && match(next + 1, s, subject, &memo)
                    var index = s
                    while !found {
                        if match(next, index, subject, &memo) { found = true; break }
                        if index == subject.count { break }
                        index += 1
                    }
                    result = found
                } else {
                    var index = s
                    var found = false
                    while true {
                        if match(p + 1, index, subject, &memo) { found = true; break }
                        if index == subject.count || subject[index] == UInt8(ascii: "/") { break }
                        index += 1
                    }
                    result = found
                }
            case UInt8(ascii: "?"):
                result = s < subject.count && subject[s] != UInt8(ascii: "/") && match(p + 1, s + 1, subject, &memo)
            case UInt8(ascii: "["):
                if s < subject.count, let (matched, end) = matchSet(p, subject[s]) {
                    result = matched && match(end, s + 1, subject, &memo)
                } else if s < subject.count {
                    // An unclosed `[` is a literal.
                    result = subject[s] == byte && match(p + 1, s + 1, subject, &memo)
                } else {
                    result = false
                }
            default:
                result = s < subject.count && subject[s] == byte && match(p + 1, s + 1, subject, &memo)
            }
        }
        memo[key] = result ? 1 : 0
        return result
    }

    /// Whether `byte` is in the set starting at `p` (`[`), and the index after its `]`; nil when
    /// the set is not closed.
    private func matchSet(_ p: Int, _ byte: UInt8) -> (Bool, Int)? {
        var index = p + 1
        var negated = false
        if index < pattern.count && (pattern[index] == UInt8(ascii: "!") || pattern[index] == UInt8(ascii: "^")) {
            negated = true
            index += 1
        }
        var matched = false
        var first = true
        while index < pattern.count {
            let current = pattern[index]
            if current == UInt8(ascii: "]") && !first { return (matched != negated, index + 1) }
            first = false
            if index + 2 < pattern.count && pattern[index + 1] == UInt8(ascii: "-") && pattern[index + 2] != UInt8(ascii: "]") {
                if byte >= current && byte <= pattern[index + 2] { matched = true }
                index += 3
            } else {
                if byte == current { matched = true }
                index += 1
            }
        }
        return nil
    }
}
