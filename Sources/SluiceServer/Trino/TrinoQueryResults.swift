import SluiceCore

/// Trino's `QueryResults` document (the client protocol's one answer shape): the query's id
/// and addresses, its columns once known, a page of `data`, `stats` with the state, and
/// `error`, `updateType` and `updateCount` when they apply.
struct TrinoQueryResults {
    var id: String
    var infoURI: String
    var nextURI: String?
    var columns: [(name: String, type: DataType)]?
    /// The page's rows: a JSON array already written, or nil for none.
    var data: [UInt8]?
    /// QUEUED, RUNNING, FINISHED or FAILED.
    var state = "FINISHED"
    var error: TrinoError?
    var updateType: String?
    var updateCount: Int?

    init(id: String, infoURI: String) {
        self.id = id
        self.infoURI = infoURI
    }

    func encoded() -> [UInt8] {
        var json = TrinoJSONWriter(reservingCapacity: 512 + (data?.count ?? 0))
        json.raw("{\"id\":")
        json.string(id)
        json.raw(",\"infoUri\":")
        json.string(infoURI)
        if let nextURI {
            json.raw(",\"nextUri\":")
            json.string(nextURI)
        }
        if let columns {
            json.raw(",\"columns\":[")
            for (index, column) in columns.enumerated() {
                if index > 0 { json.byte(",") }
                json.raw("{\"name\":")
                json.string(column.name)
                json.raw(",\"type\":")
                json.string(TrinoTypes.name(of: column.type))
                json.raw(",\"typeSignature\":")
                TrinoTypes.writeSignature(of: column.type, to: &json)
                json.byte("}")
            }
            json.byte("]")
        }
        if let data {
            json.raw(",\"data\":")
            json.bytes.append(contentsOf: data)
        }
        json.raw(",\"stats\":{\"state\":")
        json.string(state)
        json.raw(",\"queued\":")
        json.bool(state == "QUEUED")
        json.raw(",\"scheduled\":")
        json.bool(state != "QUEUED")
        json.raw(",\"nodes\":1,\"totalSplits\":0,\"queuedSplits\":0,\"runningSplits\":0,\"completedSplits\":0,\"cpuTimeMillis\":0,\"wallTimeMillis\":0,\"queuedTimeMillis\":0,\"elapsedTimeMillis\":0,\"processedRows\":0,\"processedBytes\":0,\"physicalInputBytes\":0,\"peakMemoryBytes\":0,\"spilledBytes\":0}")
        if let error {
            json.raw(",\"error\":")
            error.write(to: &json)
        }
        if let updateType {
            json.raw(",\"updateType\":")
            json.string(updateType)
        }
        if let updateCount {
            json.raw(",\"updateCount\":")
            json.integer(Int64(updateCount))
        }
        json.raw(",\"warnings\":[]}")
        return json.bytes
    }
}
