// Generated from PostgreSQL 15.18 (TimeZone UTC, DateStyle ISO, IntervalStyle postgres,
// extra_float_digits 1) by an oracle script; do not edit by hand. Each line: function, argument, argument, result.
// A result is `ok:<text>` or `err:<SQLSTATE>:<message>`.

/// date_trunc, extract, timestamp and interval arithmetic, justify_*, to_timestamp.
let temporalFunctionCases: [[String]] = temporalFunctionCasesText.split(separator: "\n", omittingEmptySubsequences: true).map {
    $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
}

private let temporalFunctionCasesText = #"""
date_trunc	microseconds	2024-01-15 10:30:01.5	ok:2024-01-15 10:30:01.5
date_trunc	milliseconds	2024-01-15 10:30:01.5	ok:2024-01-15 10:30:01.5
date_trunc	second	2024-01-15 10:30:01.5	ok:2024-01-15 10:30:01
date_trunc	minute	2024-01-15 10:30:01.5	ok:2024-01-15 10:30:00
date_trunc	hour	2024-01-15 10:30:01.5	ok:2024-01-15 10:00:00
date_trunc	day	2024-01-15 10:30:01.5	ok:2024-01-15 00:00:00
date_trunc	week	2024-01-15 10:30:01.5	ok:2024-01-15 00:00:00
date_trunc	month	2024-01-15 10:30:01.5	ok:2024-01-01 00:00:00
date_trunc	quarter	2024-01-15 10:30:01.5	ok:2024-01-01 00:00:00
date_trunc	year	2024-01-15 10:30:01.5	ok:2024-01-01 00:00:00
date_trunc	decade	2024-01-15 10:30:01.5	ok:2020-01-01 00:00:00
date_trunc	century	2024-01-15 10:30:01.5	ok:2001-01-01 00:00:00
date_trunc	millennium	2024-01-15 10:30:01.5	ok:2001-01-01 00:00:00
date_trunc	microseconds	2024-12-30 00:00:00	ok:2024-12-30 00:00:00
date_trunc	milliseconds	2024-12-30 00:00:00	ok:2024-12-30 00:00:00
date_trunc	second	2024-12-30 00:00:00	ok:2024-12-30 00:00:00
date_trunc	minute	2024-12-30 00:00:00	ok:2024-12-30 00:00:00
date_trunc	hour	2024-12-30 00:00:00	ok:2024-12-30 00:00:00
date_trunc	day	2024-12-30 00:00:00	ok:2024-12-30 00:00:00
date_trunc	week	2024-12-30 00:00:00	ok:2024-12-30 00:00:00
date_trunc	month	2024-12-30 00:00:00	ok:2024-12-01 00:00:00
date_trunc	quarter	2024-12-30 00:00:00	ok:2024-10-01 00:00:00
date_trunc	year	2024-12-30 00:00:00	ok:2024-01-01 00:00:00
date_trunc	decade	2024-12-30 00:00:00	ok:2020-01-01 00:00:00
date_trunc	century	2024-12-30 00:00:00	ok:2001-01-01 00:00:00
date_trunc	millennium	2024-12-30 00:00:00	ok:2001-01-01 00:00:00
date_trunc	microseconds	2021-01-03 23:59:59.999999	ok:2021-01-03 23:59:59.999999
date_trunc	milliseconds	2021-01-03 23:59:59.999999	ok:2021-01-03 23:59:59.999
date_trunc	second	2021-01-03 23:59:59.999999	ok:2021-01-03 23:59:59
date_trunc	minute	2021-01-03 23:59:59.999999	ok:2021-01-03 23:59:00
date_trunc	hour	2021-01-03 23:59:59.999999	ok:2021-01-03 23:00:00
date_trunc	day	2021-01-03 23:59:59.999999	ok:2021-01-03 00:00:00
date_trunc	week	2021-01-03 23:59:59.999999	ok:2020-12-28 00:00:00
date_trunc	month	2021-01-03 23:59:59.999999	ok:2021-01-01 00:00:00
date_trunc	quarter	2021-01-03 23:59:59.999999	ok:2021-01-01 00:00:00
date_trunc	year	2021-01-03 23:59:59.999999	ok:2021-01-01 00:00:00
date_trunc	decade	2021-01-03 23:59:59.999999	ok:2020-01-01 00:00:00
date_trunc	century	2021-01-03 23:59:59.999999	ok:2001-01-01 00:00:00
date_trunc	millennium	2021-01-03 23:59:59.999999	ok:2001-01-01 00:00:00
date_trunc	microseconds	0044-03-15 10:30:01.5 BC	ok:0044-03-15 10:30:01.5 BC
date_trunc	milliseconds	0044-03-15 10:30:01.5 BC	ok:0044-03-15 10:30:01.5 BC
date_trunc	second	0044-03-15 10:30:01.5 BC	ok:0044-03-15 10:30:01 BC
date_trunc	minute	0044-03-15 10:30:01.5 BC	ok:0044-03-15 10:30:00 BC
date_trunc	hour	0044-03-15 10:30:01.5 BC	ok:0044-03-15 10:00:00 BC
date_trunc	day	0044-03-15 10:30:01.5 BC	ok:0044-03-15 00:00:00 BC
date_trunc	week	0044-03-15 10:30:01.5 BC	ok:0044-03-11 00:00:00 BC
date_trunc	month	0044-03-15 10:30:01.5 BC	ok:0044-03-01 00:00:00 BC
date_trunc	quarter	0044-03-15 10:30:01.5 BC	ok:0044-01-01 00:00:00 BC
date_trunc	year	0044-03-15 10:30:01.5 BC	ok:0044-01-01 00:00:00 BC
date_trunc	decade	0044-03-15 10:30:01.5 BC	ok:0051-01-01 00:00:00 BC
date_trunc	century	0044-03-15 10:30:01.5 BC	ok:0100-01-01 00:00:00 BC
date_trunc	millennium	0044-03-15 10:30:01.5 BC	ok:1000-01-01 00:00:00 BC
date_trunc	microseconds	2000-02-29 12:00:00	ok:2000-02-29 12:00:00
date_trunc	milliseconds	2000-02-29 12:00:00	ok:2000-02-29 12:00:00
date_trunc	second	2000-02-29 12:00:00	ok:2000-02-29 12:00:00
date_trunc	minute	2000-02-29 12:00:00	ok:2000-02-29 12:00:00
date_trunc	hour	2000-02-29 12:00:00	ok:2000-02-29 12:00:00
date_trunc	day	2000-02-29 12:00:00	ok:2000-02-29 00:00:00
date_trunc	week	2000-02-29 12:00:00	ok:2000-02-28 00:00:00
date_trunc	month	2000-02-29 12:00:00	ok:2000-02-01 00:00:00
date_trunc	quarter	2000-02-29 12:00:00	ok:2000-01-01 00:00:00
date_trunc	year	2000-02-29 12:00:00	ok:2000-01-01 00:00:00
date_trunc	decade	2000-02-29 12:00:00	ok:2000-01-01 00:00:00
date_trunc	century	2000-02-29 12:00:00	ok:1901-01-01 00:00:00
date_trunc	millennium	2000-02-29 12:00:00	ok:1001-01-01 00:00:00
date_trunc	microseconds	1999-12-31 23:59:59	ok:1999-12-31 23:59:59
date_trunc	milliseconds	1999-12-31 23:59:59	ok:1999-12-31 23:59:59
date_trunc	second	1999-12-31 23:59:59	ok:1999-12-31 23:59:59
date_trunc	minute	1999-12-31 23:59:59	ok:1999-12-31 23:59:00
date_trunc	hour	1999-12-31 23:59:59	ok:1999-12-31 23:00:00
date_trunc	day	1999-12-31 23:59:59	ok:1999-12-31 00:00:00
date_trunc	week	1999-12-31 23:59:59	ok:1999-12-27 00:00:00
date_trunc	month	1999-12-31 23:59:59	ok:1999-12-01 00:00:00
date_trunc	quarter	1999-12-31 23:59:59	ok:1999-10-01 00:00:00
date_trunc	year	1999-12-31 23:59:59	ok:1999-01-01 00:00:00
date_trunc	decade	1999-12-31 23:59:59	ok:1990-01-01 00:00:00
date_trunc	century	1999-12-31 23:59:59	ok:1901-01-01 00:00:00
date_trunc	millennium	1999-12-31 23:59:59	ok:1001-01-01 00:00:00
date_trunc	microseconds	0001-01-01 00:00:00	ok:0001-01-01 00:00:00
date_trunc	milliseconds	0001-01-01 00:00:00	ok:0001-01-01 00:00:00
date_trunc	second	0001-01-01 00:00:00	ok:0001-01-01 00:00:00
date_trunc	minute	0001-01-01 00:00:00	ok:0001-01-01 00:00:00
date_trunc	hour	0001-01-01 00:00:00	ok:0001-01-01 00:00:00
date_trunc	day	0001-01-01 00:00:00	ok:0001-01-01 00:00:00
date_trunc	week	0001-01-01 00:00:00	ok:0001-01-01 00:00:00
date_trunc	month	0001-01-01 00:00:00	ok:0001-01-01 00:00:00
date_trunc	quarter	0001-01-01 00:00:00	ok:0001-01-01 00:00:00
date_trunc	year	0001-01-01 00:00:00	ok:0001-01-01 00:00:00
date_trunc	decade	0001-01-01 00:00:00	ok:0001-01-01 00:00:00 BC
date_trunc	century	0001-01-01 00:00:00	ok:0001-01-01 00:00:00
date_trunc	millennium	0001-01-01 00:00:00	ok:0001-01-01 00:00:00
date_trunc	microseconds	0001-01-01 00:00:00 BC	ok:0001-01-01 00:00:00 BC
date_trunc	milliseconds	0001-01-01 00:00:00 BC	ok:0001-01-01 00:00:00 BC
date_trunc	second	0001-01-01 00:00:00 BC	ok:0001-01-01 00:00:00 BC
date_trunc	minute	0001-01-01 00:00:00 BC	ok:0001-01-01 00:00:00 BC
date_trunc	hour	0001-01-01 00:00:00 BC	ok:0001-01-01 00:00:00 BC
date_trunc	day	0001-01-01 00:00:00 BC	ok:0001-01-01 00:00:00 BC
date_trunc	week	0001-01-01 00:00:00 BC	ok:0002-12-27 00:00:00 BC
date_trunc	month	0001-01-01 00:00:00 BC	ok:0001-01-01 00:00:00 BC
date_trunc	quarter	0001-01-01 00:00:00 BC	ok:0001-01-01 00:00:00 BC
date_trunc	year	0001-01-01 00:00:00 BC	ok:0001-01-01 00:00:00 BC
date_trunc	decade	0001-01-01 00:00:00 BC	ok:0001-01-01 00:00:00 BC
date_trunc	century	0001-01-01 00:00:00 BC	ok:0100-01-01 00:00:00 BC
date_trunc	millennium	0001-01-01 00:00:00 BC	ok:1000-01-01 00:00:00 BC
date_trunc	microseconds	0010-06-15 00:00:00 BC	ok:0010-06-15 00:00:00 BC
date_trunc	milliseconds	0010-06-15 00:00:00 BC	ok:0010-06-15 00:00:00 BC
date_trunc	second	0010-06-15 00:00:00 BC	ok:0010-06-15 00:00:00 BC
date_trunc	minute	0010-06-15 00:00:00 BC	ok:0010-06-15 00:00:00 BC
date_trunc	hour	0010-06-15 00:00:00 BC	ok:0010-06-15 00:00:00 BC
date_trunc	day	0010-06-15 00:00:00 BC	ok:0010-06-15 00:00:00 BC
date_trunc	week	0010-06-15 00:00:00 BC	ok:0010-06-10 00:00:00 BC
date_trunc	month	0010-06-15 00:00:00 BC	ok:0010-06-01 00:00:00 BC
date_trunc	quarter	0010-06-15 00:00:00 BC	ok:0010-04-01 00:00:00 BC
date_trunc	year	0010-06-15 00:00:00 BC	ok:0010-01-01 00:00:00 BC
date_trunc	decade	0010-06-15 00:00:00 BC	ok:0011-01-01 00:00:00 BC
date_trunc	century	0010-06-15 00:00:00 BC	ok:0100-01-01 00:00:00 BC
date_trunc	millennium	0010-06-15 00:00:00 BC	ok:1000-01-01 00:00:00 BC
date_trunc	microseconds	2001-01-01 00:00:00	ok:2001-01-01 00:00:00
date_trunc	milliseconds	2001-01-01 00:00:00	ok:2001-01-01 00:00:00
date_trunc	second	2001-01-01 00:00:00	ok:2001-01-01 00:00:00
date_trunc	minute	2001-01-01 00:00:00	ok:2001-01-01 00:00:00
date_trunc	hour	2001-01-01 00:00:00	ok:2001-01-01 00:00:00
date_trunc	day	2001-01-01 00:00:00	ok:2001-01-01 00:00:00
date_trunc	week	2001-01-01 00:00:00	ok:2001-01-01 00:00:00
date_trunc	month	2001-01-01 00:00:00	ok:2001-01-01 00:00:00
date_trunc	quarter	2001-01-01 00:00:00	ok:2001-01-01 00:00:00
date_trunc	year	2001-01-01 00:00:00	ok:2001-01-01 00:00:00
date_trunc	decade	2001-01-01 00:00:00	ok:2000-01-01 00:00:00
date_trunc	century	2001-01-01 00:00:00	ok:2001-01-01 00:00:00
date_trunc	millennium	2001-01-01 00:00:00	ok:2001-01-01 00:00:00
date_trunc	microseconds	1970-01-01 00:00:00	ok:1970-01-01 00:00:00
date_trunc	milliseconds	1970-01-01 00:00:00	ok:1970-01-01 00:00:00
date_trunc	second	1970-01-01 00:00:00	ok:1970-01-01 00:00:00
date_trunc	minute	1970-01-01 00:00:00	ok:1970-01-01 00:00:00
date_trunc	hour	1970-01-01 00:00:00	ok:1970-01-01 00:00:00
date_trunc	day	1970-01-01 00:00:00	ok:1970-01-01 00:00:00
date_trunc	week	1970-01-01 00:00:00	ok:1969-12-29 00:00:00
date_trunc	month	1970-01-01 00:00:00	ok:1970-01-01 00:00:00
date_trunc	quarter	1970-01-01 00:00:00	ok:1970-01-01 00:00:00
date_trunc	year	1970-01-01 00:00:00	ok:1970-01-01 00:00:00
date_trunc	decade	1970-01-01 00:00:00	ok:1970-01-01 00:00:00
date_trunc	century	1970-01-01 00:00:00	ok:1901-01-01 00:00:00
date_trunc	millennium	1970-01-01 00:00:00	ok:1001-01-01 00:00:00
date_trunc	microseconds	9985-11-13 11:52:41.000000	ok:9985-11-13 11:52:41
date_trunc	milliseconds	9985-11-13 11:52:41.000000	ok:9985-11-13 11:52:41
date_trunc	second	9985-11-13 11:52:41.000000	ok:9985-11-13 11:52:41
date_trunc	minute	9985-11-13 11:52:41.000000	ok:9985-11-13 11:52:00
date_trunc	hour	9985-11-13 11:52:41.000000	ok:9985-11-13 11:00:00
date_trunc	day	9985-11-13 11:52:41.000000	ok:9985-11-13 00:00:00
date_trunc	week	9985-11-13 11:52:41.000000	ok:9985-11-11 00:00:00
date_trunc	month	9985-11-13 11:52:41.000000	ok:9985-11-01 00:00:00
date_trunc	quarter	9985-11-13 11:52:41.000000	ok:9985-10-01 00:00:00
date_trunc	year	9985-11-13 11:52:41.000000	ok:9985-01-01 00:00:00
date_trunc	decade	9985-11-13 11:52:41.000000	ok:9980-01-01 00:00:00
date_trunc	century	9985-11-13 11:52:41.000000	ok:9901-01-01 00:00:00
date_trunc	millennium	9985-11-13 11:52:41.000000	ok:9001-01-01 00:00:00
date_trunc	microseconds	7119-01-13 16:53:40.500000	ok:7119-01-13 16:53:40.5
date_trunc	milliseconds	7119-01-13 16:53:40.500000	ok:7119-01-13 16:53:40.5
date_trunc	second	7119-01-13 16:53:40.500000	ok:7119-01-13 16:53:40
date_trunc	minute	7119-01-13 16:53:40.500000	ok:7119-01-13 16:53:00
date_trunc	hour	7119-01-13 16:53:40.500000	ok:7119-01-13 16:00:00
date_trunc	day	7119-01-13 16:53:40.500000	ok:7119-01-13 00:00:00
date_trunc	week	7119-01-13 16:53:40.500000	ok:7119-01-13 00:00:00
date_trunc	month	7119-01-13 16:53:40.500000	ok:7119-01-01 00:00:00
date_trunc	quarter	7119-01-13 16:53:40.500000	ok:7119-01-01 00:00:00
date_trunc	year	7119-01-13 16:53:40.500000	ok:7119-01-01 00:00:00
date_trunc	decade	7119-01-13 16:53:40.500000	ok:7110-01-01 00:00:00
date_trunc	century	7119-01-13 16:53:40.500000	ok:7101-01-01 00:00:00
date_trunc	millennium	7119-01-13 16:53:40.500000	ok:7001-01-01 00:00:00
date_trunc	microseconds	9677-06-07 00:42:44.000000	ok:9677-06-07 00:42:44
date_trunc	milliseconds	9677-06-07 00:42:44.000000	ok:9677-06-07 00:42:44
date_trunc	second	9677-06-07 00:42:44.000000	ok:9677-06-07 00:42:44
date_trunc	minute	9677-06-07 00:42:44.000000	ok:9677-06-07 00:42:00
date_trunc	hour	9677-06-07 00:42:44.000000	ok:9677-06-07 00:00:00
date_trunc	day	9677-06-07 00:42:44.000000	ok:9677-06-07 00:00:00
date_trunc	week	9677-06-07 00:42:44.000000	ok:9677-06-07 00:00:00
date_trunc	month	9677-06-07 00:42:44.000000	ok:9677-06-01 00:00:00
date_trunc	quarter	9677-06-07 00:42:44.000000	ok:9677-04-01 00:00:00
date_trunc	year	9677-06-07 00:42:44.000000	ok:9677-01-01 00:00:00
date_trunc	decade	9677-06-07 00:42:44.000000	ok:9670-01-01 00:00:00
date_trunc	century	9677-06-07 00:42:44.000000	ok:9601-01-01 00:00:00
date_trunc	millennium	9677-06-07 00:42:44.000000	ok:9001-01-01 00:00:00
date_trunc	microseconds	2832-07-06 02:47:21.500000	ok:2832-07-06 02:47:21.5
date_trunc	milliseconds	2832-07-06 02:47:21.500000	ok:2832-07-06 02:47:21.5
date_trunc	second	2832-07-06 02:47:21.500000	ok:2832-07-06 02:47:21
date_trunc	minute	2832-07-06 02:47:21.500000	ok:2832-07-06 02:47:00
date_trunc	hour	2832-07-06 02:47:21.500000	ok:2832-07-06 02:00:00
date_trunc	day	2832-07-06 02:47:21.500000	ok:2832-07-06 00:00:00
date_trunc	week	2832-07-06 02:47:21.500000	ok:2832-07-05 00:00:00
date_trunc	month	2832-07-06 02:47:21.500000	ok:2832-07-01 00:00:00
date_trunc	quarter	2832-07-06 02:47:21.500000	ok:2832-07-01 00:00:00
date_trunc	year	2832-07-06 02:47:21.500000	ok:2832-01-01 00:00:00
date_trunc	decade	2832-07-06 02:47:21.500000	ok:2830-01-01 00:00:00
date_trunc	century	2832-07-06 02:47:21.500000	ok:2801-01-01 00:00:00
date_trunc	millennium	2832-07-06 02:47:21.500000	ok:2001-01-01 00:00:00
date_trunc	microseconds	0106-05-13 00:53:45.500000	ok:0106-05-13 00:53:45.5
date_trunc	milliseconds	0106-05-13 00:53:45.500000	ok:0106-05-13 00:53:45.5
date_trunc	second	0106-05-13 00:53:45.500000	ok:0106-05-13 00:53:45
date_trunc	minute	0106-05-13 00:53:45.500000	ok:0106-05-13 00:53:00
date_trunc	hour	0106-05-13 00:53:45.500000	ok:0106-05-13 00:00:00
date_trunc	day	0106-05-13 00:53:45.500000	ok:0106-05-13 00:00:00
date_trunc	week	0106-05-13 00:53:45.500000	ok:0106-05-10 00:00:00
date_trunc	month	0106-05-13 00:53:45.500000	ok:0106-05-01 00:00:00
date_trunc	quarter	0106-05-13 00:53:45.500000	ok:0106-04-01 00:00:00
date_trunc	year	0106-05-13 00:53:45.500000	ok:0106-01-01 00:00:00
date_trunc	decade	0106-05-13 00:53:45.500000	ok:0100-01-01 00:00:00
date_trunc	century	0106-05-13 00:53:45.500000	ok:0101-01-01 00:00:00
date_trunc	millennium	0106-05-13 00:53:45.500000	ok:0001-01-01 00:00:00
date_trunc	microseconds	5983-09-09 22:13:24.757553	ok:5983-09-09 22:13:24.757553
date_trunc	milliseconds	5983-09-09 22:13:24.757553	ok:5983-09-09 22:13:24.757
date_trunc	second	5983-09-09 22:13:24.757553	ok:5983-09-09 22:13:24
date_trunc	minute	5983-09-09 22:13:24.757553	ok:5983-09-09 22:13:00
date_trunc	hour	5983-09-09 22:13:24.757553	ok:5983-09-09 22:00:00
date_trunc	day	5983-09-09 22:13:24.757553	ok:5983-09-09 00:00:00
date_trunc	week	5983-09-09 22:13:24.757553	ok:5983-09-05 00:00:00
date_trunc	month	5983-09-09 22:13:24.757553	ok:5983-09-01 00:00:00
date_trunc	quarter	5983-09-09 22:13:24.757553	ok:5983-07-01 00:00:00
date_trunc	year	5983-09-09 22:13:24.757553	ok:5983-01-01 00:00:00
date_trunc	decade	5983-09-09 22:13:24.757553	ok:5980-01-01 00:00:00
date_trunc	century	5983-09-09 22:13:24.757553	ok:5901-01-01 00:00:00
date_trunc	millennium	5983-09-09 22:13:24.757553	ok:5001-01-01 00:00:00
date_trunc	microseconds	8510-04-27 06:35:38.000000	ok:8510-04-27 06:35:38
date_trunc	milliseconds	8510-04-27 06:35:38.000000	ok:8510-04-27 06:35:38
date_trunc	second	8510-04-27 06:35:38.000000	ok:8510-04-27 06:35:38
date_trunc	minute	8510-04-27 06:35:38.000000	ok:8510-04-27 06:35:00
date_trunc	hour	8510-04-27 06:35:38.000000	ok:8510-04-27 06:00:00
date_trunc	day	8510-04-27 06:35:38.000000	ok:8510-04-27 00:00:00
date_trunc	week	8510-04-27 06:35:38.000000	ok:8510-04-21 00:00:00
date_trunc	month	8510-04-27 06:35:38.000000	ok:8510-04-01 00:00:00
date_trunc	quarter	8510-04-27 06:35:38.000000	ok:8510-04-01 00:00:00
date_trunc	year	8510-04-27 06:35:38.000000	ok:8510-01-01 00:00:00
date_trunc	decade	8510-04-27 06:35:38.000000	ok:8510-01-01 00:00:00
date_trunc	century	8510-04-27 06:35:38.000000	ok:8501-01-01 00:00:00
date_trunc	millennium	8510-04-27 06:35:38.000000	ok:8001-01-01 00:00:00
date_trunc	microseconds	2587-03-06 22:54:58.000000	ok:2587-03-06 22:54:58
date_trunc	milliseconds	2587-03-06 22:54:58.000000	ok:2587-03-06 22:54:58
date_trunc	second	2587-03-06 22:54:58.000000	ok:2587-03-06 22:54:58
date_trunc	minute	2587-03-06 22:54:58.000000	ok:2587-03-06 22:54:00
date_trunc	hour	2587-03-06 22:54:58.000000	ok:2587-03-06 22:00:00
date_trunc	day	2587-03-06 22:54:58.000000	ok:2587-03-06 00:00:00
date_trunc	week	2587-03-06 22:54:58.000000	ok:2587-03-05 00:00:00
date_trunc	month	2587-03-06 22:54:58.000000	ok:2587-03-01 00:00:00
date_trunc	quarter	2587-03-06 22:54:58.000000	ok:2587-01-01 00:00:00
date_trunc	year	2587-03-06 22:54:58.000000	ok:2587-01-01 00:00:00
date_trunc	decade	2587-03-06 22:54:58.000000	ok:2580-01-01 00:00:00
date_trunc	century	2587-03-06 22:54:58.000000	ok:2501-01-01 00:00:00
date_trunc	millennium	2587-03-06 22:54:58.000000	ok:2001-01-01 00:00:00
date_trunc	microseconds	7107-12-07 11:47:53.500000	ok:7107-12-07 11:47:53.5
date_trunc	milliseconds	7107-12-07 11:47:53.500000	ok:7107-12-07 11:47:53.5
date_trunc	second	7107-12-07 11:47:53.500000	ok:7107-12-07 11:47:53
date_trunc	minute	7107-12-07 11:47:53.500000	ok:7107-12-07 11:47:00
date_trunc	hour	7107-12-07 11:47:53.500000	ok:7107-12-07 11:00:00
date_trunc	day	7107-12-07 11:47:53.500000	ok:7107-12-07 00:00:00
date_trunc	week	7107-12-07 11:47:53.500000	ok:7107-12-02 00:00:00
date_trunc	month	7107-12-07 11:47:53.500000	ok:7107-12-01 00:00:00
date_trunc	quarter	7107-12-07 11:47:53.500000	ok:7107-10-01 00:00:00
date_trunc	year	7107-12-07 11:47:53.500000	ok:7107-01-01 00:00:00
date_trunc	decade	7107-12-07 11:47:53.500000	ok:7100-01-01 00:00:00
date_trunc	century	7107-12-07 11:47:53.500000	ok:7101-01-01 00:00:00
date_trunc	millennium	7107-12-07 11:47:53.500000	ok:7001-01-01 00:00:00
date_trunc	microseconds	2595-01-07 08:23:48.000000	ok:2595-01-07 08:23:48
date_trunc	milliseconds	2595-01-07 08:23:48.000000	ok:2595-01-07 08:23:48
date_trunc	second	2595-01-07 08:23:48.000000	ok:2595-01-07 08:23:48
date_trunc	minute	2595-01-07 08:23:48.000000	ok:2595-01-07 08:23:00
date_trunc	hour	2595-01-07 08:23:48.000000	ok:2595-01-07 08:00:00
date_trunc	day	2595-01-07 08:23:48.000000	ok:2595-01-07 00:00:00
date_trunc	week	2595-01-07 08:23:48.000000	ok:2595-01-05 00:00:00
date_trunc	month	2595-01-07 08:23:48.000000	ok:2595-01-01 00:00:00
date_trunc	quarter	2595-01-07 08:23:48.000000	ok:2595-01-01 00:00:00
date_trunc	year	2595-01-07 08:23:48.000000	ok:2595-01-01 00:00:00
date_trunc	decade	2595-01-07 08:23:48.000000	ok:2590-01-01 00:00:00
date_trunc	century	2595-01-07 08:23:48.000000	ok:2501-01-01 00:00:00
date_trunc	millennium	2595-01-07 08:23:48.000000	ok:2001-01-01 00:00:00
date_trunc	microseconds	6533-10-10 11:32:04.702016	ok:6533-10-10 11:32:04.702016
date_trunc	milliseconds	6533-10-10 11:32:04.702016	ok:6533-10-10 11:32:04.702
date_trunc	second	6533-10-10 11:32:04.702016	ok:6533-10-10 11:32:04
date_trunc	minute	6533-10-10 11:32:04.702016	ok:6533-10-10 11:32:00
date_trunc	hour	6533-10-10 11:32:04.702016	ok:6533-10-10 11:00:00
date_trunc	day	6533-10-10 11:32:04.702016	ok:6533-10-10 00:00:00
date_trunc	week	6533-10-10 11:32:04.702016	ok:6533-10-05 00:00:00
date_trunc	month	6533-10-10 11:32:04.702016	ok:6533-10-01 00:00:00
date_trunc	quarter	6533-10-10 11:32:04.702016	ok:6533-10-01 00:00:00
date_trunc	year	6533-10-10 11:32:04.702016	ok:6533-01-01 00:00:00
date_trunc	decade	6533-10-10 11:32:04.702016	ok:6530-01-01 00:00:00
date_trunc	century	6533-10-10 11:32:04.702016	ok:6501-01-01 00:00:00
date_trunc	millennium	6533-10-10 11:32:04.702016	ok:6001-01-01 00:00:00
date_trunc	microseconds	1377-06-26 12:41:23.500000	ok:1377-06-26 12:41:23.5
date_trunc	milliseconds	1377-06-26 12:41:23.500000	ok:1377-06-26 12:41:23.5
date_trunc	second	1377-06-26 12:41:23.500000	ok:1377-06-26 12:41:23
date_trunc	minute	1377-06-26 12:41:23.500000	ok:1377-06-26 12:41:00
date_trunc	hour	1377-06-26 12:41:23.500000	ok:1377-06-26 12:00:00
date_trunc	day	1377-06-26 12:41:23.500000	ok:1377-06-26 00:00:00
date_trunc	week	1377-06-26 12:41:23.500000	ok:1377-06-23 00:00:00
date_trunc	month	1377-06-26 12:41:23.500000	ok:1377-06-01 00:00:00
date_trunc	quarter	1377-06-26 12:41:23.500000	ok:1377-04-01 00:00:00
date_trunc	year	1377-06-26 12:41:23.500000	ok:1377-01-01 00:00:00
date_trunc	decade	1377-06-26 12:41:23.500000	ok:1370-01-01 00:00:00
date_trunc	century	1377-06-26 12:41:23.500000	ok:1301-01-01 00:00:00
date_trunc	millennium	1377-06-26 12:41:23.500000	ok:1001-01-01 00:00:00
date_trunc	microseconds	4874-10-06 06:23:48.000000	ok:4874-10-06 06:23:48
date_trunc	milliseconds	4874-10-06 06:23:48.000000	ok:4874-10-06 06:23:48
date_trunc	second	4874-10-06 06:23:48.000000	ok:4874-10-06 06:23:48
date_trunc	minute	4874-10-06 06:23:48.000000	ok:4874-10-06 06:23:00
date_trunc	hour	4874-10-06 06:23:48.000000	ok:4874-10-06 06:00:00
date_trunc	day	4874-10-06 06:23:48.000000	ok:4874-10-06 00:00:00
date_trunc	week	4874-10-06 06:23:48.000000	ok:4874-10-01 00:00:00
date_trunc	month	4874-10-06 06:23:48.000000	ok:4874-10-01 00:00:00
date_trunc	quarter	4874-10-06 06:23:48.000000	ok:4874-10-01 00:00:00
date_trunc	year	4874-10-06 06:23:48.000000	ok:4874-01-01 00:00:00
date_trunc	decade	4874-10-06 06:23:48.000000	ok:4870-01-01 00:00:00
date_trunc	century	4874-10-06 06:23:48.000000	ok:4801-01-01 00:00:00
date_trunc	millennium	4874-10-06 06:23:48.000000	ok:4001-01-01 00:00:00
date_trunc	microseconds	0877-02-10 08:05:44.000000	ok:0877-02-10 08:05:44
date_trunc	milliseconds	0877-02-10 08:05:44.000000	ok:0877-02-10 08:05:44
date_trunc	second	0877-02-10 08:05:44.000000	ok:0877-02-10 08:05:44
date_trunc	minute	0877-02-10 08:05:44.000000	ok:0877-02-10 08:05:00
date_trunc	hour	0877-02-10 08:05:44.000000	ok:0877-02-10 08:00:00
date_trunc	day	0877-02-10 08:05:44.000000	ok:0877-02-10 00:00:00
date_trunc	week	0877-02-10 08:05:44.000000	ok:0877-02-08 00:00:00
date_trunc	month	0877-02-10 08:05:44.000000	ok:0877-02-01 00:00:00
date_trunc	quarter	0877-02-10 08:05:44.000000	ok:0877-01-01 00:00:00
date_trunc	year	0877-02-10 08:05:44.000000	ok:0877-01-01 00:00:00
date_trunc	decade	0877-02-10 08:05:44.000000	ok:0870-01-01 00:00:00
date_trunc	century	0877-02-10 08:05:44.000000	ok:0801-01-01 00:00:00
date_trunc	millennium	0877-02-10 08:05:44.000000	ok:0001-01-01 00:00:00
date_trunc	microseconds	7319-01-18 08:16:32.000000	ok:7319-01-18 08:16:32
date_trunc	milliseconds	7319-01-18 08:16:32.000000	ok:7319-01-18 08:16:32
date_trunc	second	7319-01-18 08:16:32.000000	ok:7319-01-18 08:16:32
date_trunc	minute	7319-01-18 08:16:32.000000	ok:7319-01-18 08:16:00
date_trunc	hour	7319-01-18 08:16:32.000000	ok:7319-01-18 08:00:00
date_trunc	day	7319-01-18 08:16:32.000000	ok:7319-01-18 00:00:00
date_trunc	week	7319-01-18 08:16:32.000000	ok:7319-01-16 00:00:00
date_trunc	month	7319-01-18 08:16:32.000000	ok:7319-01-01 00:00:00
date_trunc	quarter	7319-01-18 08:16:32.000000	ok:7319-01-01 00:00:00
date_trunc	year	7319-01-18 08:16:32.000000	ok:7319-01-01 00:00:00
date_trunc	decade	7319-01-18 08:16:32.000000	ok:7310-01-01 00:00:00
date_trunc	century	7319-01-18 08:16:32.000000	ok:7301-01-01 00:00:00
date_trunc	millennium	7319-01-18 08:16:32.000000	ok:7001-01-01 00:00:00
date_trunc	microseconds	2941-01-11 13:55:57.873043	ok:2941-01-11 13:55:57.873043
date_trunc	milliseconds	2941-01-11 13:55:57.873043	ok:2941-01-11 13:55:57.873
date_trunc	second	2941-01-11 13:55:57.873043	ok:2941-01-11 13:55:57
date_trunc	minute	2941-01-11 13:55:57.873043	ok:2941-01-11 13:55:00
date_trunc	hour	2941-01-11 13:55:57.873043	ok:2941-01-11 13:00:00
date_trunc	day	2941-01-11 13:55:57.873043	ok:2941-01-11 00:00:00
date_trunc	week	2941-01-11 13:55:57.873043	ok:2941-01-09 00:00:00
date_trunc	month	2941-01-11 13:55:57.873043	ok:2941-01-01 00:00:00
date_trunc	quarter	2941-01-11 13:55:57.873043	ok:2941-01-01 00:00:00
date_trunc	year	2941-01-11 13:55:57.873043	ok:2941-01-01 00:00:00
date_trunc	decade	2941-01-11 13:55:57.873043	ok:2940-01-01 00:00:00
date_trunc	century	2941-01-11 13:55:57.873043	ok:2901-01-01 00:00:00
date_trunc	millennium	2941-01-11 13:55:57.873043	ok:2001-01-01 00:00:00
date_trunc	microseconds	5034-06-17 23:22:48.500000	ok:5034-06-17 23:22:48.5
date_trunc	milliseconds	5034-06-17 23:22:48.500000	ok:5034-06-17 23:22:48.5
date_trunc	second	5034-06-17 23:22:48.500000	ok:5034-06-17 23:22:48
date_trunc	minute	5034-06-17 23:22:48.500000	ok:5034-06-17 23:22:00
date_trunc	hour	5034-06-17 23:22:48.500000	ok:5034-06-17 23:00:00
date_trunc	day	5034-06-17 23:22:48.500000	ok:5034-06-17 00:00:00
date_trunc	week	5034-06-17 23:22:48.500000	ok:5034-06-16 00:00:00
date_trunc	month	5034-06-17 23:22:48.500000	ok:5034-06-01 00:00:00
date_trunc	quarter	5034-06-17 23:22:48.500000	ok:5034-04-01 00:00:00
date_trunc	year	5034-06-17 23:22:48.500000	ok:5034-01-01 00:00:00
date_trunc	decade	5034-06-17 23:22:48.500000	ok:5030-01-01 00:00:00
date_trunc	century	5034-06-17 23:22:48.500000	ok:5001-01-01 00:00:00
date_trunc	millennium	5034-06-17 23:22:48.500000	ok:5001-01-01 00:00:00
date_trunc	microseconds	4873-11-14 08:15:20.500000	ok:4873-11-14 08:15:20.5
date_trunc	milliseconds	4873-11-14 08:15:20.500000	ok:4873-11-14 08:15:20.5
date_trunc	second	4873-11-14 08:15:20.500000	ok:4873-11-14 08:15:20
date_trunc	minute	4873-11-14 08:15:20.500000	ok:4873-11-14 08:15:00
date_trunc	hour	4873-11-14 08:15:20.500000	ok:4873-11-14 08:00:00
date_trunc	day	4873-11-14 08:15:20.500000	ok:4873-11-14 00:00:00
date_trunc	week	4873-11-14 08:15:20.500000	ok:4873-11-13 00:00:00
date_trunc	month	4873-11-14 08:15:20.500000	ok:4873-11-01 00:00:00
date_trunc	quarter	4873-11-14 08:15:20.500000	ok:4873-10-01 00:00:00
date_trunc	year	4873-11-14 08:15:20.500000	ok:4873-01-01 00:00:00
date_trunc	decade	4873-11-14 08:15:20.500000	ok:4870-01-01 00:00:00
date_trunc	century	4873-11-14 08:15:20.500000	ok:4801-01-01 00:00:00
date_trunc	millennium	4873-11-14 08:15:20.500000	ok:4001-01-01 00:00:00
date_trunc	microseconds	5046-05-01 16:33:45.500000	ok:5046-05-01 16:33:45.5
date_trunc	milliseconds	5046-05-01 16:33:45.500000	ok:5046-05-01 16:33:45.5
date_trunc	second	5046-05-01 16:33:45.500000	ok:5046-05-01 16:33:45
date_trunc	minute	5046-05-01 16:33:45.500000	ok:5046-05-01 16:33:00
date_trunc	hour	5046-05-01 16:33:45.500000	ok:5046-05-01 16:00:00
date_trunc	day	5046-05-01 16:33:45.500000	ok:5046-05-01 00:00:00
date_trunc	week	5046-05-01 16:33:45.500000	ok:5046-04-27 00:00:00
date_trunc	month	5046-05-01 16:33:45.500000	ok:5046-05-01 00:00:00
date_trunc	quarter	5046-05-01 16:33:45.500000	ok:5046-04-01 00:00:00
date_trunc	year	5046-05-01 16:33:45.500000	ok:5046-01-01 00:00:00
date_trunc	decade	5046-05-01 16:33:45.500000	ok:5040-01-01 00:00:00
date_trunc	century	5046-05-01 16:33:45.500000	ok:5001-01-01 00:00:00
date_trunc	millennium	5046-05-01 16:33:45.500000	ok:5001-01-01 00:00:00
date_trunc	microseconds	7461-11-07 08:01:32.630606	ok:7461-11-07 08:01:32.630606
date_trunc	milliseconds	7461-11-07 08:01:32.630606	ok:7461-11-07 08:01:32.63
date_trunc	second	7461-11-07 08:01:32.630606	ok:7461-11-07 08:01:32
date_trunc	minute	7461-11-07 08:01:32.630606	ok:7461-11-07 08:01:00
date_trunc	hour	7461-11-07 08:01:32.630606	ok:7461-11-07 08:00:00
date_trunc	day	7461-11-07 08:01:32.630606	ok:7461-11-07 00:00:00
date_trunc	week	7461-11-07 08:01:32.630606	ok:7461-11-04 00:00:00
date_trunc	month	7461-11-07 08:01:32.630606	ok:7461-11-01 00:00:00
date_trunc	quarter	7461-11-07 08:01:32.630606	ok:7461-10-01 00:00:00
date_trunc	year	7461-11-07 08:01:32.630606	ok:7461-01-01 00:00:00
date_trunc	decade	7461-11-07 08:01:32.630606	ok:7460-01-01 00:00:00
date_trunc	century	7461-11-07 08:01:32.630606	ok:7401-01-01 00:00:00
date_trunc	millennium	7461-11-07 08:01:32.630606	ok:7001-01-01 00:00:00
extract_timestamp	year	2024-01-15 10:30:01.5	ok:2024
extract_date	year	2024-01-15	ok:2024
extract_timestamp	month	2024-01-15 10:30:01.5	ok:1
extract_date	month	2024-01-15	ok:1
extract_timestamp	day	2024-01-15 10:30:01.5	ok:15
extract_date	day	2024-01-15	ok:15
extract_timestamp	hour	2024-01-15 10:30:01.5	ok:10
extract_date	hour	2024-01-15	err:0A000:unit "hour" not supported for type date
extract_timestamp	minute	2024-01-15 10:30:01.5	ok:30
extract_date	minute	2024-01-15	err:0A000:unit "minute" not supported for type date
extract_timestamp	second	2024-01-15 10:30:01.5	ok:1.500000
extract_date	second	2024-01-15	err:0A000:unit "second" not supported for type date
extract_timestamp	milliseconds	2024-01-15 10:30:01.5	ok:1500.000
extract_date	milliseconds	2024-01-15	err:0A000:unit "milliseconds" not supported for type date
extract_timestamp	microseconds	2024-01-15 10:30:01.5	ok:1500000
extract_date	microseconds	2024-01-15	err:0A000:unit "microseconds" not supported for type date
extract_timestamp	dow	2024-01-15 10:30:01.5	ok:1
extract_date	dow	2024-01-15	ok:1
extract_timestamp	isodow	2024-01-15 10:30:01.5	ok:1
extract_date	isodow	2024-01-15	ok:1
extract_timestamp	doy	2024-01-15 10:30:01.5	ok:15
extract_date	doy	2024-01-15	ok:15
extract_timestamp	week	2024-01-15 10:30:01.5	ok:3
extract_date	week	2024-01-15	ok:3
extract_timestamp	isoyear	2024-01-15 10:30:01.5	ok:2024
extract_date	isoyear	2024-01-15	ok:2024
extract_timestamp	quarter	2024-01-15 10:30:01.5	ok:1
extract_date	quarter	2024-01-15	ok:1
extract_timestamp	epoch	2024-01-15 10:30:01.5	ok:1705314601.500000
extract_date	epoch	2024-01-15	ok:1705276800
extract_timestamp	decade	2024-01-15 10:30:01.5	ok:202
extract_date	decade	2024-01-15	ok:202
extract_timestamp	century	2024-01-15 10:30:01.5	ok:21
extract_date	century	2024-01-15	ok:21
extract_timestamp	millennium	2024-01-15 10:30:01.5	ok:3
extract_date	millennium	2024-01-15	ok:3
extract_timestamp	year	2024-12-30 00:00:00	ok:2024
extract_date	year	2024-12-30	ok:2024
extract_timestamp	month	2024-12-30 00:00:00	ok:12
extract_date	month	2024-12-30	ok:12
extract_timestamp	day	2024-12-30 00:00:00	ok:30
extract_date	day	2024-12-30	ok:30
extract_timestamp	hour	2024-12-30 00:00:00	ok:0
extract_date	hour	2024-12-30	err:0A000:unit "hour" not supported for type date
extract_timestamp	minute	2024-12-30 00:00:00	ok:0
extract_date	minute	2024-12-30	err:0A000:unit "minute" not supported for type date
extract_timestamp	second	2024-12-30 00:00:00	ok:0.000000
extract_date	second	2024-12-30	err:0A000:unit "second" not supported for type date
extract_timestamp	milliseconds	2024-12-30 00:00:00	ok:0.000
extract_date	milliseconds	2024-12-30	err:0A000:unit "milliseconds" not supported for type date
extract_timestamp	microseconds	2024-12-30 00:00:00	ok:0
extract_date	microseconds	2024-12-30	err:0A000:unit "microseconds" not supported for type date
extract_timestamp	dow	2024-12-30 00:00:00	ok:1
extract_date	dow	2024-12-30	ok:1
extract_timestamp	isodow	2024-12-30 00:00:00	ok:1
extract_date	isodow	2024-12-30	ok:1
extract_timestamp	doy	2024-12-30 00:00:00	ok:365
extract_date	doy	2024-12-30	ok:365
extract_timestamp	week	2024-12-30 00:00:00	ok:1
extract_date	week	2024-12-30	ok:1
extract_timestamp	isoyear	2024-12-30 00:00:00	ok:2025
extract_date	isoyear	2024-12-30	ok:2025
extract_timestamp	quarter	2024-12-30 00:00:00	ok:4
extract_date	quarter	2024-12-30	ok:4
extract_timestamp	epoch	2024-12-30 00:00:00	ok:1735516800.000000
extract_date	epoch	2024-12-30	ok:1735516800
extract_timestamp	decade	2024-12-30 00:00:00	ok:202
extract_date	decade	2024-12-30	ok:202
extract_timestamp	century	2024-12-30 00:00:00	ok:21
extract_date	century	2024-12-30	ok:21
extract_timestamp	millennium	2024-12-30 00:00:00	ok:3
extract_date	millennium	2024-12-30	ok:3
extract_timestamp	year	2021-01-03 23:59:59.999999	ok:2021
extract_date	year	2021-01-03	ok:2021
extract_timestamp	month	2021-01-03 23:59:59.999999	ok:1
extract_date	month	2021-01-03	ok:1
extract_timestamp	day	2021-01-03 23:59:59.999999	ok:3
extract_date	day	2021-01-03	ok:3
extract_timestamp	hour	2021-01-03 23:59:59.999999	ok:23
extract_date	hour	2021-01-03	err:0A000:unit "hour" not supported for type date
extract_timestamp	minute	2021-01-03 23:59:59.999999	ok:59
extract_date	minute	2021-01-03	err:0A000:unit "minute" not supported for type date
extract_timestamp	second	2021-01-03 23:59:59.999999	ok:59.999999
extract_date	second	2021-01-03	err:0A000:unit "second" not supported for type date
extract_timestamp	milliseconds	2021-01-03 23:59:59.999999	ok:59999.999
extract_date	milliseconds	2021-01-03	err:0A000:unit "milliseconds" not supported for type date
extract_timestamp	microseconds	2021-01-03 23:59:59.999999	ok:59999999
extract_date	microseconds	2021-01-03	err:0A000:unit "microseconds" not supported for type date
extract_timestamp	dow	2021-01-03 23:59:59.999999	ok:0
extract_date	dow	2021-01-03	ok:0
extract_timestamp	isodow	2021-01-03 23:59:59.999999	ok:7
extract_date	isodow	2021-01-03	ok:7
extract_timestamp	doy	2021-01-03 23:59:59.999999	ok:3
extract_date	doy	2021-01-03	ok:3
extract_timestamp	week	2021-01-03 23:59:59.999999	ok:53
extract_date	week	2021-01-03	ok:53
extract_timestamp	isoyear	2021-01-03 23:59:59.999999	ok:2020
extract_date	isoyear	2021-01-03	ok:2020
extract_timestamp	quarter	2021-01-03 23:59:59.999999	ok:1
extract_date	quarter	2021-01-03	ok:1
extract_timestamp	epoch	2021-01-03 23:59:59.999999	ok:1609718399.999999
extract_date	epoch	2021-01-03	ok:1609632000
extract_timestamp	decade	2021-01-03 23:59:59.999999	ok:202
extract_date	decade	2021-01-03	ok:202
extract_timestamp	century	2021-01-03 23:59:59.999999	ok:21
extract_date	century	2021-01-03	ok:21
extract_timestamp	millennium	2021-01-03 23:59:59.999999	ok:3
extract_date	millennium	2021-01-03	ok:3
extract_timestamp	year	0044-03-15 10:30:01.5 BC	ok:-44
extract_date	year	0044-03-15 BC	ok:-44
extract_timestamp	month	0044-03-15 10:30:01.5 BC	ok:3
extract_date	month	0044-03-15 BC	ok:3
extract_timestamp	day	0044-03-15 10:30:01.5 BC	ok:15
extract_date	day	0044-03-15 BC	ok:15
extract_timestamp	hour	0044-03-15 10:30:01.5 BC	ok:10
extract_date	hour	0044-03-15 BC	err:0A000:unit "hour" not supported for type date
extract_timestamp	minute	0044-03-15 10:30:01.5 BC	ok:30
extract_date	minute	0044-03-15 BC	err:0A000:unit "minute" not supported for type date
extract_timestamp	second	0044-03-15 10:30:01.5 BC	ok:1.500000
extract_date	second	0044-03-15 BC	err:0A000:unit "second" not supported for type date
extract_timestamp	milliseconds	0044-03-15 10:30:01.5 BC	ok:1500.000
extract_date	milliseconds	0044-03-15 BC	err:0A000:unit "milliseconds" not supported for type date
extract_timestamp	microseconds	0044-03-15 10:30:01.5 BC	ok:1500000
extract_date	microseconds	0044-03-15 BC	err:0A000:unit "microseconds" not supported for type date
extract_timestamp	dow	0044-03-15 10:30:01.5 BC	ok:5
extract_date	dow	0044-03-15 BC	ok:5
extract_timestamp	isodow	0044-03-15 10:30:01.5 BC	ok:5
extract_date	isodow	0044-03-15 BC	ok:5
extract_timestamp	doy	0044-03-15 10:30:01.5 BC	ok:74
extract_date	doy	0044-03-15 BC	ok:74
extract_timestamp	week	0044-03-15 10:30:01.5 BC	ok:11
extract_date	week	0044-03-15 BC	ok:11
extract_timestamp	isoyear	0044-03-15 10:30:01.5 BC	ok:-44
extract_date	isoyear	0044-03-15 BC	ok:-44
extract_timestamp	quarter	0044-03-15 10:30:01.5 BC	ok:1
extract_date	quarter	0044-03-15 BC	ok:1
extract_timestamp	epoch	0044-03-15 10:30:01.5 BC	ok:-63517786198.500000
extract_date	epoch	0044-03-15 BC	ok:-63517824000
extract_timestamp	decade	0044-03-15 10:30:01.5 BC	ok:-5
extract_date	decade	0044-03-15 BC	ok:-5
extract_timestamp	century	0044-03-15 10:30:01.5 BC	ok:-1
extract_date	century	0044-03-15 BC	ok:-1
extract_timestamp	millennium	0044-03-15 10:30:01.5 BC	ok:-1
extract_date	millennium	0044-03-15 BC	ok:-1
extract_timestamp	year	2000-02-29 12:00:00	ok:2000
extract_date	year	2000-02-29	ok:2000
extract_timestamp	month	2000-02-29 12:00:00	ok:2
extract_date	month	2000-02-29	ok:2
extract_timestamp	day	2000-02-29 12:00:00	ok:29
extract_date	day	2000-02-29	ok:29
extract_timestamp	hour	2000-02-29 12:00:00	ok:12
extract_date	hour	2000-02-29	err:0A000:unit "hour" not supported for type date
extract_timestamp	minute	2000-02-29 12:00:00	ok:0
extract_date	minute	2000-02-29	err:0A000:unit "minute" not supported for type date
extract_timestamp	second	2000-02-29 12:00:00	ok:0.000000
extract_date	second	2000-02-29	err:0A000:unit "second" not supported for type date
extract_timestamp	milliseconds	2000-02-29 12:00:00	ok:0.000
extract_date	milliseconds	2000-02-29	err:0A000:unit "milliseconds" not supported for type date
extract_timestamp	microseconds	2000-02-29 12:00:00	ok:0
extract_date	microseconds	2000-02-29	err:0A000:unit "microseconds" not supported for type date
extract_timestamp	dow	2000-02-29 12:00:00	ok:2
extract_date	dow	2000-02-29	ok:2
extract_timestamp	isodow	2000-02-29 12:00:00	ok:2
extract_date	isodow	2000-02-29	ok:2
extract_timestamp	doy	2000-02-29 12:00:00	ok:60
extract_date	doy	2000-02-29	ok:60
extract_timestamp	week	2000-02-29 12:00:00	ok:9
extract_date	week	2000-02-29	ok:9
extract_timestamp	isoyear	2000-02-29 12:00:00	ok:2000
extract_date	isoyear	2000-02-29	ok:2000
extract_timestamp	quarter	2000-02-29 12:00:00	ok:1
extract_date	quarter	2000-02-29	ok:1
extract_timestamp	epoch	2000-02-29 12:00:00	ok:951825600.000000
extract_date	epoch	2000-02-29	ok:951782400
extract_timestamp	decade	2000-02-29 12:00:00	ok:200
extract_date	decade	2000-02-29	ok:200
extract_timestamp	century	2000-02-29 12:00:00	ok:20
extract_date	century	2000-02-29	ok:20
extract_timestamp	millennium	2000-02-29 12:00:00	ok:2
extract_date	millennium	2000-02-29	ok:2
extract_timestamp	year	1999-12-31 23:59:59	ok:1999
extract_date	year	1999-12-31	ok:1999
extract_timestamp	month	1999-12-31 23:59:59	ok:12
extract_date	month	1999-12-31	ok:12
extract_timestamp	day	1999-12-31 23:59:59	ok:31
extract_date	day	1999-12-31	ok:31
extract_timestamp	hour	1999-12-31 23:59:59	ok:23
extract_date	hour	1999-12-31	err:0A000:unit "hour" not supported for type date
extract_timestamp	minute	1999-12-31 23:59:59	ok:59
extract_date	minute	1999-12-31	err:0A000:unit "minute" not supported for type date
extract_timestamp	second	1999-12-31 23:59:59	ok:59.000000
extract_date	second	1999-12-31	err:0A000:unit "second" not supported for type date
extract_timestamp	milliseconds	1999-12-31 23:59:59	ok:59000.000
extract_date	milliseconds	1999-12-31	err:0A000:unit "milliseconds" not supported for type date
extract_timestamp	microseconds	1999-12-31 23:59:59	ok:59000000
extract_date	microseconds	1999-12-31	err:0A000:unit "microseconds" not supported for type date
extract_timestamp	dow	1999-12-31 23:59:59	ok:5
extract_date	dow	1999-12-31	ok:5
extract_timestamp	isodow	1999-12-31 23:59:59	ok:5
extract_date	isodow	1999-12-31	ok:5
extract_timestamp	doy	1999-12-31 23:59:59	ok:365
extract_date	doy	1999-12-31	ok:365
extract_timestamp	week	1999-12-31 23:59:59	ok:52
extract_date	week	1999-12-31	ok:52
extract_timestamp	isoyear	1999-12-31 23:59:59	ok:1999
extract_date	isoyear	1999-12-31	ok:1999
extract_timestamp	quarter	1999-12-31 23:59:59	ok:4
extract_date	quarter	1999-12-31	ok:4
extract_timestamp	epoch	1999-12-31 23:59:59	ok:946684799.000000
extract_date	epoch	1999-12-31	ok:946598400
extract_timestamp	decade	1999-12-31 23:59:59	ok:199
extract_date	decade	1999-12-31	ok:199
extract_timestamp	century	1999-12-31 23:59:59	ok:20
extract_date	century	1999-12-31	ok:20
extract_timestamp	millennium	1999-12-31 23:59:59	ok:2
extract_date	millennium	1999-12-31	ok:2
extract_timestamp	year	0001-01-01 00:00:00	ok:1
extract_date	year	0001-01-01	ok:1
extract_timestamp	month	0001-01-01 00:00:00	ok:1
extract_date	month	0001-01-01	ok:1
extract_timestamp	day	0001-01-01 00:00:00	ok:1
extract_date	day	0001-01-01	ok:1
extract_timestamp	hour	0001-01-01 00:00:00	ok:0
extract_date	hour	0001-01-01	err:0A000:unit "hour" not supported for type date
extract_timestamp	minute	0001-01-01 00:00:00	ok:0
extract_date	minute	0001-01-01	err:0A000:unit "minute" not supported for type date
extract_timestamp	second	0001-01-01 00:00:00	ok:0.000000
extract_date	second	0001-01-01	err:0A000:unit "second" not supported for type date
extract_timestamp	milliseconds	0001-01-01 00:00:00	ok:0.000
extract_date	milliseconds	0001-01-01	err:0A000:unit "milliseconds" not supported for type date
extract_timestamp	microseconds	0001-01-01 00:00:00	ok:0
extract_date	microseconds	0001-01-01	err:0A000:unit "microseconds" not supported for type date
extract_timestamp	dow	0001-01-01 00:00:00	ok:1
extract_date	dow	0001-01-01	ok:1
extract_timestamp	isodow	0001-01-01 00:00:00	ok:1
extract_date	isodow	0001-01-01	ok:1
extract_timestamp	doy	0001-01-01 00:00:00	ok:1
extract_date	doy	0001-01-01	ok:1
extract_timestamp	week	0001-01-01 00:00:00	ok:1
extract_date	week	0001-01-01	ok:1
extract_timestamp	isoyear	0001-01-01 00:00:00	ok:1
extract_date	isoyear	0001-01-01	ok:1
extract_timestamp	quarter	0001-01-01 00:00:00	ok:1
extract_date	quarter	0001-01-01	ok:1
extract_timestamp	epoch	0001-01-01 00:00:00	ok:-62135596800.000000
extract_date	epoch	0001-01-01	ok:-62135596800
extract_timestamp	decade	0001-01-01 00:00:00	ok:0
extract_date	decade	0001-01-01	ok:0
extract_timestamp	century	0001-01-01 00:00:00	ok:1
extract_date	century	0001-01-01	ok:1
extract_timestamp	millennium	0001-01-01 00:00:00	ok:1
extract_date	millennium	0001-01-01	ok:1
extract_timestamp	year	0001-01-01 00:00:00 BC	ok:-1
extract_date	year	0001-01-01 BC	ok:-1
extract_timestamp	month	0001-01-01 00:00:00 BC	ok:1
extract_date	month	0001-01-01 BC	ok:1
extract_timestamp	day	0001-01-01 00:00:00 BC	ok:1
extract_date	day	0001-01-01 BC	ok:1
extract_timestamp	hour	0001-01-01 00:00:00 BC	ok:0
extract_date	hour	0001-01-01 BC	err:0A000:unit "hour" not supported for type date
extract_timestamp	minute	0001-01-01 00:00:00 BC	ok:0
extract_date	minute	0001-01-01 BC	err:0A000:unit "minute" not supported for type date
extract_timestamp	second	0001-01-01 00:00:00 BC	ok:0.000000
extract_date	second	0001-01-01 BC	err:0A000:unit "second" not supported for type date
extract_timestamp	milliseconds	0001-01-01 00:00:00 BC	ok:0.000
extract_date	milliseconds	0001-01-01 BC	err:0A000:unit "milliseconds" not supported for type date
extract_timestamp	microseconds	0001-01-01 00:00:00 BC	ok:0
extract_date	microseconds	0001-01-01 BC	err:0A000:unit "microseconds" not supported for type date
extract_timestamp	dow	0001-01-01 00:00:00 BC	ok:6
extract_date	dow	0001-01-01 BC	ok:6
extract_timestamp	isodow	0001-01-01 00:00:00 BC	ok:6
extract_date	isodow	0001-01-01 BC	ok:6
extract_timestamp	doy	0001-01-01 00:00:00 BC	ok:1
extract_date	doy	0001-01-01 BC	ok:1
extract_timestamp	week	0001-01-01 00:00:00 BC	ok:52
extract_date	week	0001-01-01 BC	ok:52
extract_timestamp	isoyear	0001-01-01 00:00:00 BC	ok:-2
extract_date	isoyear	0001-01-01 BC	ok:-2
extract_timestamp	quarter	0001-01-01 00:00:00 BC	ok:1
extract_date	quarter	0001-01-01 BC	ok:1
extract_timestamp	epoch	0001-01-01 00:00:00 BC	ok:-62167219200.000000
extract_date	epoch	0001-01-01 BC	ok:-62167219200
extract_timestamp	decade	0001-01-01 00:00:00 BC	ok:0
extract_date	decade	0001-01-01 BC	ok:0
extract_timestamp	century	0001-01-01 00:00:00 BC	ok:-1
extract_date	century	0001-01-01 BC	ok:-1
extract_timestamp	millennium	0001-01-01 00:00:00 BC	ok:-1
extract_date	millennium	0001-01-01 BC	ok:-1
extract_timestamp	year	0010-06-15 00:00:00 BC	ok:-10
extract_date	year	0010-06-15 BC	ok:-10
extract_timestamp	month	0010-06-15 00:00:00 BC	ok:6
extract_date	month	0010-06-15 BC	ok:6
extract_timestamp	day	0010-06-15 00:00:00 BC	ok:15
extract_date	day	0010-06-15 BC	ok:15
extract_timestamp	hour	0010-06-15 00:00:00 BC	ok:0
extract_date	hour	0010-06-15 BC	err:0A000:unit "hour" not supported for type date
extract_timestamp	minute	0010-06-15 00:00:00 BC	ok:0
extract_date	minute	0010-06-15 BC	err:0A000:unit "minute" not supported for type date
extract_timestamp	second	0010-06-15 00:00:00 BC	ok:0.000000
extract_date	second	0010-06-15 BC	err:0A000:unit "second" not supported for type date
extract_timestamp	milliseconds	0010-06-15 00:00:00 BC	ok:0.000
extract_date	milliseconds	0010-06-15 BC	err:0A000:unit "milliseconds" not supported for type date
extract_timestamp	microseconds	0010-06-15 00:00:00 BC	ok:0
extract_date	microseconds	0010-06-15 BC	err:0A000:unit "microseconds" not supported for type date
extract_timestamp	dow	0010-06-15 00:00:00 BC	ok:6
extract_date	dow	0010-06-15 BC	ok:6
extract_timestamp	isodow	0010-06-15 00:00:00 BC	ok:6
extract_date	isodow	0010-06-15 BC	ok:6
extract_timestamp	doy	0010-06-15 00:00:00 BC	ok:166
extract_date	doy	0010-06-15 BC	ok:166
extract_timestamp	week	0010-06-15 00:00:00 BC	ok:24
extract_date	week	0010-06-15 BC	ok:24
extract_timestamp	isoyear	0010-06-15 00:00:00 BC	ok:-10
extract_date	isoyear	0010-06-15 BC	ok:-10
extract_timestamp	quarter	0010-06-15 00:00:00 BC	ok:2
extract_date	quarter	0010-06-15 BC	ok:2
extract_timestamp	epoch	0010-06-15 00:00:00 BC	ok:-62436960000.000000
extract_date	epoch	0010-06-15 BC	ok:-62436960000
extract_timestamp	decade	0010-06-15 00:00:00 BC	ok:-1
extract_date	decade	0010-06-15 BC	ok:-1
extract_timestamp	century	0010-06-15 00:00:00 BC	ok:-1
extract_date	century	0010-06-15 BC	ok:-1
extract_timestamp	millennium	0010-06-15 00:00:00 BC	ok:-1
extract_date	millennium	0010-06-15 BC	ok:-1
extract_timestamp	year	2001-01-01 00:00:00	ok:2001
extract_date	year	2001-01-01	ok:2001
extract_timestamp	month	2001-01-01 00:00:00	ok:1
extract_date	month	2001-01-01	ok:1
extract_timestamp	day	2001-01-01 00:00:00	ok:1
extract_date	day	2001-01-01	ok:1
extract_timestamp	hour	2001-01-01 00:00:00	ok:0
extract_date	hour	2001-01-01	err:0A000:unit "hour" not supported for type date
extract_timestamp	minute	2001-01-01 00:00:00	ok:0
extract_date	minute	2001-01-01	err:0A000:unit "minute" not supported for type date
extract_timestamp	second	2001-01-01 00:00:00	ok:0.000000
extract_date	second	2001-01-01	err:0A000:unit "second" not supported for type date
extract_timestamp	milliseconds	2001-01-01 00:00:00	ok:0.000
extract_date	milliseconds	2001-01-01	err:0A000:unit "milliseconds" not supported for type date
extract_timestamp	microseconds	2001-01-01 00:00:00	ok:0
extract_date	microseconds	2001-01-01	err:0A000:unit "microseconds" not supported for type date
extract_timestamp	dow	2001-01-01 00:00:00	ok:1
extract_date	dow	2001-01-01	ok:1
extract_timestamp	isodow	2001-01-01 00:00:00	ok:1
extract_date	isodow	2001-01-01	ok:1
extract_timestamp	doy	2001-01-01 00:00:00	ok:1
extract_date	doy	2001-01-01	ok:1
extract_timestamp	week	2001-01-01 00:00:00	ok:1
extract_date	week	2001-01-01	ok:1
extract_timestamp	isoyear	2001-01-01 00:00:00	ok:2001
extract_date	isoyear	2001-01-01	ok:2001
extract_timestamp	quarter	2001-01-01 00:00:00	ok:1
extract_date	quarter	2001-01-01	ok:1
extract_timestamp	epoch	2001-01-01 00:00:00	ok:978307200.000000
extract_date	epoch	2001-01-01	ok:978307200
extract_timestamp	decade	2001-01-01 00:00:00	ok:200
extract_date	decade	2001-01-01	ok:200
extract_timestamp	century	2001-01-01 00:00:00	ok:21
extract_date	century	2001-01-01	ok:21
extract_timestamp	millennium	2001-01-01 00:00:00	ok:3
extract_date	millennium	2001-01-01	ok:3
extract_timestamp	year	1970-01-01 00:00:00	ok:1970
extract_date	year	1970-01-01	ok:1970
extract_timestamp	month	1970-01-01 00:00:00	ok:1
extract_date	month	1970-01-01	ok:1
extract_timestamp	day	1970-01-01 00:00:00	ok:1
extract_date	day	1970-01-01	ok:1
extract_timestamp	hour	1970-01-01 00:00:00	ok:0
extract_date	hour	1970-01-01	err:0A000:unit "hour" not supported for type date
extract_timestamp	minute	1970-01-01 00:00:00	ok:0
extract_date	minute	1970-01-01	err:0A000:unit "minute" not supported for type date
extract_timestamp	second	1970-01-01 00:00:00	ok:0.000000
extract_date	second	1970-01-01	err:0A000:unit "second" not supported for type date
extract_timestamp	milliseconds	1970-01-01 00:00:00	ok:0.000
extract_date	milliseconds	1970-01-01	err:0A000:unit "milliseconds" not supported for type date
extract_timestamp	microseconds	1970-01-01 00:00:00	ok:0
extract_date	microseconds	1970-01-01	err:0A000:unit "microseconds" not supported for type date
extract_timestamp	dow	1970-01-01 00:00:00	ok:4
extract_date	dow	1970-01-01	ok:4
extract_timestamp	isodow	1970-01-01 00:00:00	ok:4
extract_date	isodow	1970-01-01	ok:4
extract_timestamp	doy	1970-01-01 00:00:00	ok:1
extract_date	doy	1970-01-01	ok:1
extract_timestamp	week	1970-01-01 00:00:00	ok:1
extract_date	week	1970-01-01	ok:1
extract_timestamp	isoyear	1970-01-01 00:00:00	ok:1970
extract_date	isoyear	1970-01-01	ok:1970
extract_timestamp	quarter	1970-01-01 00:00:00	ok:1
extract_date	quarter	1970-01-01	ok:1
extract_timestamp	epoch	1970-01-01 00:00:00	ok:0.000000
extract_date	epoch	1970-01-01	ok:0
extract_timestamp	decade	1970-01-01 00:00:00	ok:197
extract_date	decade	1970-01-01	ok:197
extract_timestamp	century	1970-01-01 00:00:00	ok:20
extract_date	century	1970-01-01	ok:20
extract_timestamp	millennium	1970-01-01 00:00:00	ok:2
extract_date	millennium	1970-01-01	ok:2
extract_timestamp	year	2237-07-09 15:49:33.000000	ok:2237
extract_date	year	2237-07-09	ok:2237
extract_timestamp	month	2237-07-09 15:49:33.000000	ok:7
extract_date	month	2237-07-09	ok:7
extract_timestamp	day	2237-07-09 15:49:33.000000	ok:9
extract_date	day	2237-07-09	ok:9
extract_timestamp	hour	2237-07-09 15:49:33.000000	ok:15
extract_date	hour	2237-07-09	err:0A000:unit "hour" not supported for type date
extract_timestamp	minute	2237-07-09 15:49:33.000000	ok:49
extract_date	minute	2237-07-09	err:0A000:unit "minute" not supported for type date
extract_timestamp	second	2237-07-09 15:49:33.000000	ok:33.000000
extract_date	second	2237-07-09	err:0A000:unit "second" not supported for type date
extract_timestamp	milliseconds	2237-07-09 15:49:33.000000	ok:33000.000
extract_date	milliseconds	2237-07-09	err:0A000:unit "milliseconds" not supported for type date
extract_timestamp	microseconds	2237-07-09 15:49:33.000000	ok:33000000
extract_date	microseconds	2237-07-09	err:0A000:unit "microseconds" not supported for type date
extract_timestamp	dow	2237-07-09 15:49:33.000000	ok:0
extract_date	dow	2237-07-09	ok:0
extract_timestamp	isodow	2237-07-09 15:49:33.000000	ok:7
extract_date	isodow	2237-07-09	ok:7
extract_timestamp	doy	2237-07-09 15:49:33.000000	ok:190
extract_date	doy	2237-07-09	ok:190
extract_timestamp	week	2237-07-09 15:49:33.000000	ok:27
extract_date	week	2237-07-09	ok:27
extract_timestamp	isoyear	2237-07-09 15:49:33.000000	ok:2237
extract_date	isoyear	2237-07-09	ok:2237
extract_timestamp	quarter	2237-07-09 15:49:33.000000	ok:3
extract_date	quarter	2237-07-09	ok:3
extract_timestamp	epoch	2237-07-09 15:49:33.000000	ok:8442114573.000000
extract_date	epoch	2237-07-09	ok:8442057600
extract_timestamp	decade	2237-07-09 15:49:33.000000	ok:223
extract_date	decade	2237-07-09	ok:223
extract_timestamp	century	2237-07-09 15:49:33.000000	ok:23
extract_date	century	2237-07-09	ok:23
extract_timestamp	millennium	2237-07-09 15:49:33.000000	ok:3
extract_date	millennium	2237-07-09	ok:3
extract_timestamp	year	4660-12-24 15:22:29.000000	ok:4660
extract_date	year	4660-12-24	ok:4660
extract_timestamp	month	4660-12-24 15:22:29.000000	ok:12
extract_date	month	4660-12-24	ok:12
extract_timestamp	day	4660-12-24 15:22:29.000000	ok:24
extract_date	day	4660-12-24	ok:24
extract_timestamp	hour	4660-12-24 15:22:29.000000	ok:15
extract_date	hour	4660-12-24	err:0A000:unit "hour" not supported for type date
extract_timestamp	minute	4660-12-24 15:22:29.000000	ok:22
extract_date	minute	4660-12-24	err:0A000:unit "minute" not supported for type date
extract_timestamp	second	4660-12-24 15:22:29.000000	ok:29.000000
extract_date	second	4660-12-24	err:0A000:unit "second" not supported for type date
extract_timestamp	milliseconds	4660-12-24 15:22:29.000000	ok:29000.000
extract_date	milliseconds	4660-12-24	err:0A000:unit "milliseconds" not supported for type date
extract_timestamp	microseconds	4660-12-24 15:22:29.000000	ok:29000000
extract_date	microseconds	4660-12-24	err:0A000:unit "microseconds" not supported for type date
extract_timestamp	dow	4660-12-24 15:22:29.000000	ok:1
extract_date	dow	4660-12-24	ok:1
extract_timestamp	isodow	4660-12-24 15:22:29.000000	ok:1
extract_date	isodow	4660-12-24	ok:1
extract_timestamp	doy	4660-12-24 15:22:29.000000	ok:359
extract_date	doy	4660-12-24	ok:359
extract_timestamp	week	4660-12-24 15:22:29.000000	ok:52
extract_date	week	4660-12-24	ok:52
extract_timestamp	isoyear	4660-12-24 15:22:29.000000	ok:4660
extract_date	isoyear	4660-12-24	ok:4660
extract_timestamp	quarter	4660-12-24 15:22:29.000000	ok:4
extract_date	quarter	4660-12-24	ok:4
extract_timestamp	epoch	4660-12-24 15:22:29.000000	ok:84919159349.000000
extract_date	epoch	4660-12-24	ok:84919104000
extract_timestamp	decade	4660-12-24 15:22:29.000000	ok:466
extract_date	decade	4660-12-24	ok:466
extract_timestamp	century	4660-12-24 15:22:29.000000	ok:47
extract_date	century	4660-12-24	ok:47
extract_timestamp	millennium	4660-12-24 15:22:29.000000	ok:5
extract_date	millennium	4660-12-24	ok:5
extract_timestamp	year	7668-03-05 03:23:54.000000	ok:7668
extract_date	year	7668-03-05	ok:7668
extract_timestamp	month	7668-03-05 03:23:54.000000	ok:3
extract_date	month	7668-03-05	ok:3
extract_timestamp	day	7668-03-05 03:23:54.000000	ok:5
extract_date	day	7668-03-05	ok:5
extract_timestamp	hour	7668-03-05 03:23:54.000000	ok:3
extract_date	hour	7668-03-05	err:0A000:unit "hour" not supported for type date
extract_timestamp	minute	7668-03-05 03:23:54.000000	ok:23
extract_date	minute	7668-03-05	err:0A000:unit "minute" not supported for type date
extract_timestamp	second	7668-03-05 03:23:54.000000	ok:54.000000
extract_date	second	7668-03-05	err:0A000:unit "second" not supported for type date
extract_timestamp	milliseconds	7668-03-05 03:23:54.000000	ok:54000.000
extract_date	milliseconds	7668-03-05	err:0A000:unit "milliseconds" not supported for type date
extract_timestamp	microseconds	7668-03-05 03:23:54.000000	ok:54000000
extract_date	microseconds	7668-03-05	err:0A000:unit "microseconds" not supported for type date
extract_timestamp	dow	7668-03-05 03:23:54.000000	ok:1
extract_date	dow	7668-03-05	ok:1
extract_timestamp	isodow	7668-03-05 03:23:54.000000	ok:1
extract_date	isodow	7668-03-05	ok:1
extract_timestamp	doy	7668-03-05 03:23:54.000000	ok:65
extract_date	doy	7668-03-05	ok:65
extract_timestamp	week	7668-03-05 03:23:54.000000	ok:10
extract_date	week	7668-03-05	ok:10
extract_timestamp	isoyear	7668-03-05 03:23:54.000000	ok:7668
extract_date	isoyear	7668-03-05	ok:7668
extract_timestamp	quarter	7668-03-05 03:23:54.000000	ok:1
extract_date	quarter	7668-03-05	ok:1
extract_timestamp	epoch	7668-03-05 03:23:54.000000	ok:179817074634.000000
extract_date	epoch	7668-03-05	ok:179817062400
extract_timestamp	decade	7668-03-05 03:23:54.000000	ok:766
extract_date	decade	7668-03-05	ok:766
extract_timestamp	century	7668-03-05 03:23:54.000000	ok:77
extract_date	century	7668-03-05	ok:77
extract_timestamp	millennium	7668-03-05 03:23:54.000000	ok:8
extract_date	millennium	7668-03-05	ok:8
extract_timestamp	year	4246-12-04 23:09:45.000000	ok:4246
extract_date	year	4246-12-04	ok:4246
extract_timestamp	month	4246-12-04 23:09:45.000000	ok:12
extract_date	month	4246-12-04	ok:12
extract_timestamp	day	4246-12-04 23:09:45.000000	ok:4
extract_date	day	4246-12-04	ok:4
extract_timestamp	hour	4246-12-04 23:09:45.000000	ok:23
extract_date	hour	4246-12-04	err:0A000:unit "hour" not supported for type date
extract_timestamp	minute	4246-12-04 23:09:45.000000	ok:9
extract_date	minute	4246-12-04	err:0A000:unit "minute" not supported for type date
extract_timestamp	second	4246-12-04 23:09:45.000000	ok:45.000000
extract_date	second	4246-12-04	err:0A000:unit "second" not supported for type date
extract_timestamp	milliseconds	4246-12-04 23:09:45.000000	ok:45000.000
extract_date	milliseconds	4246-12-04	err:0A000:unit "milliseconds" not supported for type date
extract_timestamp	microseconds	4246-12-04 23:09:45.000000	ok:45000000
extract_date	microseconds	4246-12-04	err:0A000:unit "microseconds" not supported for type date
extract_timestamp	dow	4246-12-04 23:09:45.000000	ok:5
extract_date	dow	4246-12-04	ok:5
extract_timestamp	isodow	4246-12-04 23:09:45.000000	ok:5
extract_date	isodow	4246-12-04	ok:5
extract_timestamp	doy	4246-12-04 23:09:45.000000	ok:338
extract_date	doy	4246-12-04	ok:338
extract_timestamp	week	4246-12-04 23:09:45.000000	ok:49
extract_date	week	4246-12-04	ok:49
extract_timestamp	isoyear	4246-12-04 23:09:45.000000	ok:4246
extract_date	isoyear	4246-12-04	ok:4246
extract_timestamp	quarter	4246-12-04 23:09:45.000000	ok:4
extract_date	quarter	4246-12-04	ok:4
extract_timestamp	epoch	4246-12-04 23:09:45.000000	ok:71852828985.000000
extract_date	epoch	4246-12-04	ok:71852745600
extract_timestamp	decade	4246-12-04 23:09:45.000000	ok:424
extract_date	decade	4246-12-04	ok:424
extract_timestamp	century	4246-12-04 23:09:45.000000	ok:43
extract_date	century	4246-12-04	ok:43
extract_timestamp	millennium	4246-12-04 23:09:45.000000	ok:5
extract_date	millennium	4246-12-04	ok:5
extract_timestamp	year	8159-04-20 10:05:28.372265	ok:8159
extract_date	year	8159-04-20	ok:8159
extract_timestamp	month	8159-04-20 10:05:28.372265	ok:4
extract_date	month	8159-04-20	ok:4
extract_timestamp	day	8159-04-20 10:05:28.372265	ok:20
extract_date	day	8159-04-20	ok:20
extract_timestamp	hour	8159-04-20 10:05:28.372265	ok:10
extract_date	hour	8159-04-20	err:0A000:unit "hour" not supported for type date
extract_timestamp	minute	8159-04-20 10:05:28.372265	ok:5
extract_date	minute	8159-04-20	err:0A000:unit "minute" not supported for type date
extract_timestamp	second	8159-04-20 10:05:28.372265	ok:28.372265
extract_date	second	8159-04-20	err:0A000:unit "second" not supported for type date
extract_timestamp	milliseconds	8159-04-20 10:05:28.372265	ok:28372.265
extract_date	milliseconds	8159-04-20	err:0A000:unit "milliseconds" not supported for type date
extract_timestamp	microseconds	8159-04-20 10:05:28.372265	ok:28372265
extract_date	microseconds	8159-04-20	err:0A000:unit "microseconds" not supported for type date
extract_timestamp	dow	8159-04-20 10:05:28.372265	ok:5
extract_date	dow	8159-04-20	ok:5
extract_timestamp	isodow	8159-04-20 10:05:28.372265	ok:5
extract_date	isodow	8159-04-20	ok:5
extract_timestamp	doy	8159-04-20 10:05:28.372265	ok:110
extract_date	doy	8159-04-20	ok:110
extract_timestamp	week	8159-04-20 10:05:28.372265	ok:16
extract_date	week	8159-04-20	ok:16
extract_timestamp	isoyear	8159-04-20 10:05:28.372265	ok:8159
extract_date	isoyear	8159-04-20	ok:8159
extract_timestamp	quarter	8159-04-20 10:05:28.372265	ok:2
extract_date	quarter	8159-04-20	ok:2
extract_timestamp	epoch	8159-04-20 10:05:28.372265	ok:195315444328.372265
extract_date	epoch	8159-04-20	ok:195315408000
extract_timestamp	decade	8159-04-20 10:05:28.372265	ok:815
extract_date	decade	8159-04-20	ok:815
extract_timestamp	century	8159-04-20 10:05:28.372265	ok:82
extract_date	century	8159-04-20	ok:82
extract_timestamp	millennium	8159-04-20 10:05:28.372265	ok:9
extract_date	millennium	8159-04-20	ok:9
extract_timestamp	year	0294-06-23 15:06:53.000000	ok:294
extract_date	year	0294-06-23	ok:294
extract_timestamp	month	0294-06-23 15:06:53.000000	ok:6
extract_date	month	0294-06-23	ok:6
extract_timestamp	day	0294-06-23 15:06:53.000000	ok:23
extract_date	day	0294-06-23	ok:23
extract_timestamp	hour	0294-06-23 15:06:53.000000	ok:15
extract_date	hour	0294-06-23	err:0A000:unit "hour" not supported for type date
extract_timestamp	minute	0294-06-23 15:06:53.000000	ok:6
extract_date	minute	0294-06-23	err:0A000:unit "minute" not supported for type date
extract_timestamp	second	0294-06-23 15:06:53.000000	ok:53.000000
extract_date	second	0294-06-23	err:0A000:unit "second" not supported for type date
extract_timestamp	milliseconds	0294-06-23 15:06:53.000000	ok:53000.000
extract_date	milliseconds	0294-06-23	err:0A000:unit "milliseconds" not supported for type date
extract_timestamp	microseconds	0294-06-23 15:06:53.000000	ok:53000000
extract_date	microseconds	0294-06-23	err:0A000:unit "microseconds" not supported for type date
extract_timestamp	dow	0294-06-23 15:06:53.000000	ok:6
extract_date	dow	0294-06-23	ok:6
extract_timestamp	isodow	0294-06-23 15:06:53.000000	ok:6
extract_date	isodow	0294-06-23	ok:6
extract_timestamp	doy	0294-06-23 15:06:53.000000	ok:174
extract_date	doy	0294-06-23	ok:174
extract_timestamp	week	0294-06-23 15:06:53.000000	ok:25
extract_date	week	0294-06-23	ok:25
extract_timestamp	isoyear	0294-06-23 15:06:53.000000	ok:294
extract_date	isoyear	0294-06-23	ok:294
extract_timestamp	quarter	0294-06-23 15:06:53.000000	ok:2
extract_date	quarter	0294-06-23	ok:2
extract_timestamp	epoch	0294-06-23 15:06:53.000000	ok:-52874412787.000000
extract_date	epoch	0294-06-23	ok:-52874467200
extract_timestamp	decade	0294-06-23 15:06:53.000000	ok:29
extract_date	decade	0294-06-23	ok:29
extract_timestamp	century	0294-06-23 15:06:53.000000	ok:3
extract_date	century	0294-06-23	ok:3
extract_timestamp	millennium	0294-06-23 15:06:53.000000	ok:1
extract_date	millennium	0294-06-23	ok:1
extract_timestamp	year	4633-08-18 12:37:29.851684	ok:4633
extract_date	year	4633-08-18	ok:4633
extract_timestamp	month	4633-08-18 12:37:29.851684	ok:8
extract_date	month	4633-08-18	ok:8
extract_timestamp	day	4633-08-18 12:37:29.851684	ok:18
extract_date	day	4633-08-18	ok:18
extract_timestamp	hour	4633-08-18 12:37:29.851684	ok:12
extract_date	hour	4633-08-18	err:0A000:unit "hour" not supported for type date
extract_timestamp	minute	4633-08-18 12:37:29.851684	ok:37
extract_date	minute	4633-08-18	err:0A000:unit "minute" not supported for type date
extract_timestamp	second	4633-08-18 12:37:29.851684	ok:29.851684
extract_date	second	4633-08-18	err:0A000:unit "second" not supported for type date
extract_timestamp	milliseconds	4633-08-18 12:37:29.851684	ok:29851.684
extract_date	milliseconds	4633-08-18	err:0A000:unit "milliseconds" not supported for type date
extract_timestamp	microseconds	4633-08-18 12:37:29.851684	ok:29851684
extract_date	microseconds	4633-08-18	err:0A000:unit "microseconds" not supported for type date
extract_timestamp	dow	4633-08-18 12:37:29.851684	ok:0
extract_date	dow	4633-08-18	ok:0
extract_timestamp	isodow	4633-08-18 12:37:29.851684	ok:7
extract_date	isodow	4633-08-18	ok:7
extract_timestamp	doy	4633-08-18 12:37:29.851684	ok:230
extract_date	doy	4633-08-18	ok:230
extract_timestamp	week	4633-08-18 12:37:29.851684	ok:33
extract_date	week	4633-08-18	ok:33
extract_timestamp	isoyear	4633-08-18 12:37:29.851684	ok:4633
extract_date	isoyear	4633-08-18	ok:4633
extract_timestamp	quarter	4633-08-18 12:37:29.851684	ok:3
extract_date	quarter	4633-08-18	ok:3
extract_timestamp	epoch	4633-08-18 12:37:29.851684	ok:84056013449.851684
extract_date	epoch	4633-08-18	ok:84055968000
extract_timestamp	decade	4633-08-18 12:37:29.851684	ok:463
extract_date	decade	4633-08-18	ok:463
extract_timestamp	century	4633-08-18 12:37:29.851684	ok:47
extract_date	century	4633-08-18	ok:47
extract_timestamp	millennium	4633-08-18 12:37:29.851684	ok:5
extract_date	millennium	4633-08-18	ok:5
extract_timestamp	year	3657-08-05 03:47:34.000000	ok:3657
extract_date	year	3657-08-05	ok:3657
extract_timestamp	month	3657-08-05 03:47:34.000000	ok:8
extract_date	month	3657-08-05	ok:8
extract_timestamp	day	3657-08-05 03:47:34.000000	ok:5
extract_date	day	3657-08-05	ok:5
extract_timestamp	hour	3657-08-05 03:47:34.000000	ok:3
extract_date	hour	3657-08-05	err:0A000:unit "hour" not supported for type date
extract_timestamp	minute	3657-08-05 03:47:34.000000	ok:47
extract_date	minute	3657-08-05	err:0A000:unit "minute" not supported for type date
extract_timestamp	second	3657-08-05 03:47:34.000000	ok:34.000000
extract_date	second	3657-08-05	err:0A000:unit "second" not supported for type date
extract_timestamp	milliseconds	3657-08-05 03:47:34.000000	ok:34000.000
extract_date	milliseconds	3657-08-05	err:0A000:unit "milliseconds" not supported for type date
extract_timestamp	microseconds	3657-08-05 03:47:34.000000	ok:34000000
extract_date	microseconds	3657-08-05	err:0A000:unit "microseconds" not supported for type date
extract_timestamp	dow	3657-08-05 03:47:34.000000	ok:0
extract_date	dow	3657-08-05	ok:0
extract_timestamp	isodow	3657-08-05 03:47:34.000000	ok:7
extract_date	isodow	3657-08-05	ok:7
extract_timestamp	doy	3657-08-05 03:47:34.000000	ok:217
extract_date	doy	3657-08-05	ok:217
extract_timestamp	week	3657-08-05 03:47:34.000000	ok:31
extract_date	week	3657-08-05	ok:31
extract_timestamp	isoyear	3657-08-05 03:47:34.000000	ok:3657
extract_date	isoyear	3657-08-05	ok:3657
extract_timestamp	quarter	3657-08-05 03:47:34.000000	ok:3
extract_date	quarter	3657-08-05	ok:3
extract_timestamp	epoch	3657-08-05 03:47:34.000000	ok:53255332054.000000
extract_date	epoch	3657-08-05	ok:53255318400
extract_timestamp	decade	3657-08-05 03:47:34.000000	ok:365
extract_date	decade	3657-08-05	ok:365
extract_timestamp	century	3657-08-05 03:47:34.000000	ok:37
extract_date	century	3657-08-05	ok:37
extract_timestamp	millennium	3657-08-05 03:47:34.000000	ok:4
extract_date	millennium	3657-08-05	ok:4
extract_timestamp	year	8775-08-22 11:08:27.000000	ok:8775
extract_date	year	8775-08-22	ok:8775
extract_timestamp	month	8775-08-22 11:08:27.000000	ok:8
extract_date	month	8775-08-22	ok:8
extract_timestamp	day	8775-08-22 11:08:27.000000	ok:22
extract_date	day	8775-08-22	ok:22
extract_timestamp	hour	8775-08-22 11:08:27.000000	ok:11
extract_date	hour	8775-08-22	err:0A000:unit "hour" not supported for type date
extract_timestamp	minute	8775-08-22 11:08:27.000000	ok:8
extract_date	minute	8775-08-22	err:0A000:unit "minute" not supported for type date
extract_timestamp	second	8775-08-22 11:08:27.000000	ok:27.000000
extract_date	second	8775-08-22	err:0A000:unit "second" not supported for type date
extract_timestamp	milliseconds	8775-08-22 11:08:27.000000	ok:27000.000
extract_date	milliseconds	8775-08-22	err:0A000:unit "milliseconds" not supported for type date
extract_timestamp	microseconds	8775-08-22 11:08:27.000000	ok:27000000
extract_date	microseconds	8775-08-22	err:0A000:unit "microseconds" not supported for type date
extract_timestamp	dow	8775-08-22 11:08:27.000000	ok:5
extract_date	dow	8775-08-22	ok:5
extract_timestamp	isodow	8775-08-22 11:08:27.000000	ok:5
extract_date	isodow	8775-08-22	ok:5
extract_timestamp	doy	8775-08-22 11:08:27.000000	ok:234
extract_date	doy	8775-08-22	ok:234
extract_timestamp	week	8775-08-22 11:08:27.000000	ok:34
extract_date	week	8775-08-22	ok:34
extract_timestamp	isoyear	8775-08-22 11:08:27.000000	ok:8775
extract_date	isoyear	8775-08-22	ok:8775
extract_timestamp	quarter	8775-08-22 11:08:27.000000	ok:3
extract_date	quarter	8775-08-22	ok:3
extract_timestamp	epoch	8775-08-22 11:08:27.000000	ok:214765211307.000000
extract_date	epoch	8775-08-22	ok:214765171200
extract_timestamp	decade	8775-08-22 11:08:27.000000	ok:877
extract_date	decade	8775-08-22	ok:877
extract_timestamp	century	8775-08-22 11:08:27.000000	ok:88
extract_date	century	8775-08-22	ok:88
extract_timestamp	millennium	8775-08-22 11:08:27.000000	ok:9
extract_date	millennium	8775-08-22	ok:9
extract_timestamp	year	5140-06-15 21:22:42.500000	ok:5140
extract_date	year	5140-06-15	ok:5140
extract_timestamp	month	5140-06-15 21:22:42.500000	ok:6
extract_date	month	5140-06-15	ok:6
extract_timestamp	day	5140-06-15 21:22:42.500000	ok:15
extract_date	day	5140-06-15	ok:15
extract_timestamp	hour	5140-06-15 21:22:42.500000	ok:21
extract_date	hour	5140-06-15	err:0A000:unit "hour" not supported for type date
extract_timestamp	minute	5140-06-15 21:22:42.500000	ok:22
extract_date	minute	5140-06-15	err:0A000:unit "minute" not supported for type date
extract_timestamp	second	5140-06-15 21:22:42.500000	ok:42.500000
extract_date	second	5140-06-15	err:0A000:unit "second" not supported for type date
extract_timestamp	milliseconds	5140-06-15 21:22:42.500000	ok:42500.000
extract_date	milliseconds	5140-06-15	err:0A000:unit "milliseconds" not supported for type date
extract_timestamp	microseconds	5140-06-15 21:22:42.500000	ok:42500000
extract_date	microseconds	5140-06-15	err:0A000:unit "microseconds" not supported for type date
extract_timestamp	dow	5140-06-15 21:22:42.500000	ok:6
extract_date	dow	5140-06-15	ok:6
extract_timestamp	isodow	5140-06-15 21:22:42.500000	ok:6
extract_date	isodow	5140-06-15	ok:6
extract_timestamp	doy	5140-06-15 21:22:42.500000	ok:167
extract_date	doy	5140-06-15	ok:167
extract_timestamp	week	5140-06-15 21:22:42.500000	ok:24
extract_date	week	5140-06-15	ok:24
extract_timestamp	isoyear	5140-06-15 21:22:42.500000	ok:5140
extract_date	isoyear	5140-06-15	ok:5140
extract_timestamp	quarter	5140-06-15 21:22:42.500000	ok:2
extract_date	quarter	5140-06-15	ok:2
extract_timestamp	epoch	5140-06-15 21:22:42.500000	ok:100049894562.500000
extract_date	epoch	5140-06-15	ok:100049817600
extract_timestamp	decade	5140-06-15 21:22:42.500000	ok:514
extract_date	decade	5140-06-15	ok:514
extract_timestamp	century	5140-06-15 21:22:42.500000	ok:52
extract_date	century	5140-06-15	ok:52
extract_timestamp	millennium	5140-06-15 21:22:42.500000	ok:6
extract_date	millennium	5140-06-15	ok:6
extract_timestamp	year	4354-07-18 08:25:41.616590	ok:4354
extract_date	year	4354-07-18	ok:4354
extract_timestamp	month	4354-07-18 08:25:41.616590	ok:7
extract_date	month	4354-07-18	ok:7
extract_timestamp	day	4354-07-18 08:25:41.616590	ok:18
extract_date	day	4354-07-18	ok:18
extract_timestamp	hour	4354-07-18 08:25:41.616590	ok:8
extract_date	hour	4354-07-18	err:0A000:unit "hour" not supported for type date
extract_timestamp	minute	4354-07-18 08:25:41.616590	ok:25
extract_date	minute	4354-07-18	err:0A000:unit "minute" not supported for type date
extract_timestamp	second	4354-07-18 08:25:41.616590	ok:41.616590
extract_date	second	4354-07-18	err:0A000:unit "second" not supported for type date
extract_timestamp	milliseconds	4354-07-18 08:25:41.616590	ok:41616.590
extract_date	milliseconds	4354-07-18	err:0A000:unit "milliseconds" not supported for type date
extract_timestamp	microseconds	4354-07-18 08:25:41.616590	ok:41616590
extract_date	microseconds	4354-07-18	err:0A000:unit "microseconds" not supported for type date
extract_timestamp	dow	4354-07-18 08:25:41.616590	ok:0
extract_date	dow	4354-07-18	ok:0
extract_timestamp	isodow	4354-07-18 08:25:41.616590	ok:7
extract_date	isodow	4354-07-18	ok:7
extract_timestamp	doy	4354-07-18 08:25:41.616590	ok:199
extract_date	doy	4354-07-18	ok:199
extract_timestamp	week	4354-07-18 08:25:41.616590	ok:28
extract_date	week	4354-07-18	ok:28
extract_timestamp	isoyear	4354-07-18 08:25:41.616590	ok:4354
extract_date	isoyear	4354-07-18	ok:4354
extract_timestamp	quarter	4354-07-18 08:25:41.616590	ok:3
extract_date	quarter	4354-07-18	ok:3
extract_timestamp	epoch	4354-07-18 08:25:41.616590	ok:75248900741.616590
extract_date	epoch	4354-07-18	ok:75248870400
extract_timestamp	decade	4354-07-18 08:25:41.616590	ok:435
extract_date	decade	4354-07-18	ok:435
extract_timestamp	century	4354-07-18 08:25:41.616590	ok:44
extract_date	century	4354-07-18	ok:44
extract_timestamp	millennium	4354-07-18 08:25:41.616590	ok:5
extract_date	millennium	4354-07-18	ok:5
extract_timestamp	year	1272-03-09 12:43:11.128067	ok:1272
extract_date	year	1272-03-09	ok:1272
extract_timestamp	month	1272-03-09 12:43:11.128067	ok:3
extract_date	month	1272-03-09	ok:3
extract_timestamp	day	1272-03-09 12:43:11.128067	ok:9
extract_date	day	1272-03-09	ok:9
extract_timestamp	hour	1272-03-09 12:43:11.128067	ok:12
extract_date	hour	1272-03-09	err:0A000:unit "hour" not supported for type date
extract_timestamp	minute	1272-03-09 12:43:11.128067	ok:43
extract_date	minute	1272-03-09	err:0A000:unit "minute" not supported for type date
extract_timestamp	second	1272-03-09 12:43:11.128067	ok:11.128067
extract_date	second	1272-03-09	err:0A000:unit "second" not supported for type date
extract_timestamp	milliseconds	1272-03-09 12:43:11.128067	ok:11128.067
extract_date	milliseconds	1272-03-09	err:0A000:unit "milliseconds" not supported for type date
extract_timestamp	microseconds	1272-03-09 12:43:11.128067	ok:11128067
extract_date	microseconds	1272-03-09	err:0A000:unit "microseconds" not supported for type date
extract_timestamp	dow	1272-03-09 12:43:11.128067	ok:3
extract_date	dow	1272-03-09	ok:3
extract_timestamp	isodow	1272-03-09 12:43:11.128067	ok:3
extract_date	isodow	1272-03-09	ok:3
extract_timestamp	doy	1272-03-09 12:43:11.128067	ok:69
extract_date	doy	1272-03-09	ok:69
extract_timestamp	week	1272-03-09 12:43:11.128067	ok:10
extract_date	week	1272-03-09	ok:10
extract_timestamp	isoyear	1272-03-09 12:43:11.128067	ok:1272
extract_date	isoyear	1272-03-09	ok:1272
extract_timestamp	quarter	1272-03-09 12:43:11.128067	ok:1
extract_date	quarter	1272-03-09	ok:1
extract_timestamp	epoch	1272-03-09 12:43:11.128067	ok:-22020808608.871933
extract_date	epoch	1272-03-09	ok:-22020854400
extract_timestamp	decade	1272-03-09 12:43:11.128067	ok:127
extract_date	decade	1272-03-09	ok:127
extract_timestamp	century	1272-03-09 12:43:11.128067	ok:13
extract_date	century	1272-03-09	ok:13
extract_timestamp	millennium	1272-03-09 12:43:11.128067	ok:2
extract_date	millennium	1272-03-09	ok:2
extract_time	hour	10:30:01.5	ok:10
extract_time	minute	10:30:01.5	ok:30
extract_time	second	10:30:01.5	ok:1.500000
extract_time	milliseconds	10:30:01.5	ok:1500.000
extract_time	microseconds	10:30:01.5	ok:1500000
extract_time	epoch	10:30:01.5	ok:37801.500000
extract_time	day	10:30:01.5	err:0A000:unit "day" not supported for type time without time zone
extract_time	hour	00:00:00	ok:0
extract_time	minute	00:00:00	ok:0
extract_time	second	00:00:00	ok:0.000000
extract_time	milliseconds	00:00:00	ok:0.000
extract_time	microseconds	00:00:00	ok:0
extract_time	epoch	00:00:00	ok:0.000000
extract_time	day	00:00:00	err:0A000:unit "day" not supported for type time without time zone
extract_time	hour	23:59:59.999999	ok:23
extract_time	minute	23:59:59.999999	ok:59
extract_time	second	23:59:59.999999	ok:59.999999
extract_time	milliseconds	23:59:59.999999	ok:59999.999
extract_time	microseconds	23:59:59.999999	ok:59999999
extract_time	epoch	23:59:59.999999	ok:86399.999999
extract_time	day	23:59:59.999999	err:0A000:unit "day" not supported for type time without time zone
extract_time	hour	24:00:00	ok:24
extract_time	minute	24:00:00	ok:0
extract_time	second	24:00:00	ok:0.000000
extract_time	milliseconds	24:00:00	ok:0.000
extract_time	microseconds	24:00:00	ok:0
extract_time	epoch	24:00:00	ok:86400.000000
extract_time	day	24:00:00	err:0A000:unit "day" not supported for type time without time zone
extract_time	hour	12:34:56.789	ok:12
extract_time	minute	12:34:56.789	ok:34
extract_time	second	12:34:56.789	ok:56.789000
extract_time	milliseconds	12:34:56.789	ok:56789.000
extract_time	microseconds	12:34:56.789	ok:56789000
extract_time	epoch	12:34:56.789	ok:45296.789000
extract_time	day	12:34:56.789	err:0A000:unit "day" not supported for type time without time zone
extract_interval	millennium	1 year 2 mons 3 days 04:05:06.5	ok:0
extract_interval	century	1 year 2 mons 3 days 04:05:06.5	ok:0
extract_interval	decade	1 year 2 mons 3 days 04:05:06.5	ok:0
extract_interval	year	1 year 2 mons 3 days 04:05:06.5	ok:1
extract_interval	quarter	1 year 2 mons 3 days 04:05:06.5	ok:1
extract_interval	month	1 year 2 mons 3 days 04:05:06.5	ok:2
extract_interval	day	1 year 2 mons 3 days 04:05:06.5	ok:3
extract_interval	hour	1 year 2 mons 3 days 04:05:06.5	ok:4
extract_interval	minute	1 year 2 mons 3 days 04:05:06.5	ok:5
extract_interval	second	1 year 2 mons 3 days 04:05:06.5	ok:6.500000
extract_interval	milliseconds	1 year 2 mons 3 days 04:05:06.5	ok:6500.000
extract_interval	microseconds	1 year 2 mons 3 days 04:05:06.5	ok:6500000
extract_interval	epoch	1 year 2 mons 3 days 04:05:06.5	ok:37015506.500000
extract_interval	dow	1 year 2 mons 3 days 04:05:06.5	err:0A000:unit "dow" not supported for type interval
extract_interval	millennium	-1 year 2 mons 3 days 04:05:06.5	ok:0
extract_interval	century	-1 year 2 mons 3 days 04:05:06.5	ok:0
extract_interval	decade	-1 year 2 mons 3 days 04:05:06.5	ok:0
extract_interval	year	-1 year 2 mons 3 days 04:05:06.5	ok:0
extract_interval	quarter	-1 year 2 mons 3 days 04:05:06.5	ok:-2
extract_interval	month	-1 year 2 mons 3 days 04:05:06.5	ok:-10
extract_interval	day	-1 year 2 mons 3 days 04:05:06.5	ok:3
extract_interval	hour	-1 year 2 mons 3 days 04:05:06.5	ok:4
extract_interval	minute	-1 year 2 mons 3 days 04:05:06.5	ok:5
extract_interval	second	-1 year 2 mons 3 days 04:05:06.5	ok:6.500000
extract_interval	milliseconds	-1 year 2 mons 3 days 04:05:06.5	ok:6500.000
extract_interval	microseconds	-1 year 2 mons 3 days 04:05:06.5	ok:6500000
extract_interval	epoch	-1 year 2 mons 3 days 04:05:06.5	ok:-25646093.500000
extract_interval	dow	-1 year 2 mons 3 days 04:05:06.5	err:0A000:unit "dow" not supported for type interval
extract_interval	millennium	-1 years -14 mons -3 days -04:05:06.5	ok:0
extract_interval	century	-1 years -14 mons -3 days -04:05:06.5	ok:0
extract_interval	decade	-1 years -14 mons -3 days -04:05:06.5	ok:0
extract_interval	year	-1 years -14 mons -3 days -04:05:06.5	ok:-2
extract_interval	quarter	-1 years -14 mons -3 days -04:05:06.5	ok:1
extract_interval	month	-1 years -14 mons -3 days -04:05:06.5	ok:-2
extract_interval	day	-1 years -14 mons -3 days -04:05:06.5	ok:-3
extract_interval	hour	-1 years -14 mons -3 days -04:05:06.5	ok:-4
extract_interval	minute	-1 years -14 mons -3 days -04:05:06.5	ok:-5
extract_interval	second	-1 years -14 mons -3 days -04:05:06.5	ok:-6.500000
extract_interval	milliseconds	-1 years -14 mons -3 days -04:05:06.5	ok:-6500.000
extract_interval	microseconds	-1 years -14 mons -3 days -04:05:06.5	ok:-6500000
extract_interval	epoch	-1 years -14 mons -3 days -04:05:06.5	ok:-68573106.500000
extract_interval	dow	-1 years -14 mons -3 days -04:05:06.5	err:0A000:unit "dow" not supported for type interval
extract_interval	millennium	2000 years	ok:2
extract_interval	century	2000 years	ok:20
extract_interval	decade	2000 years	ok:200
extract_interval	year	2000 years	ok:2000
extract_interval	quarter	2000 years	ok:1
extract_interval	month	2000 years	ok:0
extract_interval	day	2000 years	ok:0
extract_interval	hour	2000 years	ok:0
extract_interval	minute	2000 years	ok:0
extract_interval	second	2000 years	ok:0.000000
extract_interval	milliseconds	2000 years	ok:0.000
extract_interval	microseconds	2000 years	ok:0
extract_interval	epoch	2000 years	ok:63115200000.000000
extract_interval	dow	2000 years	err:0A000:unit "dow" not supported for type interval
extract_interval	millennium	25 hours	ok:0
extract_interval	century	25 hours	ok:0
extract_interval	decade	25 hours	ok:0
extract_interval	year	25 hours	ok:0
extract_interval	quarter	25 hours	ok:1
extract_interval	month	25 hours	ok:0
extract_interval	day	25 hours	ok:0
extract_interval	hour	25 hours	ok:25
extract_interval	minute	25 hours	ok:0
extract_interval	second	25 hours	ok:0.000000
extract_interval	milliseconds	25 hours	ok:0.000
extract_interval	microseconds	25 hours	ok:0
extract_interval	epoch	25 hours	ok:90000.000000
extract_interval	dow	25 hours	err:0A000:unit "dow" not supported for type interval
extract_interval	millennium	0	ok:0
extract_interval	century	0	ok:0
extract_interval	decade	0	ok:0
extract_interval	year	0	ok:0
extract_interval	quarter	0	ok:1
extract_interval	month	0	ok:0
extract_interval	day	0	ok:0
extract_interval	hour	0	ok:0
extract_interval	minute	0	ok:0
extract_interval	second	0	ok:0.000000
extract_interval	milliseconds	0	ok:0.000
extract_interval	microseconds	0	ok:0
extract_interval	epoch	0	ok:0.000000
extract_interval	dow	0	err:0A000:unit "dow" not supported for type interval
extract_interval	millennium	-4 days	ok:0
extract_interval	century	-4 days	ok:0
extract_interval	decade	-4 days	ok:0
extract_interval	year	-4 days	ok:0
extract_interval	quarter	-4 days	ok:1
extract_interval	month	-4 days	ok:0
extract_interval	day	-4 days	ok:-4
extract_interval	hour	-4 days	ok:0
extract_interval	minute	-4 days	ok:0
extract_interval	second	-4 days	ok:0.000000
extract_interval	milliseconds	-4 days	ok:0.000
extract_interval	microseconds	-4 days	ok:0
extract_interval	epoch	-4 days	ok:-345600.000000
extract_interval	dow	-4 days	err:0A000:unit "dow" not supported for type interval
extract_interval	millennium	18 days	ok:0
extract_interval	century	18 days	ok:0
extract_interval	decade	18 days	ok:0
extract_interval	year	18 days	ok:0
extract_interval	quarter	18 days	ok:1
extract_interval	month	18 days	ok:0
extract_interval	day	18 days	ok:18
extract_interval	hour	18 days	ok:0
extract_interval	minute	18 days	ok:0
extract_interval	second	18 days	ok:0.000000
extract_interval	milliseconds	18 days	ok:0.000
extract_interval	microseconds	18 days	ok:0
extract_interval	epoch	18 days	ok:1555200.000000
extract_interval	dow	18 days	err:0A000:unit "dow" not supported for type interval
extract_interval	millennium	3 mons -80824.333178 seconds	ok:0
extract_interval	century	3 mons -80824.333178 seconds	ok:0
extract_interval	decade	3 mons -80824.333178 seconds	ok:0
extract_interval	year	3 mons -80824.333178 seconds	ok:0
extract_interval	quarter	3 mons -80824.333178 seconds	ok:2
extract_interval	month	3 mons -80824.333178 seconds	ok:3
extract_interval	day	3 mons -80824.333178 seconds	ok:0
extract_interval	hour	3 mons -80824.333178 seconds	ok:-22
extract_interval	minute	3 mons -80824.333178 seconds	ok:-27
extract_interval	second	3 mons -80824.333178 seconds	ok:-4.333178
extract_interval	milliseconds	3 mons -80824.333178 seconds	ok:-4333.178
extract_interval	microseconds	3 mons -80824.333178 seconds	ok:-4333178
extract_interval	epoch	3 mons -80824.333178 seconds	ok:7695175.666822
extract_interval	dow	3 mons -80824.333178 seconds	err:0A000:unit "dow" not supported for type interval
extract_interval	millennium	-26 days	ok:0
extract_interval	century	-26 days	ok:0
extract_interval	decade	-26 days	ok:0
extract_interval	year	-26 days	ok:0
extract_interval	quarter	-26 days	ok:1
extract_interval	month	-26 days	ok:0
extract_interval	day	-26 days	ok:-26
extract_interval	hour	-26 days	ok:0
extract_interval	minute	-26 days	ok:0
extract_interval	second	-26 days	ok:0.000000
extract_interval	milliseconds	-26 days	ok:0.000
extract_interval	microseconds	-26 days	ok:0
extract_interval	epoch	-26 days	ok:-2246400.000000
extract_interval	dow	-26 days	err:0A000:unit "dow" not supported for type interval
extract_interval	millennium	-1 days -41504.332229 seconds	ok:0
extract_interval	century	-1 days -41504.332229 seconds	ok:0
extract_interval	decade	-1 days -41504.332229 seconds	ok:0
extract_interval	year	-1 days -41504.332229 seconds	ok:0
extract_interval	quarter	-1 days -41504.332229 seconds	ok:1
extract_interval	month	-1 days -41504.332229 seconds	ok:0
extract_interval	day	-1 days -41504.332229 seconds	ok:-1
extract_interval	hour	-1 days -41504.332229 seconds	ok:-11
extract_interval	minute	-1 days -41504.332229 seconds	ok:-31
extract_interval	second	-1 days -41504.332229 seconds	ok:-44.332229
extract_interval	milliseconds	-1 days -41504.332229 seconds	ok:-44332.229
extract_interval	microseconds	-1 days -41504.332229 seconds	ok:-44332229
extract_interval	epoch	-1 days -41504.332229 seconds	ok:-127904.332229
extract_interval	dow	-1 days -41504.332229 seconds	err:0A000:unit "dow" not supported for type interval
extract_interval	millennium	-37 days	ok:0
extract_interval	century	-37 days	ok:0
extract_interval	decade	-37 days	ok:0
extract_interval	year	-37 days	ok:0
extract_interval	quarter	-37 days	ok:1
extract_interval	month	-37 days	ok:0
extract_interval	day	-37 days	ok:-37
extract_interval	hour	-37 days	ok:0
extract_interval	minute	-37 days	ok:0
extract_interval	second	-37 days	ok:0.000000
extract_interval	milliseconds	-37 days	ok:0.000
extract_interval	microseconds	-37 days	ok:0
extract_interval	epoch	-37 days	ok:-3196800.000000
extract_interval	dow	-37 days	err:0A000:unit "dow" not supported for type interval
date_trunc_interval	second	1234 years 11 mons 3 days 04:05:06.789	ok:1234 years 11 mons 3 days 04:05:06
date_trunc_interval	second	-1 year -5 mons -3 days -04:05:06.789	ok:-1 years -5 mons -3 days -04:05:06
date_trunc_interval	minute	1234 years 11 mons 3 days 04:05:06.789	ok:1234 years 11 mons 3 days 04:05:00
date_trunc_interval	minute	-1 year -5 mons -3 days -04:05:06.789	ok:-1 years -5 mons -3 days -04:05:00
date_trunc_interval	hour	1234 years 11 mons 3 days 04:05:06.789	ok:1234 years 11 mons 3 days 04:00:00
date_trunc_interval	hour	-1 year -5 mons -3 days -04:05:06.789	ok:-1 years -5 mons -3 days -04:00:00
date_trunc_interval	day	1234 years 11 mons 3 days 04:05:06.789	ok:1234 years 11 mons 3 days
date_trunc_interval	day	-1 year -5 mons -3 days -04:05:06.789	ok:-1 years -5 mons -3 days
date_trunc_interval	month	1234 years 11 mons 3 days 04:05:06.789	ok:1234 years 11 mons
date_trunc_interval	month	-1 year -5 mons -3 days -04:05:06.789	ok:-1 years -5 mons
date_trunc_interval	quarter	1234 years 11 mons 3 days 04:05:06.789	ok:1234 years 9 mons
date_trunc_interval	quarter	-1 year -5 mons -3 days -04:05:06.789	ok:-1 years -3 mons
date_trunc_interval	year	1234 years 11 mons 3 days 04:05:06.789	ok:1234 years
date_trunc_interval	year	-1 year -5 mons -3 days -04:05:06.789	ok:-1 years
date_trunc_interval	decade	1234 years 11 mons 3 days 04:05:06.789	ok:1230 years
date_trunc_interval	decade	-1 year -5 mons -3 days -04:05:06.789	ok:00:00:00
date_trunc_interval	century	1234 years 11 mons 3 days 04:05:06.789	ok:1200 years
date_trunc_interval	century	-1 year -5 mons -3 days -04:05:06.789	ok:00:00:00
date_trunc_interval	millennium	1234 years 11 mons 3 days 04:05:06.789	ok:1000 years
date_trunc_interval	millennium	-1 year -5 mons -3 days -04:05:06.789	ok:00:00:00
date_trunc_interval	week	1234 years 11 mons 3 days 04:05:06.789	err:0A000:unit "week" not supported for type interval
date_trunc_interval	week	-1 year -5 mons -3 days -04:05:06.789	err:0A000:unit "week" not supported for type interval
extract_timestamp	fortnight	2024-01-15 10:00:00	err:22023:unit "fortnight" not recognized for type timestamp without time zone
date_trunc	fortnight	2024-01-15 10:00:00	err:22023:unit "fortnight" not recognized for type timestamp without time zone
date_trunc	dow	2024-01-15 10:00:00	err:22023:unit "dow" not recognized for type timestamp without time zone
extract_date	hour	2024-01-15	err:0A000:unit "hour" not supported for type date
extract_time	year	10:00:00	err:0A000:unit "year" not supported for type time without time zone
ts_plus_interval	2024-01-31 00:00:00	1 mon	ok:2024-02-29 00:00:00
ts_minus_interval	2024-01-31 00:00:00	1 mon	ok:2023-12-31 00:00:00
ts_plus_interval	2024-01-31 10:00:00	1 mon 1 day	ok:2024-03-01 10:00:00
ts_minus_interval	2024-01-31 10:00:00	1 mon 1 day	ok:2023-12-30 10:00:00
ts_plus_interval	2023-01-31 00:00:00	1 mon	ok:2023-02-28 00:00:00
ts_minus_interval	2023-01-31 00:00:00	1 mon	ok:2022-12-31 00:00:00
ts_plus_interval	2024-02-29 00:00:00	1 year	ok:2025-02-28 00:00:00
ts_minus_interval	2024-02-29 00:00:00	1 year	ok:2023-02-28 00:00:00
ts_plus_interval	2024-03-31 00:00:00	-1 mon	ok:2024-02-29 00:00:00
ts_minus_interval	2024-03-31 00:00:00	-1 mon	ok:2024-04-30 00:00:00
ts_plus_interval	2024-01-15 10:30:00	1 day -01:00:00	ok:2024-01-16 09:30:00
ts_minus_interval	2024-01-15 10:30:00	1 day -01:00:00	ok:2024-01-14 11:30:00
ts_plus_interval	2024-01-15 10:30:00	36 hours	ok:2024-01-16 22:30:00
ts_minus_interval	2024-01-15 10:30:00	36 hours	ok:2024-01-13 22:30:00
ts_plus_interval	0001-01-01 00:00:00	-1 day	ok:0001-12-31 00:00:00 BC
ts_minus_interval	0001-01-01 00:00:00	-1 day	ok:0001-01-02 00:00:00
ts_plus_interval	2024-12-31 23:59:59.999999	00:00:00.000001	ok:2025-01-01 00:00:00
ts_minus_interval	2024-12-31 23:59:59.999999	00:00:00.000001	ok:2024-12-31 23:59:59.999998
ts_plus_interval	2024-01-31 00:00:00	13 mons	ok:2025-02-28 00:00:00
ts_minus_interval	2024-01-31 00:00:00	13 mons	ok:2022-12-31 00:00:00
ts_plus_interval	2024-01-31 00:00:00	-13 mons	ok:2022-12-31 00:00:00
ts_minus_interval	2024-01-31 00:00:00	-13 mons	ok:2025-02-28 00:00:00
ts_plus_interval	2024-05-31 00:00:00	-3 mons -1 day	ok:2024-02-28 00:00:00
ts_minus_interval	2024-05-31 00:00:00	-3 mons -1 day	ok:2024-09-01 00:00:00
ts_plus_interval	4067-04-19 00:00:56.000000 BC	-20 mons 15628.032639 seconds	ok:4069-08-19 04:21:24.032639 BC
ts_minus_interval	4067-04-19 00:00:56.000000 BC	-20 mons 15628.032639 seconds	ok:4066-12-18 19:40:27.967361 BC
ts_plus_interval	5931-10-14 12:31:32.000000	0	ok:5931-10-14 12:31:32
ts_minus_interval	5931-10-14 12:31:32.000000	0	ok:5931-10-14 12:31:32
ts_plus_interval	6849-09-10 14:15:21.643626	40 days	ok:6849-10-20 14:15:21.643626
ts_minus_interval	6849-09-10 14:15:21.643626	40 days	ok:6849-08-01 14:15:21.643626
ts_plus_interval	0560-05-06 16:56:18.000000	-18 mons -14847.908496 seconds	ok:0558-11-06 12:48:50.091504
ts_minus_interval	0560-05-06 16:56:18.000000	-18 mons -14847.908496 seconds	ok:0561-11-06 21:03:45.908496
ts_plus_interval	7631-05-17 17:39:04.500000	11 mons 0 days -26184.443751 seconds	ok:7632-04-17 10:22:40.056249
ts_minus_interval	7631-05-17 17:39:04.500000	11 mons 0 days -26184.443751 seconds	ok:7630-06-18 00:55:28.943751
ts_plus_interval	2440-03-22 16:55:01.000000 BC	-15878.733587 seconds	ok:2440-03-22 12:30:22.266413 BC
ts_minus_interval	2440-03-22 16:55:01.000000 BC	-15878.733587 seconds	ok:2440-03-22 21:19:39.733587 BC
ts_plus_interval	4925-09-22 22:47:24.000000	24192.914259 seconds	ok:4925-09-23 05:30:36.914259
ts_minus_interval	4925-09-22 22:47:24.000000	24192.914259 seconds	ok:4925-09-22 16:04:11.085741
ts_plus_interval	1627-10-03 11:15:07.000000	-27 days -84555.185127 seconds	ok:1627-09-05 11:45:51.814873
ts_minus_interval	1627-10-03 11:15:07.000000	-27 days -84555.185127 seconds	ok:1627-10-31 10:44:22.185127
ts_plus_interval	6236-03-15 07:01:13.500000	-34 days 17146.081586 seconds	ok:6236-02-10 11:46:59.581586
ts_minus_interval	6236-03-15 07:01:13.500000	-34 days 17146.081586 seconds	ok:6236-04-18 02:15:27.418414
ts_plus_interval	6668-06-25 02:34:56.567292	13 mons -39 days -76435.451933 seconds	ok:6669-06-15 05:21:01.115359
ts_minus_interval	6668-06-25 02:34:56.567292	13 mons -39 days -76435.451933 seconds	ok:6667-07-03 23:48:52.019225
ts_plus_interval	9743-10-21 12:31:33.000000	0	ok:9743-10-21 12:31:33
ts_minus_interval	9743-10-21 12:31:33.000000	0	ok:9743-10-21 12:31:33
ts_plus_interval	4969-02-02 00:07:18.220948	26 mons 79305.984166 seconds	ok:4971-04-02 22:09:04.205114
ts_minus_interval	4969-02-02 00:07:18.220948	26 mons 79305.984166 seconds	ok:4966-12-01 02:05:32.236782
ts_plus_interval	4903-01-06 05:45:45.000000	-18 mons -62110.578415 seconds	ok:4901-07-05 12:30:34.421585
ts_minus_interval	4903-01-06 05:45:45.000000	-18 mons -62110.578415 seconds	ok:4904-07-06 23:00:55.578415
ts_plus_interval	1554-03-05 17:46:07.000000	5 mons -4 days -90333.390890 seconds	ok:1554-07-31 16:40:33.60911
ts_minus_interval	1554-03-05 17:46:07.000000	5 mons -4 days -90333.390890 seconds	ok:1553-10-10 18:51:40.39089
ts_plus_interval	2677-03-24 12:06:25.500000	1 mons 24 days	ok:2677-05-18 12:06:25.5
ts_minus_interval	2677-03-24 12:06:25.500000	1 mons 24 days	ok:2677-01-31 12:06:25.5
ts_plus_interval	5375-07-04 08:34:43.437229	-30 mons -17 days -70436.524801 seconds	ok:5372-12-17 13:00:46.912428
ts_minus_interval	5375-07-04 08:34:43.437229	-30 mons -17 days -70436.524801 seconds	ok:5378-01-22 04:08:39.96203
ts_plus_interval	4502-12-22 14:27:06.000000	15506.908135 seconds	ok:4502-12-22 18:45:32.908135
ts_minus_interval	4502-12-22 14:27:06.000000	15506.908135 seconds	ok:4502-12-22 10:08:39.091865
ts_plus_interval	7970-08-19 06:10:11.307516	-6 mons -22 days	ok:7970-01-28 06:10:11.307516
ts_minus_interval	7970-08-19 06:10:11.307516	-6 mons -22 days	ok:7971-03-13 06:10:11.307516
ts_plus_interval	9487-03-27 07:52:29.000000	27 mons -10980.565800 seconds	ok:9489-06-27 04:49:28.4342
ts_minus_interval	9487-03-27 07:52:29.000000	27 mons -10980.565800 seconds	ok:9484-12-27 10:55:29.5658
ts_plus_interval	4911-06-22 00:55:30.500000	70304.221750 seconds	ok:4911-06-22 20:27:14.72175
ts_minus_interval	4911-06-22 00:55:30.500000	70304.221750 seconds	ok:4911-06-21 05:23:46.27825
ts_plus_interval	2264-10-23 20:17:20.743635	-42548.773081 seconds	ok:2264-10-23 08:28:11.970554
ts_minus_interval	2264-10-23 20:17:20.743635	-42548.773081 seconds	ok:2264-10-24 08:06:29.516716
ts_plus_interval	9166-10-23 03:54:16.000000	74654.683141 seconds	ok:9166-10-24 00:38:30.683141
ts_minus_interval	9166-10-23 03:54:16.000000	74654.683141 seconds	ok:9166-10-22 07:10:01.316859
ts_plus_interval	3715-03-19 14:17:28.000000	88784.764892 seconds	ok:3715-03-20 14:57:12.764892
ts_minus_interval	3715-03-19 14:17:28.000000	88784.764892 seconds	ok:3715-03-18 13:37:43.235108
ts_plus_interval	2230-02-02 08:50:41.000000	-63657.130469 seconds	ok:2230-02-01 15:09:43.869531
ts_minus_interval	2230-02-02 08:50:41.000000	-63657.130469 seconds	ok:2230-02-03 02:31:38.130469
ts_plus_interval	2217-06-08 09:35:18.000000	-22 mons 21 days	ok:2215-08-29 09:35:18
ts_minus_interval	2217-06-08 09:35:18.000000	-22 mons 21 days	ok:2219-03-18 09:35:18
ts_plus_interval	5451-09-18 03:32:29.377824	13 days -84247.869492 seconds	ok:5451-09-30 04:08:21.508332
ts_minus_interval	5451-09-18 03:32:29.377824	13 days -84247.869492 seconds	ok:5451-09-06 02:56:37.247316
ts_plus_interval	9332-03-04 02:26:43.500000	28254.864415 seconds	ok:9332-03-04 10:17:38.364415
ts_minus_interval	9332-03-04 02:26:43.500000	28254.864415 seconds	ok:9332-03-03 18:35:48.635585
ts_plus_interval	5452-07-02 08:38:20.830577 BC	0 mons 26 days	err:22008:timestamp out of range: "5452-07-02 08:38:20.830577 BC"
ts_minus_interval	5452-07-02 08:38:20.830577 BC	0 mons 26 days	err:22008:timestamp out of range: "5452-07-02 08:38:20.830577 BC"
ts_plus_interval	9963-06-14 21:42:26.000000	13443.480966 seconds	ok:9963-06-15 01:26:29.480966
ts_minus_interval	9963-06-14 21:42:26.000000	13443.480966 seconds	ok:9963-06-14 17:58:22.519034
ts_plus_interval	3312-05-10 15:39:31.500000	0	ok:3312-05-10 15:39:31.5
ts_minus_interval	3312-05-10 15:39:31.500000	0	ok:3312-05-10 15:39:31.5
ts_plus_interval	4377-10-10 12:14:31.459833	-18 days	ok:4377-09-22 12:14:31.459833
ts_minus_interval	4377-10-10 12:14:31.459833	-18 days	ok:4377-10-28 12:14:31.459833
ts_plus_interval	4286-07-22 06:53:56.000000	-21 mons -83691.311657 seconds	ok:4284-10-21 07:39:04.688343
ts_minus_interval	4286-07-22 06:53:56.000000	-21 mons -83691.311657 seconds	ok:4288-04-23 06:08:47.311657
ts_plus_interval	0423-06-08 08:07:56.000000 BC	31 days 21904.159638 seconds	ok:0423-07-09 14:13:00.159638 BC
ts_minus_interval	0423-06-08 08:07:56.000000 BC	31 days 21904.159638 seconds	ok:0423-05-08 02:02:51.840362 BC
ts_plus_interval	6689-10-15 13:08:51.000000	-6 mons 22 days -37449.007322 seconds	ok:6689-05-07 02:44:41.992678
ts_minus_interval	6689-10-15 13:08:51.000000	-6 mons 22 days -37449.007322 seconds	ok:6690-03-24 23:33:00.007322
ts_plus_interval	4325-02-19 00:57:34.000000	-30 days -8228.429511 seconds	ok:4325-01-19 22:40:25.570489
ts_minus_interval	4325-02-19 00:57:34.000000	-30 days -8228.429511 seconds	ok:4325-03-21 03:14:42.429511
ts_plus_interval	6783-09-08 13:43:01.950110	87258.516346 seconds	ok:6783-09-09 13:57:20.466456
ts_minus_interval	6783-09-08 13:43:01.950110	87258.516346 seconds	ok:6783-09-07 13:28:43.433764
ts_plus_interval	0307-08-11 14:14:36.500000	-5 days	ok:0307-08-06 14:14:36.5
ts_minus_interval	0307-08-11 14:14:36.500000	-5 days	ok:0307-08-16 14:14:36.5
ts_plus_interval	2500-03-12 00:05:21.000000	-12 mons -1 days 81196.161498 seconds	ok:2499-03-11 22:38:37.161498
ts_minus_interval	2500-03-12 00:05:21.000000	-12 mons -1 days 81196.161498 seconds	ok:2501-03-12 01:32:04.838502
ts_plus_interval	8325-08-12 02:54:04.293646	0	ok:8325-08-12 02:54:04.293646
ts_minus_interval	8325-08-12 02:54:04.293646	0	ok:8325-08-12 02:54:04.293646
ts_plus_interval	3775-10-20 08:36:32.000000	-16 mons 57787.343123 seconds	ok:3774-06-21 00:39:39.343123
ts_minus_interval	3775-10-20 08:36:32.000000	-16 mons 57787.343123 seconds	ok:3777-02-19 16:33:24.656877
ts_minus_ts	9591-09-09 16:37:15.500000	5928-10-19 18:58:10.500000	ok:1337842 days 21:39:05
ts_minus_ts	8622-05-04 02:48:12.000000	6177-01-13 12:07:05.493331	ok:893127 days 14:41:06.506669
ts_minus_ts	2312-08-24 10:32:32.748501	6156-10-17 00:32:35.005535	ok:-1404046 days -14:00:02.257034
ts_minus_ts	5558-04-19 08:10:55.500000	4387-07-25 14:20:53.479071	ok:427601 days 17:50:02.020929
ts_minus_ts	9783-10-28 05:36:22.500000	9356-07-15 03:17:30.000000	ok:156063 days 02:18:52.5
ts_minus_ts	0047-04-09 21:41:03.000000	2516-02-14 18:30:09.512886	ok:-901728 days -20:49:06.512886
ts_minus_ts	8767-11-06 16:42:58.500000	4551-05-23 04:23:24.600767	ok:1540029 days 12:19:33.899233
ts_minus_ts	2309-05-21 00:24:21.500000	1592-07-08 21:57:07.000000	ok:261829 days 02:27:14.5
ts_minus_ts	4286-04-06 03:40:45.000000	7101-02-01 12:45:16.000000	ok:-1028093 days -09:04:31
ts_minus_ts	8439-04-21 04:02:03.098945	5827-06-28 23:46:41.500000	ok:953945 days 04:15:21.598945
ts_minus_ts	2205-11-04 18:19:56.000000	1005-09-04 04:22:47.500000	ok:438352 days 13:57:08.5
ts_minus_ts	6553-06-23 04:40:02.500000	0012-03-02 17:49:14.000000	ok:2389163 days 10:50:48.5
ts_minus_ts	0012-07-07 08:12:50.500000	6518-11-02 04:28:36.000000	ok:-2376384 days -20:15:45.5
ts_minus_ts	4134-02-01 10:22:49.653363	4332-05-04 12:33:31.000000	ok:-72410 days -02:10:41.346637
ts_minus_ts	7676-06-08 03:39:54.000000	9754-05-24 20:52:18.500000	ok:-758958 days -17:12:24.5
ts_minus_ts	9226-11-24 21:13:16.000000	5128-01-26 03:25:35.000000	ok:1497067 days 17:47:41
ts_minus_ts	9632-07-17 00:06:15.000000	5176-04-13 09:12:07.000000	ok:1627615 days 14:54:08
ts_minus_ts	5995-01-02 05:00:45.500000	8270-07-01 07:14:16.412385	ok:-831107 days -02:13:30.912385
ts_minus_ts	2859-01-23 00:00:10.000000	1186-11-01 21:11:08.338745	ok:610768 days 02:49:01.661255
ts_minus_ts	9699-10-10 18:35:38.500000	3872-02-20 02:26:38.500000	ok:2128501 days 16:09:00
ts_minus_ts	0045-11-20 21:57:44.000000	1340-05-15 20:19:48.743375	ok:-472799 days -22:22:04.743375
ts_minus_ts	3829-04-02 23:08:15.000000	1006-04-07 11:17:14.000000	ok:1031075 days 11:51:01
ts_minus_ts	1870-11-15 02:41:45.000000	5032-08-27 21:51:24.000000	ok:-1154817 days -19:09:39
ts_minus_ts	8362-02-10 08:37:00.000000	3607-11-17 07:04:55.500000	ok:1736448 days 01:32:04.5
ts_minus_ts	5015-06-07 05:20:50.000000	7967-09-10 04:54:51.000000	ok:-1078290 days -23:34:01
ts_minus_ts	5787-08-21 08:22:09.000000	8431-03-05 13:09:04.000000	ok:-965532 days -04:46:55
ts_minus_ts	9694-05-10 22:17:02.751669	3085-03-26 00:05:34.000000	ok:2413933 days 22:11:28.751669
ts_minus_ts	4453-08-09 14:54:44.500000	1244-02-14 05:30:23.000000	ok:1172240 days 09:24:21.5
ts_minus_ts	1428-03-10 16:04:01.000000	7261-08-13 10:35:45.000000	ok:-2130615 days -18:31:44
ts_minus_ts	8083-03-22 16:39:34.500000	4393-05-26 17:54:19.500000	ok:1347679 days 22:45:15
ts_minus_ts	2024-01-15 10:00:00	2024-01-14 11:00:00	ok:23:00:00
ts_minus_ts	2024-01-14 11:00:00	2024-01-15 10:00:00	ok:-23:00:00
ts_minus_ts	2024-03-01 00:00:00	2024-02-01 00:00:00	ok:29 days
ts_minus_ts	2024-01-01 00:00:00	2024-01-01 00:00:00	ok:00:00:00
date_plus_interval	2024-01-31	1 mon	ok:2024-02-29 00:00:00
date_plus_interval	2024-02-29	1 year	ok:2025-02-28 00:00:00
date_plus_interval	2024-01-15	1 day 02:00:00	ok:2024-01-16 02:00:00
date_plus_interval	2024-01-15	-1 hour	ok:2024-01-14 23:00:00
interval_mul	1 mon	2	ok:2 mons
interval_div	1 mon	2	ok:15 days
interval_mul	1 mon	0.5	ok:15 days
interval_div	1 mon	0.5	ok:2 mons
interval_mul	1 mon	1.5	ok:1 mon 15 days
interval_div	1 mon	1.5	ok:20 days
interval_mul	1 mon	-1	ok:-1 mons
interval_div	1 mon	-1	ok:-1 mons
interval_mul	1 mon	3	ok:3 mons
interval_div	1 mon	3	ok:10 days
interval_mul	1 mon	0.1	ok:3 days
interval_div	1 mon	0.1	ok:10 mons
interval_mul	1 mon	0.3333333333333333	ok:10 days
interval_div	1 mon	0.3333333333333333	ok:3 mons
interval_mul	1 mon	0.3333333	ok:9 days 23:59:59.9136
interval_div	1 mon	0.3333333	ok:3 mons 00:00:00.7776
interval_mul	1 mon	7	ok:7 mons
interval_div	1 mon	7	ok:4 days 06:51:25.6896
interval_mul	1 mon	0	ok:00:00:00
interval_div	1 mon	0	err:22012:division by zero
interval_mul	1 day	2	ok:2 days
interval_div	1 day	2	ok:12:00:00
interval_mul	1 day	0.5	ok:12:00:00
interval_div	1 day	0.5	ok:2 days
interval_mul	1 day	1.5	ok:1 day 12:00:00
interval_div	1 day	1.5	ok:16:00:00
interval_mul	1 day	-1	ok:-1 days
interval_div	1 day	-1	ok:-1 days
interval_mul	1 day	3	ok:3 days
interval_div	1 day	3	ok:08:00:00
interval_mul	1 day	0.1	ok:02:24:00
interval_div	1 day	0.1	ok:10 days
interval_mul	1 day	0.3333333333333333	ok:08:00:00
interval_div	1 day	0.3333333333333333	ok:3 days
interval_mul	1 day	0.3333333	ok:07:59:59.99712
interval_div	1 day	0.3333333	ok:3 days 00:00:00.02592
interval_mul	1 day	7	ok:7 days
interval_div	1 day	7	ok:03:25:42.857143
interval_mul	1 day	0	ok:00:00:00
interval_div	1 day	0	err:22012:division by zero
interval_mul	1 hour	2	ok:02:00:00
interval_div	1 hour	2	ok:00:30:00
interval_mul	1 hour	0.5	ok:00:30:00
interval_div	1 hour	0.5	ok:02:00:00
interval_mul	1 hour	1.5	ok:01:30:00
interval_div	1 hour	1.5	ok:00:40:00
interval_mul	1 hour	-1	ok:-01:00:00
interval_div	1 hour	-1	ok:-01:00:00
interval_mul	1 hour	3	ok:03:00:00
interval_div	1 hour	3	ok:00:20:00
interval_mul	1 hour	0.1	ok:00:06:00
interval_div	1 hour	0.1	ok:10:00:00
interval_mul	1 hour	0.3333333333333333	ok:00:20:00
interval_div	1 hour	0.3333333333333333	ok:03:00:00
interval_mul	1 hour	0.3333333	ok:00:19:59.99988
interval_div	1 hour	0.3333333	ok:03:00:00.00108
interval_mul	1 hour	7	ok:07:00:00
interval_div	1 hour	7	ok:00:08:34.285714
interval_mul	1 hour	0	ok:00:00:00
interval_div	1 hour	0	err:22012:division by zero
interval_mul	1 year 2 mons 3 days 04:05:06.5	2	ok:2 years 4 mons 6 days 08:10:13
interval_div	1 year 2 mons 3 days 04:05:06.5	2	ok:7 mons 1 day 14:02:33.25
interval_mul	1 year 2 mons 3 days 04:05:06.5	0.5	ok:7 mons 1 day 14:02:33.25
interval_div	1 year 2 mons 3 days 04:05:06.5	0.5	ok:2 years 4 mons 6 days 08:10:13
interval_mul	1 year 2 mons 3 days 04:05:06.5	1.5	ok:1 year 9 mons 4 days 18:07:39.75
interval_div	1 year 2 mons 3 days 04:05:06.5	1.5	ok:9 mons 12 days 02:43:24.333333
interval_mul	1 year 2 mons 3 days 04:05:06.5	-1	ok:-1 years -2 mons -3 days -04:05:06.5
interval_div	1 year 2 mons 3 days 04:05:06.5	-1	ok:-1 years -2 mons -3 days -04:05:06.5
interval_mul	1 year 2 mons 3 days 04:05:06.5	3	ok:3 years 6 mons 9 days 12:15:19.5
interval_div	1 year 2 mons 3 days 04:05:06.5	3	ok:4 mons 21 days 01:21:42.166667
interval_mul	1 year 2 mons 3 days 04:05:06.5	0.1	ok:1 mon 12 days 07:36:30.65
interval_div	1 year 2 mons 3 days 04:05:06.5	0.1	ok:11 years 8 mons 30 days 40:51:05
interval_mul	1 year 2 mons 3 days 04:05:06.5	0.3333333333333333	ok:4 mons 21 days 01:21:42.166667
interval_div	1 year 2 mons 3 days 04:05:06.5	0.3333333333333333	ok:3 years 6 mons 9 days 12:15:19.5
interval_mul	1 year 2 mons 3 days 04:05:06.5	0.3333333	ok:4 mons 20 days 25:21:40.947936
interval_div	1 year 2 mons 3 days 04:05:06.5	0.3333333	ok:3 years 6 mons 9 days 12:15:30.468572
interval_mul	1 year 2 mons 3 days 04:05:06.5	7	ok:8 years 2 mons 21 days 28:35:45.5
interval_div	1 year 2 mons 3 days 04:05:06.5	7	ok:2 mons 10:52:09.5
interval_mul	1 year 2 mons 3 days 04:05:06.5	0	ok:00:00:00
interval_div	1 year 2 mons 3 days 04:05:06.5	0	err:22012:division by zero
interval_mul	-1 mon 2 days	2	ok:-2 mons +4 days
interval_div	-1 mon 2 days	2	ok:-14 days
interval_mul	-1 mon 2 days	0.5	ok:-14 days
interval_div	-1 mon 2 days	0.5	ok:-2 mons +4 days
interval_mul	-1 mon 2 days	1.5	ok:-1 mons -12 days
interval_div	-1 mon 2 days	1.5	ok:-19 days +08:00:00
interval_mul	-1 mon 2 days	-1	ok:1 mon -2 days
interval_div	-1 mon 2 days	-1	ok:1 mon -2 days
interval_mul	-1 mon 2 days	3	ok:-3 mons +6 days
interval_div	-1 mon 2 days	3	ok:-10 days +16:00:00
interval_mul	-1 mon 2 days	0.1	ok:-3 days +04:48:00
interval_div	-1 mon 2 days	0.1	ok:-10 mons +20 days
interval_mul	-1 mon 2 days	0.3333333333333333	ok:-10 days +16:00:00
interval_div	-1 mon 2 days	0.3333333333333333	ok:-3 mons +6 days
interval_mul	-1 mon 2 days	0.3333333	ok:-9 days -07:59:59.91936
interval_div	-1 mon 2 days	0.3333333	ok:-3 mons +6 days -00:00:00.72576
interval_mul	-1 mon 2 days	7	ok:-7 mons +14 days
interval_div	-1 mon 2 days	7	ok:-4 days +00:00:00.024686
interval_mul	-1 mon 2 days	0	ok:00:00:00
interval_div	-1 mon 2 days	0	err:22012:division by zero
interval_mul	3 mons	2	ok:6 mons
interval_div	3 mons	2	ok:1 mon 15 days
interval_mul	3 mons	0.5	ok:1 mon 15 days
interval_div	3 mons	0.5	ok:6 mons
interval_mul	3 mons	1.5	ok:4 mons 15 days
interval_div	3 mons	1.5	ok:2 mons
interval_mul	3 mons	-1	ok:-3 mons
interval_div	3 mons	-1	ok:-3 mons
interval_mul	3 mons	3	ok:9 mons
interval_div	3 mons	3	ok:1 mon
interval_mul	3 mons	0.1	ok:9 days
interval_div	3 mons	0.1	ok:2 years 6 mons
interval_mul	3 mons	0.3333333333333333	ok:1 mon
interval_div	3 mons	0.3333333333333333	ok:9 mons
interval_mul	3 mons	0.3333333	ok:29 days 23:59:59.7408
interval_div	3 mons	0.3333333	ok:9 mons 00:00:02.3328
interval_mul	3 mons	7	ok:1 year 9 mons
interval_div	3 mons	7	ok:12 days 20:34:17.1552
interval_mul	3 mons	0	ok:00:00:00
interval_div	3 mons	0	err:22012:division by zero
interval_mul	1 mon 15 days	2	ok:2 mons 30 days
interval_div	1 mon 15 days	2	ok:22 days 12:00:00
interval_mul	1 mon 15 days	0.5	ok:22 days 12:00:00
interval_div	1 mon 15 days	0.5	ok:2 mons 30 days
interval_mul	1 mon 15 days	1.5	ok:1 mon 37 days 12:00:00
interval_div	1 mon 15 days	1.5	ok:30 days
interval_mul	1 mon 15 days	-1	ok:-1 mons -15 days
interval_div	1 mon 15 days	-1	ok:-1 mons -15 days
interval_mul	1 mon 15 days	3	ok:3 mons 45 days
interval_div	1 mon 15 days	3	ok:15 days
interval_mul	1 mon 15 days	0.1	ok:4 days 12:00:00
interval_div	1 mon 15 days	0.1	ok:10 mons 150 days
interval_mul	1 mon 15 days	0.3333333333333333	ok:15 days
interval_div	1 mon 15 days	0.3333333333333333	ok:3 mons 45 days
interval_mul	1 mon 15 days	0.3333333	ok:14 days 23:59:59.8704
interval_div	1 mon 15 days	0.3333333	ok:3 mons 45 days 00:00:01.1664
interval_mul	1 mon 15 days	7	ok:7 mons 105 days
interval_div	1 mon 15 days	7	ok:6 days 10:17:08.546743
interval_mul	1 mon 15 days	0	ok:00:00:00
interval_div	1 mon 15 days	0	err:22012:division by zero
interval_mul	10 days 10:00:00	2	ok:20 days 20:00:00
interval_div	10 days 10:00:00	2	ok:5 days 05:00:00
interval_mul	10 days 10:00:00	0.5	ok:5 days 05:00:00
interval_div	10 days 10:00:00	0.5	ok:20 days 20:00:00
interval_mul	10 days 10:00:00	1.5	ok:15 days 15:00:00
interval_div	10 days 10:00:00	1.5	ok:6 days 22:40:00
interval_mul	10 days 10:00:00	-1	ok:-10 days -10:00:00
interval_div	10 days 10:00:00	-1	ok:-10 days -10:00:00
interval_mul	10 days 10:00:00	3	ok:30 days 30:00:00
interval_div	10 days 10:00:00	3	ok:3 days 11:20:00
interval_mul	10 days 10:00:00	0.1	ok:1 day 01:00:00
interval_div	10 days 10:00:00	0.1	ok:100 days 100:00:00
interval_mul	10 days 10:00:00	0.3333333333333333	ok:3 days 11:20:00
interval_div	10 days 10:00:00	0.3333333333333333	ok:30 days 30:00:00
interval_mul	10 days 10:00:00	0.3333333	ok:3 days 11:19:59.97
interval_div	10 days 10:00:00	0.3333333	ok:30 days 30:00:00.27
interval_mul	10 days 10:00:00	7	ok:70 days 70:00:00
interval_div	10 days 10:00:00	7	ok:1 day 11:42:51.428572
interval_mul	10 days 10:00:00	0	ok:00:00:00
interval_div	10 days 10:00:00	0	err:22012:division by zero
interval_mul	00:00:00.000001	2	ok:00:00:00.000002
interval_div	00:00:00.000001	2	ok:00:00:00
interval_mul	00:00:00.000001	0.5	ok:00:00:00
interval_div	00:00:00.000001	0.5	ok:00:00:00.000002
interval_mul	00:00:00.000001	1.5	ok:00:00:00.000002
interval_div	00:00:00.000001	1.5	ok:00:00:00.000001
interval_mul	00:00:00.000001	-1	ok:-00:00:00.000001
interval_div	00:00:00.000001	-1	ok:-00:00:00.000001
interval_mul	00:00:00.000001	3	ok:00:00:00.000003
interval_div	00:00:00.000001	3	ok:00:00:00
interval_mul	00:00:00.000001	0.1	ok:00:00:00
interval_div	00:00:00.000001	0.1	ok:00:00:00.00001
interval_mul	00:00:00.000001	0.3333333333333333	ok:00:00:00
interval_div	00:00:00.000001	0.3333333333333333	ok:00:00:00.000003
interval_mul	00:00:00.000001	0.3333333	ok:00:00:00
interval_div	00:00:00.000001	0.3333333	ok:00:00:00.000003
interval_mul	00:00:00.000001	7	ok:00:00:00.000007
interval_div	00:00:00.000001	7	ok:00:00:00
interval_mul	00:00:00.000001	0	ok:00:00:00
interval_div	00:00:00.000001	0	err:22012:division by zero
interval_mul	7 mons	2	ok:1 year 2 mons
interval_div	7 mons	2	ok:3 mons 15 days
interval_mul	7 mons	0.5	ok:3 mons 15 days
interval_div	7 mons	0.5	ok:1 year 2 mons
interval_mul	7 mons	1.5	ok:10 mons 15 days
interval_div	7 mons	1.5	ok:4 mons 20 days
interval_mul	7 mons	-1	ok:-7 mons
interval_div	7 mons	-1	ok:-7 mons
interval_mul	7 mons	3	ok:1 year 9 mons
interval_div	7 mons	3	ok:2 mons 10 days
interval_mul	7 mons	0.1	ok:21 days
interval_div	7 mons	0.1	ok:5 years 10 mons
interval_mul	7 mons	0.3333333333333333	ok:2 mons 10 days
interval_div	7 mons	0.3333333333333333	ok:1 year 9 mons
interval_mul	7 mons	0.3333333	ok:2 mons 9 days 23:59:59.3952
interval_div	7 mons	0.3333333	ok:1 year 9 mons 00:00:05.4432
interval_mul	7 mons	7	ok:4 years 1 mon
interval_div	7 mons	7	ok:1 mon
interval_mul	7 mons	0	ok:00:00:00
interval_div	7 mons	0	err:22012:division by zero
interval_mul	-11 mons 88521.427086 seconds	2	ok:-1 years -10 mons +49:10:42.854172
interval_div	-11 mons 88521.427086 seconds	2	ok:-5 mons -15 days +12:17:40.713543
interval_mul	-11 mons 88521.427086 seconds	0.5	ok:-5 mons -15 days +12:17:40.713543
interval_div	-11 mons 88521.427086 seconds	0.5	ok:-1 years -10 mons +49:10:42.854172
interval_mul	-11 mons 88521.427086 seconds	1.5	ok:-1 years -4 mons -15 days +36:53:02.140629
interval_div	-11 mons 88521.427086 seconds	1.5	ok:-7 mons -10 days +16:23:34.284724
interval_mul	-11 mons 88521.427086 seconds	-1	ok:11 mons -24:35:21.427086
interval_div	-11 mons 88521.427086 seconds	-1	ok:11 mons -24:35:21.427086
interval_mul	-11 mons 88521.427086 seconds	3	ok:-2 years -9 mons +73:46:04.281258
interval_div	-11 mons 88521.427086 seconds	3	ok:-3 mons -20 days +08:11:47.142362
interval_mul	-11 mons 88521.427086 seconds	0.1	ok:-1 mons -3 days +02:27:32.142709
interval_div	-11 mons 88521.427086 seconds	0.1	ok:-9 years -2 mons +245:53:34.27086
interval_mul	-11 mons 88521.427086 seconds	0.3333333333333333	ok:-3 mons -20 days +08:11:47.142362
interval_div	-11 mons 88521.427086 seconds	0.3333333333333333	ok:-2 years -9 mons +73:46:04.281258
interval_mul	-11 mons 88521.427086 seconds	0.3333333	ok:-3 mons -19 days -15:48:11.910189
interval_div	-11 mons 88521.427086 seconds	0.3333333	ok:-2 years -9 mons +73:45:55.754214
interval_mul	-11 mons 88521.427086 seconds	7	ok:-6 years -5 mons +172:07:29.989602
interval_div	-11 mons 88521.427086 seconds	7	ok:-1 mons -17 days +00:05:03.073355
interval_mul	-11 mons 88521.427086 seconds	0	ok:00:00:00
interval_div	-11 mons 88521.427086 seconds	0	err:22012:division by zero
interval_mul	-26 days	2	ok:-52 days
interval_div	-26 days	2	ok:-13 days
interval_mul	-26 days	0.5	ok:-13 days
interval_div	-26 days	0.5	ok:-52 days
interval_mul	-26 days	1.5	ok:-39 days
interval_div	-26 days	1.5	ok:-17 days -08:00:00
interval_mul	-26 days	-1	ok:26 days
interval_div	-26 days	-1	ok:26 days
interval_mul	-26 days	3	ok:-78 days
interval_div	-26 days	3	ok:-8 days -16:00:00
interval_mul	-26 days	0.1	ok:-2 days -14:24:00
interval_div	-26 days	0.1	ok:-260 days
interval_mul	-26 days	0.3333333333333333	ok:-8 days -16:00:00
interval_div	-26 days	0.3333333333333333	ok:-78 days
interval_mul	-26 days	0.3333333	ok:-8 days -15:59:59.92512
interval_div	-26 days	0.3333333	ok:-78 days -00:00:00.67392
interval_mul	-26 days	7	ok:-182 days
interval_div	-26 days	7	ok:-3 days -17:08:34.285714
interval_mul	-26 days	0	ok:00:00:00
interval_div	-26 days	0	err:22012:division by zero
interval_mul	32707.278482 seconds	2	ok:18:10:14.556964
interval_div	32707.278482 seconds	2	ok:04:32:33.639241
interval_mul	32707.278482 seconds	0.5	ok:04:32:33.639241
interval_div	32707.278482 seconds	0.5	ok:18:10:14.556964
interval_mul	32707.278482 seconds	1.5	ok:13:37:40.917723
interval_div	32707.278482 seconds	1.5	ok:06:03:24.852321
interval_mul	32707.278482 seconds	-1	ok:-09:05:07.278482
interval_div	32707.278482 seconds	-1	ok:-09:05:07.278482
interval_mul	32707.278482 seconds	3	ok:27:15:21.835446
interval_div	32707.278482 seconds	3	ok:03:01:42.426161
interval_mul	32707.278482 seconds	0.1	ok:00:54:30.727848
interval_div	32707.278482 seconds	0.1	ok:90:51:12.78482
interval_mul	32707.278482 seconds	0.3333333333333333	ok:03:01:42.426161
interval_div	32707.278482 seconds	0.3333333333333333	ok:27:15:21.835446
interval_mul	32707.278482 seconds	0.3333333	ok:03:01:42.42507
interval_div	32707.278482 seconds	0.3333333	ok:27:15:21.845258
interval_mul	32707.278482 seconds	7	ok:63:35:50.949374
interval_div	32707.278482 seconds	7	ok:01:17:52.468355
interval_mul	32707.278482 seconds	0	ok:00:00:00
interval_div	32707.278482 seconds	0	err:22012:division by zero
interval_mul	-25 mons -26 days 91434.866993 seconds	2	ok:-4 years -2 mons -52 days +50:47:49.733986
interval_div	-25 mons -26 days 91434.866993 seconds	2	ok:-1 years -28 days +12:41:57.433496
interval_mul	-25 mons -26 days 91434.866993 seconds	0.5	ok:-1 years -28 days +12:41:57.433496
interval_div	-25 mons -26 days 91434.866993 seconds	0.5	ok:-4 years -2 mons -52 days +50:47:49.733986
interval_mul	-25 mons -26 days 91434.866993 seconds	1.5	ok:-3 years -1 mons -54 days +38:05:52.30049
interval_div	-25 mons -26 days 91434.866993 seconds	1.5	ok:-1 years -4 mons -37 days +08:55:56.577995
interval_mul	-25 mons -26 days 91434.866993 seconds	-1	ok:2 years 1 mon 26 days -25:23:54.866993
interval_div	-25 mons -26 days 91434.866993 seconds	-1	ok:2 years 1 mon 26 days -25:23:54.866993
interval_mul	-25 mons -26 days 91434.866993 seconds	3	ok:-6 years -3 mons -78 days +76:11:44.600979
interval_div	-25 mons -26 days 91434.866993 seconds	3	ok:-8 mons -18 days -07:32:01.711002
interval_mul	-25 mons -26 days 91434.866993 seconds	0.1	ok:-2 mons -17 days -11:51:36.513301
interval_div	-25 mons -26 days 91434.866993 seconds	0.1	ok:-20 years -10 mons -260 days +253:59:08.66993
interval_mul	-25 mons -26 days 91434.866993 seconds	0.3333333333333333	ok:-8 mons -18 days -07:32:01.711002
interval_div	-25 mons -26 days 91434.866993 seconds	0.3333333333333333	ok:-6 years -3 mons -78 days +76:11:44.600979
interval_mul	-25 mons -26 days 91434.866993 seconds	0.3333333	ok:-8 mons -18 days -07:31:59.47917
interval_div	-25 mons -26 days 91434.866993 seconds	0.3333333	ok:-6 years -3 mons -78 days +76:11:24.514489
interval_mul	-25 mons -26 days 91434.866993 seconds	7	ok:-14 years -7 mons -182 days +177:47:24.068951
interval_div	-25 mons -26 days 91434.866993 seconds	7	ok:-3 mons -20 days -16:56:35.006658
interval_mul	-25 mons -26 days 91434.866993 seconds	0	ok:00:00:00
interval_div	-25 mons -26 days 91434.866993 seconds	0	err:22012:division by zero
interval_mul	-22120.263008 seconds	2	ok:-12:17:20.526016
interval_div	-22120.263008 seconds	2	ok:-03:04:20.131504
interval_mul	-22120.263008 seconds	0.5	ok:-03:04:20.131504
interval_div	-22120.263008 seconds	0.5	ok:-12:17:20.526016
interval_mul	-22120.263008 seconds	1.5	ok:-09:13:00.394512
interval_div	-22120.263008 seconds	1.5	ok:-04:05:46.842005
interval_mul	-22120.263008 seconds	-1	ok:06:08:40.263008
interval_div	-22120.263008 seconds	-1	ok:06:08:40.263008
interval_mul	-22120.263008 seconds	3	ok:-18:26:00.789024
interval_div	-22120.263008 seconds	3	ok:-02:02:53.421003
interval_mul	-22120.263008 seconds	0.1	ok:-00:36:52.026301
interval_div	-22120.263008 seconds	0.1	ok:-61:26:42.63008
interval_mul	-22120.263008 seconds	0.3333333333333333	ok:-02:02:53.421003
interval_div	-22120.263008 seconds	0.3333333333333333	ok:-18:26:00.789024
interval_mul	-22120.263008 seconds	0.3333333	ok:-02:02:53.420265
interval_div	-22120.263008 seconds	0.3333333	ok:-18:26:00.79566
interval_mul	-22120.263008 seconds	7	ok:-43:00:41.841056
interval_div	-22120.263008 seconds	7	ok:-00:52:40.037573
interval_mul	-22120.263008 seconds	0	ok:00:00:00
interval_div	-22120.263008 seconds	0	err:22012:division by zero
interval_mul	-4 days 80156.444809 seconds	2	ok:-8 days +44:31:52.889618
interval_div	-4 days 80156.444809 seconds	2	ok:-2 days +11:07:58.222404
interval_mul	-4 days 80156.444809 seconds	0.5	ok:-2 days +11:07:58.222404
interval_div	-4 days 80156.444809 seconds	0.5	ok:-8 days +44:31:52.889618
interval_mul	-4 days 80156.444809 seconds	1.5	ok:-6 days +33:23:54.667214
interval_div	-4 days 80156.444809 seconds	1.5	ok:-2 days -01:09:22.370127
interval_mul	-4 days 80156.444809 seconds	-1	ok:4 days -22:15:56.444809
interval_div	-4 days 80156.444809 seconds	-1	ok:4 days -22:15:56.444809
interval_mul	-4 days 80156.444809 seconds	3	ok:-12 days +66:47:49.334427
interval_div	-4 days 80156.444809 seconds	3	ok:-1 days -00:34:41.185064
interval_mul	-4 days 80156.444809 seconds	0.1	ok:-07:22:24.355519
interval_div	-4 days 80156.444809 seconds	0.1	ok:-40 days +222:39:24.44809
interval_mul	-4 days 80156.444809 seconds	0.3333333333333333	ok:-1 days -00:34:41.185064
interval_div	-4 days 80156.444809 seconds	0.3333333333333333	ok:-12 days +66:47:49.334427
interval_mul	-4 days 80156.444809 seconds	0.3333333	ok:-1 days -00:34:41.176216
interval_div	-4 days 80156.444809 seconds	0.3333333	ok:-12 days +66:47:49.254794
interval_mul	-4 days 80156.444809 seconds	7	ok:-28 days +155:51:35.113663
interval_div	-4 days 80156.444809 seconds	7	ok:-10:32:00.507884
interval_mul	-4 days 80156.444809 seconds	0	ok:00:00:00
interval_div	-4 days 80156.444809 seconds	0	err:22012:division by zero
interval_mul	-17 mons 27 days 26533.050440 seconds	2	ok:-2 years -10 mons +54 days 14:44:26.10088
interval_div	-17 mons 27 days 26533.050440 seconds	2	ok:-8 mons -2 days +15:41:06.52522
interval_mul	-17 mons 27 days 26533.050440 seconds	0.5	ok:-8 mons -2 days +15:41:06.52522
interval_div	-17 mons 27 days 26533.050440 seconds	0.5	ok:-2 years -10 mons +54 days 14:44:26.10088
interval_mul	-17 mons 27 days 26533.050440 seconds	1.5	ok:-2 years -1 mons +25 days 23:03:19.57566
interval_div	-17 mons 27 days 26533.050440 seconds	1.5	ok:-11 mons +8 days 04:54:48.700293
interval_mul	-17 mons 27 days 26533.050440 seconds	-1	ok:1 year 5 mons -27 days -07:22:13.05044
interval_div	-17 mons 27 days 26533.050440 seconds	-1	ok:1 year 5 mons -27 days -07:22:13.05044
interval_mul	-17 mons 27 days 26533.050440 seconds	3	ok:-4 years -3 mons +81 days 22:06:39.15132
interval_div	-17 mons 27 days 26533.050440 seconds	3	ok:-5 mons -11 days +02:27:24.350147
interval_mul	-17 mons 27 days 26533.050440 seconds	0.1	ok:-1 mons -19 days +17:32:13.305044
interval_div	-17 mons 27 days 26533.050440 seconds	0.1	ok:-14 years -2 mons +270 days 73:42:10.5044
interval_mul	-17 mons 27 days 26533.050440 seconds	0.3333333333333333	ok:-5 mons -11 days +02:27:24.350147
interval_div	-17 mons 27 days 26533.050440 seconds	0.3333333333333333	ok:-4 years -3 mons +81 days 22:06:39.15132
interval_mul	-17 mons 27 days 26533.050440 seconds	0.3333333	ok:-5 mons -11 days +02:27:25.740302
interval_div	-17 mons 27 days 26533.050440 seconds	0.3333333	ok:-4 years -3 mons +81 days 22:06:26.63992
interval_mul	-17 mons 27 days 26533.050440 seconds	7	ok:-9 years -11 mons +189 days 51:35:31.35308
interval_div	-17 mons 27 days 26533.050440 seconds	7	ok:-2 mons -9 days +01:03:10.423434
interval_mul	-17 mons 27 days 26533.050440 seconds	0	ok:00:00:00
interval_div	-17 mons 27 days 26533.050440 seconds	0	err:22012:division by zero
interval_mul	32 days -53746.019506 seconds	2	ok:64 days -29:51:32.039012
interval_div	32 days -53746.019506 seconds	2	ok:16 days -07:27:53.009753
interval_mul	32 days -53746.019506 seconds	0.5	ok:16 days -07:27:53.009753
interval_div	32 days -53746.019506 seconds	0.5	ok:64 days -29:51:32.039012
interval_mul	32 days -53746.019506 seconds	1.5	ok:48 days -22:23:39.029259
interval_div	32 days -53746.019506 seconds	1.5	ok:21 days -01:57:10.679671
interval_mul	32 days -53746.019506 seconds	-1	ok:-32 days +14:55:46.019506
interval_div	32 days -53746.019506 seconds	-1	ok:-32 days +14:55:46.019506
interval_mul	32 days -53746.019506 seconds	3	ok:96 days -44:47:18.058518
interval_div	32 days -53746.019506 seconds	3	ok:10 days 11:01:24.660165
interval_mul	32 days -53746.019506 seconds	0.1	ok:3 days 03:18:25.398049
interval_div	32 days -53746.019506 seconds	0.1	ok:320 days -149:17:40.19506
interval_mul	32 days -53746.019506 seconds	0.3333333333333333	ok:10 days 11:01:24.660165
interval_div	32 days -53746.019506 seconds	0.3333333333333333	ok:96 days -44:47:18.058518
interval_mul	32 days -53746.019506 seconds	0.3333333	ok:10 days 11:01:24.569796
interval_div	32 days -53746.019506 seconds	0.3333333	ok:96 days -44:47:17.245202
interval_mul	32 days -53746.019506 seconds	7	ok:224 days -104:30:22.136542
interval_div	32 days -53746.019506 seconds	7	ok:4 days 11:34:53.425784
interval_mul	32 days -53746.019506 seconds	0	ok:00:00:00
interval_div	32 days -53746.019506 seconds	0	err:22012:division by zero
interval_mul	0	2	ok:00:00:00
interval_div	0	2	ok:00:00:00
interval_mul	0	0.5	ok:00:00:00
interval_div	0	0.5	ok:00:00:00
interval_mul	0	1.5	ok:00:00:00
interval_div	0	1.5	ok:00:00:00
interval_mul	0	-1	ok:00:00:00
interval_div	0	-1	ok:00:00:00
interval_mul	0	3	ok:00:00:00
interval_div	0	3	ok:00:00:00
interval_mul	0	0.1	ok:00:00:00
interval_div	0	0.1	ok:00:00:00
interval_mul	0	0.3333333333333333	ok:00:00:00
interval_div	0	0.3333333333333333	ok:00:00:00
interval_mul	0	0.3333333	ok:00:00:00
interval_div	0	0.3333333	ok:00:00:00
interval_mul	0	7	ok:00:00:00
interval_div	0	7	ok:00:00:00
interval_mul	0	0	ok:00:00:00
interval_div	0	0	err:22012:division by zero
interval_mul	-32981.168463 seconds	2	ok:-18:19:22.336926
interval_div	-32981.168463 seconds	2	ok:-04:34:50.584232
interval_mul	-32981.168463 seconds	0.5	ok:-04:34:50.584232
interval_div	-32981.168463 seconds	0.5	ok:-18:19:22.336926
interval_mul	-32981.168463 seconds	1.5	ok:-13:44:31.752694
interval_div	-32981.168463 seconds	1.5	ok:-06:06:27.445642
interval_mul	-32981.168463 seconds	-1	ok:09:09:41.168463
interval_div	-32981.168463 seconds	-1	ok:09:09:41.168463
interval_mul	-32981.168463 seconds	3	ok:-27:29:03.505389
interval_div	-32981.168463 seconds	3	ok:-03:03:13.722821
interval_mul	-32981.168463 seconds	0.1	ok:-00:54:58.116846
interval_div	-32981.168463 seconds	0.1	ok:-91:36:51.68463
interval_mul	-32981.168463 seconds	0.3333333333333333	ok:-03:03:13.722821
interval_div	-32981.168463 seconds	0.3333333333333333	ok:-27:29:03.505389
interval_mul	-32981.168463 seconds	0.3333333	ok:-03:03:13.721722
interval_div	-32981.168463 seconds	0.3333333	ok:-27:29:03.515283
interval_mul	-32981.168463 seconds	7	ok:-64:07:48.179241
interval_div	-32981.168463 seconds	7	ok:-01:18:31.595495
interval_mul	-32981.168463 seconds	0	ok:00:00:00
interval_div	-32981.168463 seconds	0	err:22012:division by zero
interval_plus	1 days -72302.407990 seconds	0 mons 75122.082380 seconds	ok:1 day 00:46:59.67439
interval_minus	-30 mons 28056.262238 seconds	3 mons 17 days 40487.049216 seconds	ok:-2 years -9 mons -17 days -03:27:10.786978
interval_plus	25 mons -5 days 24228.586062 seconds	-16 days	ok:2 years 1 mon -21 days +06:43:48.586062
interval_minus	-3 mons -1 days	1 mons -37 days	ok:-4 mons +36 days
interval_plus	37478.014262 seconds	-28 mons -24 days 63321.431982 seconds	ok:-2 years -4 mons -24 days +27:59:59.446244
interval_minus	14 days -12868.299364 seconds	71956.147698 seconds	ok:14 days -23:33:44.447062
interval_plus	-20 mons -93346.463515 seconds	-6 days -33243.732546 seconds	ok:-1 years -8 mons -6 days -35:09:50.196061
interval_minus	-18 mons -33 days -42355.324920 seconds	11586.608994 seconds	ok:-1 years -6 mons -33 days -14:59:01.933914
interval_plus	-32 days	29 mons 17 days	ok:2 years 5 mons -15 days
interval_minus	-28069.197191 seconds	20 mons -2 days	ok:-1 years -8 mons +2 days -07:47:49.197191
interval_plus	0	13 mons 5 days -56354.782602 seconds	ok:1 year 1 mon 5 days -15:39:14.782602
interval_minus	77773.118810 seconds	-9 mons -20 days -37253.460780 seconds	ok:9 mons 20 days 31:57:06.57959
interval_plus	-30 mons -32 days -35882.610212 seconds	-2 mons -23 days	ok:-2 years -8 mons -55 days -09:58:02.610212
interval_minus	-20847.895284 seconds	32 days -65390.438224 seconds	ok:-32 days +12:22:22.54294
interval_plus	-4 mons 9 days	20 mons -1 days 92845.425362 seconds	ok:1 year 4 mons 8 days 25:47:25.425362
interval_minus	27 mons 36 days -9615.588399 seconds	-24 mons -6 days -20700.131943 seconds	ok:4 years 3 mons 42 days 03:04:44.543544
interval_plus	-8 mons 27003.600206 seconds	30 mons -22971.519207 seconds	ok:1 year 10 mons 01:07:12.080999
interval_minus	2 days	-27 mons 33 days	ok:2 years 3 mons -31 days
interval_plus	-519.700756 seconds	-7 mons 89590.050046 seconds	ok:-7 mons +24:44:30.34929
interval_minus	28 mons 26 days	0	ok:2 years 4 mons 26 days
interval_plus	16 mons -9296.718712 seconds	-21 mons 28581.630508 seconds	ok:-5 mons +05:21:24.911796
interval_minus	-22 days -23561.730726 seconds	-13 days 62968.819017 seconds	ok:-9 days -24:02:10.549743
interval_plus	20 mons -39 days 88629.814991 seconds	-10 mons 35268.663008 seconds	ok:10 mons -39 days +34:24:58.477999
interval_minus	5 mons -32 days	-99433.545251 seconds	ok:5 mons -32 days +27:37:13.545251
interval_plus	35 days	82233.257359 seconds	ok:35 days 22:50:33.257359
interval_minus	27 mons -6 days -82025.835811 seconds	0	ok:2 years 3 mons -6 days -22:47:05.835811
interval_plus	28 mons -33 days	29 days	ok:2 years 4 mons -4 days
interval_minus	18 mons -6 days	28 mons	ok:-10 mons -6 days
interval_plus	-17 days -5997.753917 seconds	-7 mons 75560.595528 seconds	ok:-7 mons -17 days +19:19:22.841611
interval_minus	-5 mons -27 days -20119.437711 seconds	42356.151440 seconds	ok:-5 mons -27 days -17:21:15.589151
interval_plus	-22 mons	0	ok:-1 years -10 mons
interval_minus	-30 mons 11561.442510 seconds	-3 mons -19 days 88174.236343 seconds	ok:-2 years -3 mons +19 days -21:16:52.793833
interval_plus	-18 mons -13746.041116 seconds	18 mons 23 days 28365.910437 seconds	ok:23 days 04:03:39.869321
interval_minus	-26 mons	17 mons 8 days 5439.364617 seconds	ok:-3 years -7 mons -8 days -01:30:39.364617
interval_plus	-23 days	5 days 96189.210716 seconds	ok:-18 days +26:43:09.210716
interval_minus	13 mons -69820.935405 seconds	11 mons	ok:2 mons -19:23:40.935405
interval_plus	-33969.307709 seconds	5 days -35943.976782 seconds	ok:5 days -19:25:13.284491
interval_minus	-50155.267565 seconds	17 days -96346.393740 seconds	ok:-17 days +12:49:51.126175
interval_plus	9 mons -24166.821574 seconds	-9 mons 4 days 67335.185216 seconds	ok:4 days 11:59:28.363642
interval_minus	-7 mons 3 days -38038.368666 seconds	-41835.599771 seconds	ok:-7 mons +3 days 01:03:17.231105
interval_plus	37175.795162 seconds	-27 mons -20138.695560 seconds	ok:-2 years -3 mons +04:43:57.099602
interval_minus	0	19 mons 2 days	ok:-1 years -7 mons -2 days
interval_plus	19 mons 25 days	28 days -5346.677692 seconds	ok:1 year 7 mons 53 days -01:29:06.677692
interval_minus	2 days 22395.042851 seconds	29 mons -25 days	ok:-2 years -5 mons +27 days 06:13:15.042851
interval_plus	0	0 mons -64909.969658 seconds	ok:-18:01:49.969658
interval_minus	8 mons -9 days	-45670.462405 seconds	ok:8 mons -9 days +12:41:10.462405
interval_plus	35 days 93715.349139 seconds	4 mons 13 days	ok:4 mons 48 days 26:01:55.349139
interval_minus	4 days	20 days 58948.912565 seconds	ok:-16 days -16:22:28.912565
interval_plus	-26 days	-15 mons 32880.787923 seconds	ok:-1 years -3 mons -26 days +09:08:00.787923
interval_minus	20 days -75006.084423 seconds	10 mons -29 days -11647.539757 seconds	ok:-10 mons +49 days -17:35:58.544666
justify_hours	25 hours		ok:1 day 01:00:00
justify_days	25 hours		ok:25:00:00
justify_hours	-25 hours		ok:-1 days -01:00:00
justify_days	-25 hours		ok:-25:00:00
justify_hours	1 day -1 hour		ok:23:00:00
justify_days	1 day -1 hour		ok:1 day -01:00:00
justify_hours	-1 day 1 hour		ok:-23:00:00
justify_days	-1 day 1 hour		ok:-1 days +01:00:00
justify_hours	35 days		ok:35 days
justify_days	35 days		ok:1 mon 5 days
justify_hours	-35 days		ok:-35 days
justify_days	-35 days		ok:-1 mons -5 days
justify_hours	1 mon -1 day		ok:1 mon -1 days
justify_days	1 mon -1 day		ok:29 days
justify_hours	-1 mon 1 day		ok:-1 mons +1 day
justify_days	-1 mon 1 day		ok:-29 days
justify_hours	49:00:00		ok:2 days 01:00:00
justify_days	49:00:00		ok:49:00:00
justify_hours	400 days 100 hours		ok:404 days 04:00:00
justify_days	400 days 100 hours		ok:1 year 1 mon 10 days 100:00:00
to_timestamp	0		ok:1970-01-01 00:00:00+00
to_timestamp	1		ok:1970-01-01 00:00:01+00
to_timestamp	1705314600		ok:2024-01-15 10:30:00+00
to_timestamp	1705314600.5		ok:2024-01-15 10:30:00.5+00
to_timestamp	-1		ok:1969-12-31 23:59:59+00
to_timestamp	1e10		ok:2286-11-20 17:46:40+00
to_timestamp	0.0000005		ok:1970-01-01 00:00:00+00
to_timestamp	0.0000015		ok:1970-01-01 00:00:00.000002+00
to_timestamp	1234567890.123456		ok:2009-02-13 23:31:30.123456+00
to_timestamp	-86400.25		ok:1969-12-30 23:59:59.75+00
to_timestamp	1e20		err:22008:timestamp out of range: "1e+20"
to_timestamp	'NaN'		err:22008:timestamp cannot be NaN
to_timestamp	'Infinity'		ok:infinity
to_timestamp	'-Infinity'		ok:-infinity
to_timestamp	-62135596800		ok:0001-01-01 00:00:00+00
to_timestamp	-210866803200		ok:4714-11-24 00:00:00+00 BC
to_timestamp	-210866803201		err:22008:timestamp out of range: "-2.10867e+11"
"""#
