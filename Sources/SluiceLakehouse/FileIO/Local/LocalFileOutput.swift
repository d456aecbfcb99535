#if canImport(Glibc)
import Glibc
#endif
import SluiceCore

/// A local file written piece by piece into a temporary file beside its target and renamed over
/// it on ``close()``: nothing is visible at the target before then. A failed write removes the
/// temporary file, and so does ``abort()`` or dropping the output unclosed.
///
/// Not `Sendable`: one thread writes an output.
final class LocalFileOutput: FileOutput {
    private let path: String
    private let temporary: String
    private var descriptor: Int32
    private var written = 0
    private var failure: SluiceError?

    init(path: String) throws(SluiceError) {
        self.path = path
        (descriptor, temporary) = try POSIXFile.createTemporary(besides: path)
    }

    deinit {
        abort()
    }

    func write(_ bytes: [UInt8]) throws(SluiceError) {
        try checkOpen()
        do throws(SluiceError) {
            try POSIXFile.writeAll(bytes, to: descriptor, path: temporary)
            written += bytes.count
        } catch {
            abort()
            failure = error
            throw error
        }
    }

    func close() throws(SluiceError) -> Int {
        try checkOpen()
        let descriptor = self.descriptor
        self.descriptor = -1
        do throws(SluiceError) {
            try POSIXFile.publish(descriptor, temporary: temporary, as: path)
        } catch {
            failure = error
            throw error
        }
        failure = SluiceError(.objectNotInPrerequisiteState, "output to \"\(path)\" is already closed")
        return written
    }

    func abort() {
        guard descriptor >= 0 else { return }
        Glibc.close(descriptor)
        descriptor = -1
        unlink(temporary)
        if failure == nil { failure = SluiceError(.objectNotInPrerequisiteState, "output to \"\(path)\" was aborted") }
    }

    private func checkOpen() throws(SluiceError) {
        if let failure { throw failure }
    }
}
