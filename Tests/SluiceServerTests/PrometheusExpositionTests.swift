import Testing

@testable import SluiceServer

/// `/metrics`' text: each family's TYPE line once before its samples, labels escaped, integral
/// values without a fraction, histograms cumulative with `+Inf`, `_sum` and `_count`.
@Suite struct PrometheusExpositionTests {
    @Test func familiesSamplesAndEscapes() {
        var text = PrometheusExposition()
        text.counter("rows_total", [("source", "a")], 5)
        text.gauge("lag", [], 2.5)
        text.counter("rows_total", [("source", "b \"quoted\" \\ and\nline")], 0)
        text.gauge("big", [], 1_000_000)
        let lines = String(decoding: text.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines == [
            "# TYPE rows_total counter",
            "rows_total{source=\"a\"} 5",
            "rows_total{source=\"b \\\"quoted\\\" \\\\ and\\nline\"} 0",
            "# TYPE lag gauge",
            "lag 2.5",
            "# TYPE big gauge",
            "big 1000000",
        ])
    }

    @Test func histogramsAreCumulative() {
        var histogram = DurationHistogram()
        for milliseconds: Int64 in [1, 7, 7, 300, 20_000] { histogram.record(nanoseconds: milliseconds * 1_000_000) }
        var text = PrometheusExposition()
        text.histogram("d_seconds", histogram)
        let lines = String(decoding: text.bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        #expect(lines.first == "# TYPE d_seconds histogram")
        #expect(lines.contains("d_seconds_bucket{le=\"0.005\"} 1"))
        #expect(lines.contains("d_seconds_bucket{le=\"0.01\"} 3"))
        #expect(lines.contains("d_seconds_bucket{le=\"0.25\"} 3"))
        #expect(lines.contains("d_seconds_bucket{le=\"0.5\"} 4"))
        #expect(lines.contains("d_seconds_bucket{le=\"10\"} 4"))
        #expect(lines.contains("d_seconds_bucket{le=\"+Inf\"} 5"))
        #expect(lines.contains("d_seconds_count 5"))
        #expect(lines.contains("d_seconds_sum 20.315"))
    }
}
