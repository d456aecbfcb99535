import SluiceCLI

// The command line with `sluice bench`, whose benchmarks only the executable imports.
Sluice.benchmarks.withLock { $0 = [Bench.self] }
await Sluice.main()
