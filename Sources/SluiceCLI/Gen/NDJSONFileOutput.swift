import Foundation
import SluiceGen

/// `sluice gen --output FILE|-`: each event's value as a line of a file, or of standard output
/// for `-`, written in 64 KiB blocks with `write(2)`.
struct NDJSONFileOutput: EventSink {
    private var lines: NDJSONSink
    private let descriptor: Int32
    private let ownsDescriptor: Bool

    init(path: String) throws {
        if path == "-" {
            descriptor = 1
            ownsDescriptor = false
        } else {
            descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard descriptor >= 0 else { throw fail("cannot open \(path): \(String(cString: strerror(errno)))") }
            ownsDescriptor = true
        }
        let descriptor = self.descriptor
        lines = NDJSONSink { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = Foundation.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR { continue }
                    throw NDJSONWriteError(message: String(cString: strerror(errno)))
                }
                offset += written
            }
        }
    }

    mutating func send(key: UnsafeRawBufferPointer?, value: UnsafeRawBufferPointer) throws {
        try lines.send(key: key, value: value)
    }

    mutating func flush() throws {
        try lines.flush()
    }

    mutating func finish() throws {
        try lines.finish()
        if ownsDescriptor, close(descriptor) != 0 {
            throw NDJSONWriteError(message: String(cString: strerror(errno)))
        }
    }
}

/// A failed write of generated lines.
struct NDJSONWriteError: Error, CustomStringConvertible {
    let message: String

    var description: String {
        "cannot write: \(message)"
    }
}
