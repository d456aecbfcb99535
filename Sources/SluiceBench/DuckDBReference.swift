import Foundation

/// Runs a Python script against DuckDB (the test virtualenv's package) for a benchmark's
/// reference figures.
enum DuckDBReference {
    /// Runs `script` with `arguments`; returns the `label=seconds` lines it prints, or nil (after
    /// saying so) when DuckDB is not installed.
    static func figures(script: String, arguments: [String]) throws -> [String: Double]? {
        let python = FileManager.default.isExecutableFile(atPath: ".venv/bin/python") ? ".venv/bin/python" : "/usr/bin/env"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = (python == "/usr/bin/env" ? ["python3"] : []) + ["-c", script] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            report("  duckdb: not available (install the test environment with `make test` first)")
            return nil
        }
        var figures: [String: Double] = [:]
        for line in output.split(separator: "\n") {
            let parts = line.split(separator: "=")
            if parts.count == 2, let value = Double(parts[1]) { figures[String(parts[0])] = value }
        }
        return figures
    }
}
