import SluiceCore

/// Chooses the ``FileIO`` for a location by its scheme, so the catalog can open a warehouse
/// named by a path or a URI without knowing which store holds it.
package enum FileIOs {
    /// The scheme a location names.
    package enum Scheme: Sendable, Hashable {
        /// `file:` URIs and absolute paths.
        case local
        /// `s3://` and `s3a://` URIs.
        case s3
    }

    /// The scheme of `location`; other schemes (`gs://`, `hdfs://`) and relative paths are a
    /// `0A000`/`22023` error naming the location.
    package static func scheme(of location: String) throws(SluiceError) -> Scheme {
        if location.hasPrefix("s3://") || location.hasPrefix("s3a://") { return .s3 }
        if location.hasPrefix("/") || location.hasPrefix("file:") { return .local }
        if let colon = location.firstIndex(of: ":"), location[colon...].hasPrefix("://") {
            throw SluiceError(.featureNotSupported, "unsupported storage location \"\(location)\"",
                              hint: "Use a local path, a file:// URI or an s3:// URI.")
        }
        throw SluiceError(.invalidParameterValue, "storage location \"\(location)\" is not absolute",
                          hint: "Use a local path, a file:// URI or an s3:// URI.")
    }

    /// The file IO for `location`: a ``LocalFileIO`` for paths and `file:` URIs, `s3` for
    /// `s3://` and `s3a://` URIs. With no `s3`, an S3 location is an error saying S3 is not
    /// configured. The caller owns `s3` and shuts it down.
    package static func resolve(location: String, s3: (any FileIO)?) throws(SluiceError) -> any FileIO {
        switch try scheme(of: location) {
        case .local:
            return LocalFileIO()
        case .s3:
            guard let s3 else {
                throw SluiceError(.invalidParameterValue, "storage location \"\(location)\" needs S3, which is not configured",
                                  hint: "Set AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_REGION, or configure the catalog's S3 options.")
            }
            return s3
        }
    }
}
