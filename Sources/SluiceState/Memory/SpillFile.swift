#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import SluiceCodecs
import SluiceCore

/// A file holding evicted state pages (``StatePage``), one region each.
///
/// The file is unlinked as soon as it is opened: it lives while its descriptor does, so a crash
/// leaves nothing behind (spilled pages are a cache; the checkpoints are the durable state).
/// Regions are freed when their page goes away and reused first fit, so the file stays about
/// as large as what is spilled at its peak.
package final class SpillFile: Sendable {
    let path: String
    private let descriptor: Int32
    /// A checkpoint's run file, read in place by pages restored lazily: never written, and its
    /// regions are never freed (the file goes when its last page does).
    let isReadOnly: Bool
    private let space = Mutex(Space())

    private struct Space {
        /// End of the used part of the file.
        var end = 0
        /// Free regions inside it, by offset, not adjacent to one another.
        var free: [(offset: Int, length: Int)] = []
    }

    /// One page's bytes in the file: offset, length and the CRC-32C of the bytes.
    package struct Region: Sendable {
        let offset: Int
        let length: Int
        let checksum: UInt32
    }

    private static let sequence = Atomic<Int>(0)

    /// A new, empty spill file in `directory` (created if missing).
    package init(directory: String) throws(SluiceError) {
        mkdir(directory, 0o755)
        let number = Self.sequence.add(1, ordering: .relaxed).newValue
        let path = "\(directory)/spill-\(getpid())-\(number).pages"
        let descriptor = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw Files.error(errno, "could not create spill file", path) }
        unlink(path)
        self.path = path
        self.descriptor = descriptor
        isReadOnly = false
    }

    /// The checkpoint run file at `path`, opened for reading the pages it holds. It stays open
    /// (and its space in use, should a later checkpoint delete it) while any of them is not
    /// yet read back.
    package init(readingRunFile path: String) throws(SluiceError) {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Files.error(errno, "could not open", path) }
        self.path = path
        self.descriptor = descriptor
        isReadOnly = true
    }

    deinit {
        close(descriptor)
    }

    /// Bytes of the file in use or free for reuse.
    package var size: Int { space.withLock { $0.end } }

    /// Writes `bytes` to a free region. A failed write (a full disk) frees the region again.
    package func write(_ bytes: [UInt8]) throws(SluiceError) -> Region {
        guard !isReadOnly else { throw SluiceError(.ioError, "\(path) is read only") }
        let offset = allocate(bytes.count)
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in
                pwrite(descriptor, buffer.baseAddress! + written, buffer.count - written, off_t(offset + written))
            }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else {
                let code = result < 0 ? errno : ENOSPC
                free(Region(offset: offset, length: bytes.count, checksum: 0))
                throw Files.error(code, "could not write spill file", path)
            }
            written += result
        }
        return Region(offset: offset, length: bytes.count, checksum: CRC32C.checksum(bytes))
    }

    /// The bytes of `region`, checked against its checksum.
    package func read(_ region: Region) throws(SluiceError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: region.length)
        var done = 0
        while done < region.length {
            let result = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + done, buffer.count - done, off_t(region.offset + done))
            }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { throw Files.error(result < 0 ? errno : EIO, "could not read spill file", path) }
            done += result
        }
        guard CRC32C.checksum(bytes) == region.checksum else {
            throw SluiceError(.dataCorrupted, "spill file \(path) fails its checksum at offset \(region.offset)")
        }
        return bytes
    }

    /// The state section `region` holds (a page's contents), read and checked.
    func readSection(_ region: Region) throws(SluiceError) -> StateSection {
        let bytes = try read(region)
        let result = bytes.withUnsafeBytes { buffer in
            Result { () throws(SluiceError) -> StateSection in
                var offset = 0
                let section = try StateSection.decode(buffer, offset: &offset)
                guard offset == buffer.count else { throw SluiceError(.dataCorrupted, "a state section in \(path) has bytes after its end") }
                return section
            }
        }
        return try result.get()
    }

    /// Returns `region` to the free space.
    package func free(_ region: Region) {
        guard !isReadOnly else { return }
        space.withLock { space in
            var index = space.free.partitioningIndex { $0.offset > region.offset }
            space.free.insert((region.offset, region.length), at: index)
            // Coalesce with the neighbours.
            if index + 1 < space.free.count, space.free[index].offset + space.free[index].length == space.free[index + 1].offset {
                space.free[index].length += space.free[index + 1].length
                space.free.remove(at: index + 1)
            }
            if index > 0, space.free[index - 1].offset + space.free[index - 1].length == space.free[index].offset {
                space.free[index - 1].length += space.free[index].length
                space.free.remove(at: index)
                index -= 1
            }
            if space.free[index].offset + space.free[index].length == space.end {
                space.end = space.free[index].offset
                space.free.remove(at: index)
            }
        }
    }

    private func allocate(_ length: Int) -> Int {
        space.withLock { space in
            if let index = space.free.firstIndex(where: { $0.length >= length }) {
                let offset = space.free[index].offset
                if space.free[index].length == length {
                    space.free.remove(at: index)
                } else {
                    space.free[index].offset += length
                    space.free[index].length -= length
                }
                return offset
            }
            let offset = space.end
            space.end += length
            return offset
        }
    }
}

private extension Array {
    /// The first index whose element satisfies `predicate`, which must be false then true along the array.
    func partitioningIndex(where predicate: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let middle = (low + high) / 2
            if predicate(self[middle]) { high = middle } else { low = middle + 1 }
        }
        return low
    }
}
