import Testing
@testable import SluiceCommandLine

/// Random command lines made of the test commands' names, `sluice`'s, and junk: parsing either
/// succeeds or fails with a report, and never crashes.
@Suite struct FuzzTests {
    static let words = [
        "run", "secret", "topic", "create", "fail", "help", "--help", "-h", "--", "-", "=", "",
        "--barrier-interval-ms", "--memory-limit", "-c", "--count", "--count=", "--count=5", "--sink", "--sink=kafka",
        "--log-flush", "--ratio", "--seed", "--second-mode", "--require-tls-on-loopback", "--print-sql", "-q", "-qc",
        "-cq", "--quiet", "--quiet=1", "--listen", "--listen=", "--enable-auto-create-topics", "--disable-auto-create-topics",
        "--s3-path-style", "--no-s3-path-style", "--partitions", "--rows", "--status", "--invalid",
        "fast", "safe", "game-api", "0", "1", "-1", "-5", "1e3", "0.5", "nan", "abc", "in.json", "ü", "--ü", "-ü", "--=", "---",
        "--listen=--", "-c-1", "99999999999999999999", "--data-dir", "--kafka-listen", "--auth", "scram", "--tls-cert",
        "--no-broker", "--catalog-credential", "--log-retention-bytes", "--timestamps", "wall", "-b", "-o", "serve", "gen",
    ]

    @Test func randomCommandLinesNeverCrash() async {
        var state: UInt64 = 0x5EED
        func next() -> UInt64 {
            // SplitMix64.
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        var outcomes = [0, 0]
        for _ in 0 ..< 4000 {
            var arguments: [String] = []
            if next() % 4 != 0 { arguments.append(["run", "topic", "secret", "fail"][Int(next() % 4)]) }
            if arguments.first == "topic", next() % 2 == 0 { arguments.append("create") }
            for _ in 0 ..< Int(next() % 7) {
                var word = Self.words[Int(next() % UInt64(Self.words.count))]
                if next() % 10 == 0 { word += String(UnicodeScalar(UInt8(next() % 128))) }
                arguments.append(word)
            }
            if arguments.first == "fail" { arguments.append("--help") }
            let parser = CommandParser(root: Tool.self)
            do {
                let invocation = try parser.parse(arguments)
                _ = HelpFormatter(path: invocation.path).help
                if let run = invocation.command as? Run {
                    _ = (run.input, run.mode, run.count, run.sinks, run.network.s3PathStyle, run.output.quiet)
                }
                outcomes[0] += 1
            } catch {
                let (text, status) = CommandLineFailure.message(for: error, path: parser.resolvedPath)
                #expect(status == 0 || status == 64, "\(arguments): \(text)")
                #expect(!text.isEmpty)
                outcomes[1] += 1
            }
        }
        #expect(outcomes[0] > 100 && outcomes[1] > 100)
    }
}
