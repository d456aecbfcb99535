/// Somewhere to run short, self-contained jobs off the calling thread: the stream runtime's
/// worker pool. A reader hands it work it will need soon (the decompression of the Parquet page
/// after the one it decodes) and takes the result when it gets there, doing the job itself if
/// no thread has started it, so a busy pool slows nothing down.
package protocol BackgroundJobs: Sendable {
    /// Runs `job` on another thread, soon.
    func run(_ job: @escaping @Sendable () -> Void)
}
