import Foundation
import SluiceCore
import Synchronization

/// The broker's ACLs, kept in `acls.json` under its data directory and rewritten whole at each
/// change: written to a temporary file (mode 0600, as it tells who may read what), fsynced, and
/// renamed over the old one, whose directory is then fsynced, so a crash leaves the old list or
/// the new one.
///
/// The file lists each binding with Kafka's names, as `kafka-acls.sh --list` prints them:
/// `{"version": 1, "acls": [{"resourceType": "TOPIC", "resourceName": "orders", "patternType":
/// "LITERAL", "principal": "User:alice", "host": "*", "operation": "READ", "permissionType": "ALLOW"}]}`.
package final class ACLStore: Sendable {
    package let path: String
    private let bindings: Mutex<[ACLBinding]>

    private struct StoredFile: Codable {
        var version: Int
        var acls: [StoredBinding]
    }

    private struct StoredBinding: Codable {
        var resourceType: String
        var resourceName: String
        var patternType: String
        var principal: String
        var host: String
        var operation: String
        var permissionType: String
    }

    /// Opens the store of the broker whose data directory is `directory`, reading its ACLs if
    /// the file exists.
    package init(directory: String) throws(SluiceError) {
        path = "\(directory)/acls.json"
        guard let data = FileManager.default.contents(atPath: path) else {
            bindings = Mutex([])
            return
        }
        let stored: StoredFile
        do {
            stored = try JSONDecoder().decode(StoredFile.self, from: data)
        } catch {
            throw SluiceError(.ioError, "could not read the broker's ACLs \(path): \(error)")
        }
        var read: [ACLBinding] = []
        for entry in stored.acls {
            guard let resourceType = ACLResourceType.allCases.first(where: { $0.kafkaName == entry.resourceType }),
                  let patternType = ACLPatternType.allCases.first(where: { $0.kafkaName == entry.patternType }),
                  let operation = ACLOperation.allCases.first(where: { $0.kafkaName == entry.operation }),
                  let permission = ACLPermission.allCases.first(where: { $0.kafkaName == entry.permissionType })
            else { throw SluiceError(.ioError, "could not read the broker's ACLs \(path): unknown name in \(entry)") }
            read.append(ACLBinding(
                resourceType: resourceType, resourceName: entry.resourceName, patternType: patternType, principal: entry.principal,
                host: entry.host, operation: operation, permission: permission))
        }
        bindings = Mutex(read)
    }

    /// Every binding, in the order they were created.
    package var all: [ACLBinding] { bindings.withLock { $0 } }

    /// The bindings whose pattern covers the topic `name`.
    func bindings(onTopic name: String) -> [ACLBinding] {
        bindings.withLock { bindings in bindings.filter { $0.resourceType == .topic && $0.covers(name) } }
    }

    /// The bindings `filter` selects.
    package func bindings(matching filter: ACLFilter) -> [ACLBinding] {
        bindings.withLock { bindings in bindings.filter(filter.matches) }
    }

    /// Adds `new` (bindings already kept are not added twice, as Kafka treats them) and saves.
    package func add(_ new: [ACLBinding]) throws(SluiceError) {
        try bindings.withLock { (bindings: inout [ACLBinding]) throws(SluiceError) in
            var updated = bindings
            for binding in new where !updated.contains(binding) { updated.append(binding) }
            guard updated != bindings else { return }
            try save(updated)
            bindings = updated
        }
    }

    /// Removes every binding some filter selects and saves; returns, per filter, the bindings it
    /// selected.
    package func remove(matching filters: [ACLFilter]) throws(SluiceError) -> [[ACLBinding]] {
        try bindings.withLock { (bindings: inout [ACLBinding]) throws(SluiceError) -> [[ACLBinding]] in
            let matched = filters.map { filter in bindings.filter(filter.matches) }
            let updated = bindings.filter { binding in !filters.contains { $0.matches(binding) } }
            if updated.count != bindings.count {
                try save(updated)
                bindings = updated
            }
            return matched
        }
    }

    private func save(_ bindings: [ACLBinding]) throws(SluiceError) {
        let stored = StoredFile(version: 1, acls: bindings.map { binding in
            StoredBinding(
                resourceType: binding.resourceType.kafkaName, resourceName: binding.resourceName, patternType: binding.patternType.kafkaName,
                principal: binding.principal, host: binding.host, operation: binding.operation.kafkaName,
                permissionType: binding.permission.kafkaName)
        })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        let data: Data
        do {
            data = try encoder.encode(stored)
        } catch {
            throw SluiceError(.internalError, "could not encode the broker's ACLs: \(error)")
        }
        try Self.writeAtomically(Array(data), to: path)
    }

    /// Writes `bytes` to `path` through a temporary file: created 0600, fsynced, renamed over
    /// `path`, and the directory fsynced so the rename survives a crash.
    static func writeAtomically(_ bytes: [UInt8], to path: String) throws(SluiceError) {
        func failure(_ what: String) -> SluiceError {
            SluiceError(.ioError, "could not \(what) \(path): \(String(cString: strerror(errno)))")
        }
        let temporary = path + ".tmp"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("create a temporary file for") }
        // A temporary file left by a crash keeps its old mode through O_TRUNC.
        guard fchmod(descriptor, 0o600) == 0 else {
            close(descriptor)
            throw failure("set the mode of")
        }
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { buffer in write(descriptor, buffer.baseAddress! + written, buffer.count - written) }
            if result < 0 {
                if errno == EINTR { continue }
                close(descriptor)
                throw failure("write")
            }
            written += result
        }
        guard fsync(descriptor) == 0 else {
            close(descriptor)
            throw failure("fsync")
        }
        close(descriptor)
        guard rename(temporary, path) == 0 else { throw failure("rename a temporary file over") }
        let directory = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw failure("open the directory of") }
        defer { close(directory) }
        guard fsync(directory) == 0 else { throw failure("fsync the directory of") }
    }
}
