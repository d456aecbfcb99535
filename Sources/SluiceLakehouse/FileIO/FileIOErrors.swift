#if canImport(Glibc)
import Glibc
#endif
import SluiceCore

/// The SQLSTATEs file IO reports beyond those ``SQLState`` names, as PostgreSQL reports them for
/// its own files and connections (`errcode_for_file_access`, libpq's connection failures).
package enum FileIOErrorCode {
    /// `58P01`, undefined_file: the file or object does not exist.
    package static let undefinedFile = SQLState("58P01")
    /// `58P02`, duplicate_file.
    package static let duplicateFile = SQLState("58P02")
    /// `42501`, insufficient_privilege: the operating system denied access to a local file.
    package static let insufficientPrivilege = SQLState("42501")
    /// `HV00N`, as every connector reports an outside system it cannot reach: the object store.
    package static let unableToConnect = SQLState.unableToEstablishConnection

    /// The error for a failed POSIX call on `path`, coded as PostgreSQL codes file access errors:
    /// a missing file `58P01`, denied access `42501`, a full disk `53100`, anything else `58030`.
    package static func posix(_ code: Int32, _ action: String, _ path: String) -> SluiceError {
        let reason = String(cString: strerror(code))
        let message = "\(action) \"\(path)\": \(reason)"
        switch code {
        case ENOENT, ENOTDIR: return SluiceError(undefinedFile, message)
        case EACCES, EPERM: return SluiceError(insufficientPrivilege, message)
        case EEXIST: return SluiceError(duplicateFile, message)
        case ENOSPC, EDQUOT: return SluiceError(.diskFull, message)
        default: return SluiceError(.ioError, message)
        }
    }
}
