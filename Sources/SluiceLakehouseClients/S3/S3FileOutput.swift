import SluiceCore
import SluiceLakehouse

/// An S3 object written piece by piece. The bytes are buffered; once they pass the part size a
/// multipart upload starts and each full part is uploaded as it fills. ``close()`` sends the
/// rest — as one PutObject if no upload started — and completes the upload, so nothing is
/// visible before it returns. A failure or ``abort()`` aborts the upload; dropping an unclosed
/// output aborts it too.
///
/// Not `Sendable`: one thread writes an output. Blocks on the client; never on an event loop.
final class S3FileOutput: FileOutput {
    private let client: S3Client
    private let location: S3Location
    private let partSize: Int
    private var buffer: [UInt8] = []
    private var uploadID: String?
    private var parts: [S3CompletedPart] = []
    private var written = 0
    private var failure: SluiceError?

    init(client: S3Client, location: S3Location) {
        self.client = client
        self.location = location
        partSize = client.config.partSize
    }

    deinit {
        abort()
    }

    func write(_ bytes: [UInt8]) throws(SluiceError) {
        if let failure { throw failure }
        buffer += bytes
        written += bytes.count
        // Keep at least one byte back, so a file of exactly one part stays a single PUT.
        while buffer.count > partSize {
            let part = Array(buffer[0 ..< partSize])
            buffer.removeFirst(partSize)
            try upload(part)
        }
    }

    func close() throws(SluiceError) -> Int {
        if let failure { throw failure }
        do throws(SluiceError) {
            if let uploadID {
                if !buffer.isEmpty { try upload(buffer) }
                try client.runBlocking(.completeMultipartUpload(bucket: location.bucket, key: location.key, uploadID: uploadID, parts: parts))
                self.uploadID = nil
            } else {
                try client.runBlocking(.putObject(bucket: location.bucket, key: location.key, bytes: buffer))
            }
        } catch {
            fail(error)
            throw error
        }
        buffer = []
        failure = SluiceError(.objectNotInPrerequisiteState, "output to \(location) is already closed")
        return written
    }

    func abort() {
        buffer = []
        if failure == nil { failure = SluiceError(.objectNotInPrerequisiteState, "output to \(location) was aborted") }
        guard let uploadID else { return }
        self.uploadID = nil
        // Best effort: an upload left behind costs storage until a lifecycle rule removes it.
        try? client.runBlocking(.abortMultipartUpload(bucket: location.bucket, key: location.key, uploadID: uploadID))
    }

    private func upload(_ part: [UInt8]) throws(SluiceError) {
        do throws(SluiceError) {
            let id: String
            if let uploadID {
                id = uploadID
            } else {
                id = try client.runBlocking(.createMultipartUpload(bucket: location.bucket, key: location.key))
                uploadID = id
            }
            let number = parts.count + 1
            guard number <= 10_000 else {
                throw SluiceError(.programLimitExceeded, "output to \(location) needs more than 10000 parts of \(partSize) bytes")
            }
            let eTag = try client.runBlocking(.uploadPart(bucket: location.bucket, key: location.key, uploadID: id, partNumber: number, bytes: part))
            parts.append(S3CompletedPart(partNumber: number, eTag: eTag))
        } catch {
            fail(error)
            throw error
        }
    }

    private func fail(_ error: SluiceError) {
        abort()
        failure = error
    }
}
