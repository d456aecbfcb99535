#if canImport(Glibc)
import Glibc
#endif
import CLibPQ
import SluiceCore

/// libpq's functions, loaded with `dlopen` when the first connection is made rather than linked:
/// libpq's own dependencies (GnuTLS through LDAP, Kerberos, p11-kit) would otherwise be loaded
/// and initialized at every server's start, several MiB of an idle server's resident memory,
/// whether or not a Postgres connector is ever used.
struct LibPQ: @unchecked Sendable {
    typealias Connection = OpaquePointer?
    typealias Result = OpaquePointer?
    typealias CString = UnsafePointer<CChar>?
    // (The functions declared to return a non-optional string never return NULL in libpq.)

    let PQconnectdbParams: @convention(c) (UnsafePointer<CString>?, UnsafePointer<CString>?, Int32) -> Connection
    let PQstatus: @convention(c) (Connection) -> ConnStatusType
    let PQerrorMessage: @convention(c) (Connection) -> UnsafeMutablePointer<CChar>
    let PQfinish: @convention(c) (Connection) -> Void
    let PQsetNoticeProcessor: @convention(c) (Connection, PQnoticeProcessor?, UnsafeMutableRawPointer?) -> PQnoticeProcessor?
    let PQserverVersion: @convention(c) (Connection) -> Int32
    let PQexec: @convention(c) (Connection, CString) -> Result
    let PQexecParams: @convention(c) (Connection, CString, Int32, UnsafePointer<Oid>?, UnsafePointer<CString>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32) -> Result
    let PQresultStatus: @convention(c) (Result) -> ExecStatusType
    let PQclear: @convention(c) (Result) -> Void
    let PQputCopyEnd: @convention(c) (Connection, CString) -> Int32
    let PQgetResult: @convention(c) (Connection) -> Result
    let PQcmdTuples: @convention(c) (Result) -> UnsafeMutablePointer<CChar>
    let PQcmdStatus: @convention(c) (Result) -> UnsafeMutablePointer<CChar>
    let PQgetCopyData: @convention(c) (Connection, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, Int32) -> Int32
    let PQputCopyData: @convention(c) (Connection, CString, Int32) -> Int32
    let PQfreemem: @convention(c) (UnsafeMutableRawPointer?) -> Void
    let PQnfields: @convention(c) (Result) -> Int32
    let PQntuples: @convention(c) (Result) -> Int32
    let PQfname: @convention(c) (Result, Int32) -> UnsafeMutablePointer<CChar>
    let PQgetisnull: @convention(c) (Result, Int32, Int32) -> Int32
    let PQgetvalue: @convention(c) (Result, Int32, Int32) -> UnsafeMutablePointer<CChar>
    let PQresultErrorField: @convention(c) (Result, Int32) -> UnsafeMutablePointer<CChar>?
    let PQresultErrorMessage: @convention(c) (Result) -> UnsafeMutablePointer<CChar>
    let PQsocket: @convention(c) (Connection) -> Int32
    let PQconsumeInput: @convention(c) (Connection) -> Int32
    let PQflush: @convention(c) (Connection) -> Int32

    /// The library, loaded once; an error names what is missing.
    static let loaded: Swift.Result<LibPQ, SluiceError> = load()

