import SluiceCore
/// Byte- and token-level mutations of seed inputs.
enum Mutator {
    static let dictionary: [String] = [
        "SELECT", "FROM", "WHERE", "GROUP BY", "ORDER BY", "HAVING", "LIMIT", "OFFSET", "JOIN", "LEFT JOIN", "FULL JOIN", "ON",
        "USING", "UNION", "UNION ALL", "EXCEPT", "INTERSECT", "DISTINCT", "AND", "OR", "NOT", "IS NULL", "IS NOT DISTINCT FROM",
        "IN", "EXISTS", "BETWEEN", "LIKE", "~", "CASE WHEN", "THEN", "ELSE", "END", "CAST(", "AS", "::int", "::bigint",
        "::numeric(5,2)", "::text", "::date", "::timestamptz", "::interval", "::boolean", "::real", "(", ")", ",", "*", "/",
        "%", "+", "-", "||", "=", "<>", "<", ">=", "NULL", "0", "-1", "1", "2147483647", "9223372036854775807",
        "-9223372036854775808", "1e308", "0.000001", "'x'", "''", "'2024-02-30'", "'1 day'", "'{1,2}'", "true", "$1",
        "count(*)", "sum(", "avg(", "min(", "max(", "string_agg(", "array_agg(", "count(DISTINCT ", "FILTER (WHERE ",
        "unnest(", "generate_series(1, 3)", "ARRAY[", "]", "ROW(", "(SELECT ", "t1", "t2", "a", "b", "c", "d", "e", "k",
        "t1.a", "t2.k", "upper(", "substr(", "round(", "date_trunc('day', ", "extract(year from ", "now()", "coalesce(",
        "nullif(", ";", "INSERT INTO t1 VALUES (", "UPDATE t1 SET a = ", "DELETE FROM t2 WHERE ", "CREATE TABLE x (y int)",
        "DROP TABLE t1", "pg_catalog.pg_class", "information_schema.columns", "OPERATOR(pg_catalog.~)", "COLLATE \"C\"",
    ]

    static func mutate(_ input: [UInt8], seeds: [String], random: inout SplitMix64) -> [UInt8] {
        var bytes = input
        for _ in 0 ... random.next(below: 4) {
            switch random.next(below: 9) {
            case 0 where !bytes.isEmpty:
                bytes[random.next(below: bytes.count)] = UInt8(truncatingIfNeeded: random.next())
            case 1 where !bytes.isEmpty:
                let start = random.next(below: bytes.count)
                bytes.removeSubrange(start ..< min(bytes.count, start + 1 + random.next(below: 16)))
            case 2:
                let token = Array((" " + dictionary[random.next(below: dictionary.count)] + " ").utf8)
                bytes.insert(contentsOf: token, at: random.next(below: bytes.count + 1))
            case 3 where !bytes.isEmpty:
                let start = random.next(below: bytes.count)
                let slice = bytes[start ..< min(bytes.count, start + 1 + random.next(below: 32))]
                bytes.insert(contentsOf: slice, at: random.next(below: bytes.count + 1))
            case 4:
                let other = Array(seeds[random.next(below: seeds.count)].utf8)
                let cut = random.next(below: bytes.count + 1)
                bytes = Array(bytes[..<cut]) + other[random.next(below: other.count + 1)...]
            case 5 where !bytes.isEmpty:
                bytes = Array(bytes.prefix(random.next(below: bytes.count)))
            case 6:
                bytes.insert(contentsOf: Array(repeating: UInt8(ascii: "("), count: 1 + random.next(below: 40)), at: random.next(below: bytes.count + 1))
            default:
                let token = Array(dictionary[random.next(below: dictionary.count)].utf8)
                bytes += [UInt8(ascii: " ")] + token
            }
        }
        return bytes
    }
}
