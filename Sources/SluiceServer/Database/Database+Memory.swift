import Foundation
import SluicePlanner
import SluiceState

extension Database {
    /// The state store's memory use against `--memory-limit`, and the process's resident set.
    package var memoryStatus: MemoryStatus {
        var status = MemoryStatus()
        if let memory = runtime.memory {
            status.limitBytes = memory.limit
            status.residentBytes = memory.residentBytes
            status.peakResidentBytes = memory.peakResidentBytes
            status.spilledBytes = memory.spilledBytes
            status.evictedPages = memory.evictedPages
            status.loadedPages = memory.loadedPages
        }
        (status.processBytes, status.processPeakBytes) = Self.processMemory()
        return status
    }

    /// VmRSS and VmHWM from `/proc/self/status`, in bytes (zeros where there is no procfs).
    package static func processMemory() -> (resident: Int, peak: Int) {
        guard let text = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return (0, 0) }
        var resident = 0
        var peak = 0
        for line in text.split(separator: "\n") {
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 2, let kilobytes = Int(fields[1]) else { continue }
            if fields[0] == "VmRSS:" { resident = kilobytes * 1024 }
            if fields[0] == "VmHWM:" { peak = kilobytes * 1024 }
        }
        return (resident, peak)
    }
}
