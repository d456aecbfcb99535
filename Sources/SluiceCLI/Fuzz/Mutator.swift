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
            case 0: ByteMutations.overwriteByte(&bytes, random: &random)
            case 1: ByteMutations.deleteRun(&bytes, upTo: 16, random: &random)
            case 2:
                let token = Array((" " + dictionary[random.next(below: dictionary.count)] + " ").utf8)
                ByteMutations.insert(token, into: &bytes, random: &random)
            case 3: ByteMutations.duplicateRun(&bytes, upTo: 32, random: &random)
            case 4: ByteMutations.splice(&bytes, with: Array(seeds[random.next(below: seeds.count)].utf8), random: &random)
            case 5: ByteMutations.truncate(&bytes, random: &random)
            case 6:
                ByteMutations.insert(Array(repeating: UInt8(ascii: "("), count: 1 + random.next(below: 40)), into: &bytes, random: &random)
            default:
                let token = Array(dictionary[random.next(below: dictionary.count)].utf8)
                bytes += [UInt8(ascii: " ")] + token
            }
        }
        return bytes
    }
}
