import Testing
import SluiceCore
@testable import SluiceFormats

@Suite("JSON row decoder: documents and fields")
struct JSONRowDecoderTests {
    static let balloon: [(name: String, type: DataType)] = [
        ("player", .varchar), ("balloon_color", .varchar), ("score", .int32), ("page_id", .int32),
        ("favorite_color_bonus", .boolean), ("event_ts", .timestamptz),
    ]

    @Test func decodesSeedEvent() {
        let row = decodeOne(#"{"player": "alice", "balloon_color": "red", "score": 42, "page_id": 7, "favorite_color_bonus": true, "event_ts": "2024-05-01T12:34:56.789Z"}"#, columns: Self.balloon)
        // 2024-05-01T12:34:56.789Z = 1714566896.789 s since 1970 (Python: datetime(2024,5,1,12,34,56,789000,tzinfo=timezone.utc).timestamp()).
        #expect(row.value == [.string("alice"), .string("red"), .int32(42), .int32(7), .bool(true), .timestamptz(1_714_566_896_789_000)])
    }
}
