import Foundation

/// A new, empty directory for one test, under the system's temporary directory.
func temporaryDirectory(_ label: String) -> String {
    let path = "\(NSTemporaryDirectory())/sluice-http-tests/\(label)-\(UUID().uuidString.prefix(8))"
    try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}
