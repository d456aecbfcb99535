import SluiceCore

/// How a ``ParquetWriter`` lays out its file.
package struct ParquetWriterOptions: Hashable, Sendable {
    package var compression: ParquetCompression
    /// The zstd level when `compression` is `.zstd` (1 to 22; negative levels are zstd's fast
    /// ones). 3 by default, as zstd, DuckDB and parquet-java (Iceberg's writer) default;
    /// Arrow's default is 1, faster for files a few percent larger.
    package var zstdLevel: Int32
    /// A row group ends after the `write` call that brings its encoded size to this (rows are
    /// never split across row groups within one `write`).
    package var rowGroupBytes: Int
    /// A data page ends once its encoded values and levels reach this, before compression.
    package var pageBytes: Int
    /// A data page also ends once it holds this many entries (rounded up to the 4,096 a leaf
    /// takes at a time; leaves with repetition end pages only between batches): Arrow's
    /// default, so readers can skip by page and the writer's buffers stay in cache.
    package var pageRowLimit: Int
    /// Whether columns start dictionary-encoded (they fall back to PLAIN for the rest of the
    /// row group when the dictionary grows past `dictionaryPageBytes` or most values differ).
    package var dictionaryEnabled: Bool
    package var dictionaryPageBytes: Int
    /// `key_value_metadata` of the footer, in order.
    package var keyValueMetadata: [ParquetKeyValuePair]
    /// `created_by` of the footer.
    package var createdBy: String

    package init(
        compression: ParquetCompression = .zstd, zstdLevel: Int32 = 3, rowGroupBytes: Int = 128 << 20, pageBytes: Int = 1 << 20, pageRowLimit: Int = 20_000,
        dictionaryEnabled: Bool = true, dictionaryPageBytes: Int = 1 << 20,
        keyValueMetadata: [ParquetKeyValuePair] = [], createdBy: String = "sluice"
    ) {
        self.compression = compression
        self.zstdLevel = zstdLevel
        self.rowGroupBytes = rowGroupBytes
        self.pageBytes = pageBytes
        self.pageRowLimit = pageRowLimit
        self.dictionaryEnabled = dictionaryEnabled
        self.dictionaryPageBytes = dictionaryPageBytes
        self.keyValueMetadata = keyValueMetadata
        self.createdBy = createdBy
    }
}

/// One entry of a file's key-value metadata.
package struct ParquetKeyValuePair: Hashable, Sendable {
    package var key: String
    package var value: String?

    package init(key: String, value: String?) {
        self.key = key
        self.value = value
    }
}

/// What a finished file holds, for the caller's catalog (an Iceberg data file's metrics).
package struct ParquetFileSummary: Hashable, Sendable {
    package var rowCount: Int64
    /// The file's size in bytes, footer and magic numbers included.
    package var fileSize: Int64
    package var rowGroupCount: Int
    /// One per leaf column, in schema order (depth-first).
    package var columns: [ParquetColumnSummary]
}

/// The metrics of one leaf column over a whole file.
package struct ParquetColumnSummary: Hashable, Sendable {
    /// The leaf's path of Parquet names (`["tags", "list", "element"]` for a list's element).
    package var path: [String]
    /// The Iceberg field id of the leaf.
    package var fieldID: Int32?
    package var type: DataType
    /// Bytes of the leaf's column chunks (headers and compressed pages) over all row groups.
    package var compressedSize: Int64
    /// Entries, nulls included (Iceberg's `value_counts`).
    package var valueCount: Int64
    package var nullCount: Int64
    /// NaNs among the values, for `real` and `double precision` leaves; nil for others.
    package var nanCount: Int64?
    /// The least and greatest value not null (nor NaN); nil when there is none.
    package var min: Value?
    package var max: Value?
}
