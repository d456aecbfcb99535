import SluiceCore

/// `sluice_checkpoints`: the recent checkpoints (the last 100), written or failed, oldest first,
/// with epoch, tables, bytes and duration. Operators check recovery points with it
/// (docs/operations.md).
enum SluiceCheckpoints: SystemTable {
    static let schema = SystemSchema.sluice
    static let name = "sluice_checkpoints"
    static let columns: [(String, DataType)] = [
        ("epoch", .int64), ("started_at", .timestamptz), ("status", .varchar), ("tables", .int32), ("bytes_written", .int64),
        ("duration_ms", .float64), ("kind", .varchar),
    ]

    static func rows(in context: SystemTableContext) -> [[Value]] {
        context.reader.checkpoints.map { record in
            [
                .int64(Int64(record.epoch)), .timestamptz(record.startedAt), .string(record.error.map { "failed: \($0)" } ?? "done"),
                .int32(Int32(record.tables)), .int64(Int64(record.bytesWritten)), .float64(Double(record.durationMicroseconds) / 1000),
                .string(record.kind),
            ]
        }
    }
}
