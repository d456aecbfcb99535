#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import SluiceCodecs
import SluiceCore

/// An append-only log of records in numbered segment files (`wal-<segment>.log`), fsynced in
/// groups: what makes an acknowledged write survive a crash before the next checkpoint.
///
/// **Framing.** Each record is its payload's length (4 bytes, little-endian), the payload's
/// CRC-32C (4 bytes) and the payload. A reader stops at the first record that is short or
/// fails its checksum: in the newest segment that is the torn tail of a crash and is dropped; in
/// an older one it is damage, reported with the file's path.
///
/// **Group commit.** ``append(_:)`` writes the record to the file (the page cache: a killed
/// process loses nothing written) and returns its end position; ``makeDurable(upTo:)`` returns
/// once an fsync covers that position. While one caller fsyncs, others wait and are covered by
/// the next fsync together, so one fsync serves every statement that came in meanwhile.
///
/// **Segments.** A log opened on a directory always starts a new segment after the newest one
/// there, so nothing is ever appended behind a torn tail. ``rotate()`` starts the next segment
/// (at a checkpoint) and ``removeSegments(before:)`` deletes the ones a checkpoint covers.
package final class WriteAheadLog: Sendable {
    package let directory: String

    private struct State {
        var segment: UInt64
        var descriptor: Int32
        /// Bytes appended since the log was opened, over all segments: positions are offsets in
        /// this sequence.
        var appended: UInt64 = 0
        /// Bytes of whole records in the current segment.
        var segmentBytes: Int64 = 0
        var durable: UInt64 = 0
        var syncing = false
        /// An error that leaves the log unusable (a failed fsync, or a failed write whose torn
        /// bytes could not be cut off); the log refuses appends after it until it is reopened.
        var failure: SluiceError?
    }

    private let state: Mutex<State>
    /// Signalled when an fsync ends.
    private let synced = Condition()

    /// Opens the log in `directory` (created if missing) with a new segment after the newest.
    package init(directory: String) throws(SluiceError) {
        self.directory = directory
        try Files.createDirectory(directory)
        let segment = (try Self.segments(in: directory).last ?? 0) + 1
        let descriptor = try Self.create(Self.path(of: segment, in: directory))
        try Files.syncDirectory(directory)
        state = Mutex(State(segment: segment, descriptor: descriptor))
    }

    deinit {
        state.withLock { _ = close($0.descriptor) }
    }

    /// The segment appends go to now.
    package var currentSegment: UInt64 { state.withLock { $0.segment } }

    /// Bytes appended since the log was opened.
    package var appendedBytes: UInt64 { state.withLock { $0.appended } }

    /// Where the next record will start: every record appended so far ends at or before it.
    package var position: LogPosition { state.withLock { LogPosition(segment: $0.segment, offset: $0.segmentBytes) } }

    /// Writes one record; returns the position its end is at, for ``makeDurable(upTo:)``.
    package func append(_ payload: [UInt8]) throws(SluiceError) -> UInt64 {
        var record: [UInt8] = []
        record.reserveCapacity(payload.count + 8)
        record.appendLittleEndian(UInt32(payload.count))
        record.appendLittleEndian(CRC32C.checksum(payload))
        record += payload
        return try state.withLock { (state: inout State) throws(SluiceError) -> UInt64 in
            if let failure = state.failure { throw failure }
            try Failpoints.hit("wal-append")
            do throws(SluiceError) {
                try Files.writeAll(record, to: state.descriptor, path: Self.path(of: state.segment, in: directory))
            } catch {
                // No torn record stays behind to be taken for damage once a later segment exists.
                // Once it is cut, the log is as before the call and the next append tries again
                // (a disk that was full may have room by then); if it cannot be cut, the log
                // refuses every append until it is reopened.
                if ftruncate(state.descriptor, off_t(state.segmentBytes)) != 0 { state.failure = error }
                throw error
            }
            state.appended += UInt64(record.count)
            state.segmentBytes += Int64(record.count)
            return state.appended
        }
    }

    /// Makes the log refuse every append with `error` until it is reopened (at the next start):
    /// for a failure that leaves memory ahead of what the log says (a statement logged in parts
    /// that could not log its end), which only recovery from the log sets right.
    package func refuseAppends(because error: SluiceError) {
        state.withLock { state in
            if state.failure == nil { state.failure = error }
        }
    }

    /// Returns once everything up to `position` is on disk.
    package func makeDurable(upTo position: UInt64) throws(SluiceError) {
        while true {
            let action = state.withLock { (state: inout State) -> (descriptor: Int32, target: UInt64)? in
                if state.durable >= position { return nil }
                if state.syncing { return (-1, 0) }
                state.syncing = true
                return (state.descriptor, state.appended)
            }
            guard let action else { return }
            if action.descriptor < 0 {
                synced.wait(until: { self.state.withLock { !$0.syncing || $0.durable >= position } })
                continue
            }
            let failed = fsync(action.descriptor) != 0 ? errno : 0
            state.withLock { state in
                state.syncing = false
                if failed == 0 {
                    state.durable = max(state.durable, action.target)
                } else {
                    state.failure = SluiceError(.ioError, "could not fsync the write-ahead log in \(directory): \(String(cString: strerror(failed)))")
                }
            }
            synced.broadcast()
            if let failure = state.withLock({ $0.failure }) { throw failure }
        }
    }

    /// Closes the current segment (fsynced) and starts the next; returns the new segment's number.
    /// Records appended before the call are in earlier segments.
    @discardableResult
    package func rotate() throws(SluiceError) -> UInt64 {
        try state.withLock { (state: inout State) throws(SluiceError) -> UInt64 in
            // After a failed fsync the kernel may have dropped the pages it could not write and
            // a later fsync can succeed without them: nothing written since the last good one
            // is known durable, so the log stays stopped (as PostgreSQL stops) until reopened.
            if let failure = state.failure { throw failure }
            let next = state.segment + 1
            let descriptor = try Self.create(Self.path(of: next, in: directory))
            if fsync(state.descriptor) == 0 { state.durable = state.appended }
            _ = close(state.descriptor)
            state.descriptor = descriptor
            state.segment = next
            state.segmentBytes = 0
            return next
        }
    }

    /// Deletes the segments numbered below `segment`.
    package func removeSegments(before segment: UInt64) {
        for old in (try? Self.segments(in: directory)) ?? [] where old < segment {
            unlink(Self.path(of: old, in: directory))
        }
    }

    // MARK: Reading

    /// What ``scan(directory:from:before:repair:_:)`` found besides the records.
    package struct Extent {
        package var segments: [UInt64] = []
        /// Bytes dropped at the end of the newest segment (a write the crash cut short).
        package var tornBytes = 0
    }

    /// Hands each intact record of the segments numbered `from` and above (below `end`) to
    /// `body`, oldest first, with where it ends. Each segment is read through a mapping whose
    /// pages are let go every 8 MiB, so that a log tail of any size is read in bounded memory
    /// (the payload is valid only during the call). A damaged record in any but the newest
    /// segment is an error naming the file. With `repair`, the newest segment's torn tail is
    /// cut off the file, so that it is not taken for damage once later segments follow it.
    package static func scan(
        directory: String, from first: UInt64 = 0, before end: UInt64 = .max, repair: Bool = false,
        _ body: (_ payload: UnsafeRawBufferPointer, _ end: LogPosition) throws(SluiceError) -> Void
    ) throws(SluiceError) -> Extent {
        var extent = Extent()
        let all = try Self.segments(in: directory)
        extent.segments = all.filter { $0 >= first && $0 < end }
        for segment in extent.segments {
            let path = Self.path(of: segment, in: directory)
            let descriptor = open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { throw Files.error(errno, "could not open", path) }
            defer { close(descriptor) }
            let (offset, size) = try Files.withMappedFile(descriptor: descriptor, path: path) { (bytes) throws(SluiceError) -> (Int, Int) in
                var offset = 0
                var released = 0
                while offset + 8 <= bytes.count {
                    let length = Int(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
                    let checksum = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
                    guard length <= bytes.count - offset - 8 else { break }
                    let payload = UnsafeRawBufferPointer(rebasing: bytes[(offset + 8) ..< (offset + 8 + length)])
                    guard CRC32C.checksum(payload) == checksum else { break }
                    offset += 8 + length
                    try body(payload, LogPosition(segment: segment, offset: Int64(offset)))
                    if offset - released >= 8 << 20 {
                        Files.dropMappedPages(bytes, released ..< offset)
                        released = offset
                    }
                }
                return (offset, bytes.count)
            }
            if offset < size {
                // Only the log's last segment may end in a torn record.
                if segment != all.last {
                    throw SluiceError(
                        .dataCorrupted,
                        "write-ahead log segment \(path) is damaged at byte \(offset) of \(size)",
                        hint: "The records after that point cannot be read; the segments after it are intact.")
                }
                extent.tornBytes = size - offset
                if repair && truncate(path, off_t(offset)) != 0 { throw Files.error(errno, "could not cut the torn tail of", path) }
            }
        }
        return extent
    }

    /// The segment numbers present in `directory`, ascending.
    package static func segments(in directory: String) throws(SluiceError) -> [UInt64] {
        try Files.list(directory).compactMap { name -> UInt64? in
            guard name.hasPrefix("wal-"), name.hasSuffix(".log") else { return nil }
            return UInt64(name.dropFirst(4).dropLast(4))
        }.sorted()
    }

    package static func path(of segment: UInt64, in directory: String) -> String {
        let digits = String(segment)
        return "\(directory)/wal-\(String(repeating: "0", count: max(0, 20 - digits.count)))\(digits).log"
    }

    private static func create(_ path: String) throws(SluiceError) -> Int32 {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw Files.error(errno, "could not create", path) }
        return descriptor
    }
}

/// A condition variable over a predicate the caller checks under its own lock.
final class Condition: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()
    private var generation: UInt64 = 0

    init() {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
    }

    deinit {
        pthread_cond_destroy(&condition)
        pthread_mutex_destroy(&mutex)
    }

    /// Blocks until `done` returns true, re-checking after every broadcast.
    func wait(until done: () -> Bool) {
        pthread_mutex_lock(&mutex)
        while !done() {
            let seen = generation
            while generation == seen { pthread_cond_wait(&condition, &mutex) }
        }
        pthread_mutex_unlock(&mutex)
    }

    func broadcast() {
        pthread_mutex_lock(&mutex)
        generation &+= 1
        pthread_cond_broadcast(&condition)
        pthread_mutex_unlock(&mutex)
    }
}
