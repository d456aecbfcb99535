import SluiceConnectors
import SluiceCore
import SluiceLakehouse
import SluiceServer

extension Database {
    /// A database whose sources and sinks can use every connector Sluice has.
    static func withConnectors(
        dataDirectory: String?, barrierIntervalMilliseconds: Int = 1000, checkpointFrequency: Int = 1, memoryLimit: Int? = nil,
        lakehouse: Lakehouse = .none
    ) throws(SluiceError) -> Database {
        try Database(
            dataDirectory: dataDirectory, barrierIntervalMilliseconds: barrierIntervalMilliseconds, checkpointFrequency: checkpointFrequency,
            memoryLimit: memoryLimit, connectors: BuiltInConnectors(lakehouse: lakehouse))
    }
}
