// Generated from PostgreSQL 15.18 (TimeZone UTC, DateStyle ISO, IntervalStyle postgres,
// extra_float_digits 1) by an oracle script; do not edit by hand. Each line: numeric, int2|int4|int8.
// A result is `ok:<text>` or `err:<SQLSTATE>:<message>`.

/// numeric::int2, ::int4 and ::int8.
let decimalToIntegerCases: [[String]] = decimalToIntegerCasesText.split(separator: "\n", omittingEmptySubsequences: true).map {
    $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
}

private let decimalToIntegerCasesText = #"""
2.5	ok:3|ok:3|ok:3
-2.5	ok:-3|ok:-3|ok:-3
2.4999	ok:2|ok:2|ok:2
32767.5	err:22003:smallint out of range|ok:32768|ok:32768
32766.5	ok:32767|ok:32767|ok:32767
-32768.5	err:22003:smallint out of range|ok:-32769|ok:-32769
2147483647.4	err:22003:smallint out of range|ok:2147483647|ok:2147483647
2147483647.5	err:22003:smallint out of range|err:22003:integer out of range|ok:2147483648
9223372036854775807	err:22003:smallint out of range|err:22003:integer out of range|ok:9223372036854775807
9223372036854775807.5	err:22003:smallint out of range|err:22003:integer out of range|err:22003:bigint out of range
-9223372036854775808.5	err:22003:smallint out of range|err:22003:integer out of range|err:22003:bigint out of range
0.5	ok:1|ok:1|ok:1
-0.5	ok:-1|ok:-1|ok:-1
"""#