    private static func load() -> Swift.Result<LibPQ, SluiceError> {
        guard let handle = dlopen("libpq.so.5", RTLD_NOW | RTLD_LOCAL) else {
            let reason = dlerror().map { String(cString: $0) } ?? "not found"
            return .failure(SluiceError(
                .featureNotSupported, "PostgreSQL's client library could not be loaded: \(reason)",
                hint: "Install libpq5 (Debian's package; make deps installs libpq-dev, which brings it)."))
        }
        var missing: [String] = []
        func symbol<T>(_ name: String, as type: T.Type) -> T {
            guard let address = dlsym(handle, name) else {
                missing.append(name)
                return unsafeBitCast(dlsym(handle, "PQlibVersion"), to: type)
            }
            return unsafeBitCast(address, to: type)
        }
        let library = LibPQ(
            PQconnectdbParams: symbol("PQconnectdbParams", as: (@convention(c) (UnsafePointer<CString>?, UnsafePointer<CString>?, Int32) -> Connection).self),
            PQstatus: symbol("PQstatus", as: (@convention(c) (Connection) -> ConnStatusType).self),
            PQerrorMessage: symbol("PQerrorMessage", as: (@convention(c) (Connection) -> UnsafeMutablePointer<CChar>).self),
            PQfinish: symbol("PQfinish", as: (@convention(c) (Connection) -> Void).self),
            PQsetNoticeProcessor: symbol(
                "PQsetNoticeProcessor", as: (@convention(c) (Connection, PQnoticeProcessor?, UnsafeMutableRawPointer?) -> PQnoticeProcessor?).self),
            PQserverVersion: symbol("PQserverVersion", as: (@convention(c) (Connection) -> Int32).self),
            PQexec: symbol("PQexec", as: (@convention(c) (Connection, CString) -> Result).self),
            PQexecParams: symbol(
                "PQexecParams",
                as: (@convention(c) (Connection, CString, Int32, UnsafePointer<Oid>?, UnsafePointer<CString>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?, Int32)
                    -> Result).self),
            PQresultStatus: symbol("PQresultStatus", as: (@convention(c) (Result) -> ExecStatusType).self),
            PQclear: symbol("PQclear", as: (@convention(c) (Result) -> Void).self),
            PQputCopyEnd: symbol("PQputCopyEnd", as: (@convention(c) (Connection, CString) -> Int32).self),
            PQgetResult: symbol("PQgetResult", as: (@convention(c) (Connection) -> Result).self),
            PQcmdTuples: symbol("PQcmdTuples", as: (@convention(c) (Result) -> UnsafeMutablePointer<CChar>).self),
            PQcmdStatus: symbol("PQcmdStatus", as: (@convention(c) (Result) -> UnsafeMutablePointer<CChar>).self),
            PQgetCopyData: symbol("PQgetCopyData", as: (@convention(c) (Connection, UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?, Int32) -> Int32).self),
            PQputCopyData: symbol("PQputCopyData", as: (@convention(c) (Connection, CString, Int32) -> Int32).self),
            PQfreemem: symbol("PQfreemem", as: (@convention(c) (UnsafeMutableRawPointer?) -> Void).self),
            PQnfields: symbol("PQnfields", as: (@convention(c) (Result) -> Int32).self),
            PQntuples: symbol("PQntuples", as: (@convention(c) (Result) -> Int32).self),
            PQfname: symbol("PQfname", as: (@convention(c) (Result, Int32) -> UnsafeMutablePointer<CChar>).self),
            PQgetisnull: symbol("PQgetisnull", as: (@convention(c) (Result, Int32, Int32) -> Int32).self),
            PQgetvalue: symbol("PQgetvalue", as: (@convention(c) (Result, Int32, Int32) -> UnsafeMutablePointer<CChar>).self),
            PQresultErrorField: symbol("PQresultErrorField", as: (@convention(c) (Result, Int32) -> UnsafeMutablePointer<CChar>?).self),
            PQresultErrorMessage: symbol("PQresultErrorMessage", as: (@convention(c) (Result) -> UnsafeMutablePointer<CChar>).self),
            PQsocket: symbol("PQsocket", as: (@convention(c) (Connection) -> Int32).self),
            PQconsumeInput: symbol("PQconsumeInput", as: (@convention(c) (Connection) -> Int32).self),
            PQflush: symbol("PQflush", as: (@convention(c) (Connection) -> Int32).self))
        guard missing.isEmpty else {
            return .failure(SluiceError(.featureNotSupported, "PostgreSQL's client library lacks \(missing.joined(separator: ", "))"))
        }
        return .success(library)
    }
}

/// The loaded library; only reached once a connection exists, so after ``LibPQ/loaded`` succeeded.
var libpq: LibPQ {
    guard case .success(let library) = LibPQ.loaded else { fatalError("libpq is used before a connection was made") }
    return library
}
