#if canImport(Glibc)
import Glibc
#endif
import Foundation
import SluiceCore
import SluicePostgresClient

/// One epoch's rows on their way into a live transaction of a ``PostgresSinkLane``: the staging
/// file the fragment appends them to, the pieces of it written so far, and how far the
/// transaction got. Every field is guarded by the lane's lock.
final class PostgresShipment {
    enum Phase: Equatable {
        /// Waits behind the lane's earlier shipments.
        case queued
        /// Its transaction is open and its COPY takes the pieces as they are written.
        case copying
        /// The COPY ended with the epoch; the transaction waits on ``connection`` for the
        /// committer's word.
        case copied
        /// The committer (or the lane, to roll it back) has taken its connection to end it.
        case finishing
        /// Committed with the sink's progress row set to its epoch.
        case committed
        /// Rolled back: the progress row said the table already held its epoch.
        case held
        /// Rolled back or gone with its connection (aborted, PostgreSQL failed): the epoch goes
        /// from its file.
        case lost
    }

    let id: UInt64
    /// The staging file, open for reading until the COPY has ended.
    var descriptor: Int32
    /// The byte ranges of COPY text written to the file so far (whole rows each).
    var pieces: [Range<Int>] = []
    /// The epoch the rows belong to, set at its prepare: the COPY ends after the last piece.
    var epoch: UInt64?
    /// Set when its epoch is dropped or the sink closes: the transaction is rolled back.
    var isAborted = false
    var phase = Phase.queued
    /// The connection whose transaction holds the rows, while the shipment is copied.
    var connection: PostgresConnection?

    init(id: UInt64, descriptor: Int32) {
        self.id = id
        self.descriptor = descriptor
    }

    /// Whether it may still be aborted: nobody is ending its transaction yet.
    var isOpen: Bool { phase == .queued || phase == .copying || phase == .copied }

    func closeFile() {
        if descriptor >= 0 { Glibc.close(descriptor) }
        descriptor = -1
    }
}

/// One of an append-only Postgres sink's two lanes that ship rows while their epoch runs, as
/// the Kafka sink's two transactional producers do. A thread of its own takes the lane's
/// shipments in order and for each:
/// 1. opens a transaction on a connection of the lane and a `COPY … FROM STDIN` into the sink's
///    table, and sends each piece of the epoch's staging file as the fragment writes it;
/// 2. ends the COPY once the epoch is prepared, and leaves the transaction open on its
///    connection, which waits there for the committer;
/// 3. goes on to the lane's next shipment on another connection when no more than
///    `waitingLimit` transactions wait, its own among them (so a lane whose epoch copied quickly does not idle
///    while the other lane's earlier, bigger epoch still copies).
///
/// The committer, once the epoch's checkpoint is durable and every earlier epoch committed,
/// takes the waiting connection and sets the sink's progress row to the epoch (unless the row
/// says the table holds it already: then it rolls back) and commits. An aborted transaction is
/// rolled back by the lane.
///
/// The staging file is the queue between the fragment and the lane: the fragment never waits for
/// PostgreSQL, and the lane holds one read buffer, whatever PostgreSQL's pace. The progress row
/// is locked only by the committer's statements, one transaction at a time, so the lanes' open
/// transactions never wait for each other. Whatever goes wrong on the lane (PostgreSQL restarts,
/// a connection drops, the epoch is aborted) loses only the live transaction: the epoch's file is
/// still there and its commit falls back to it.
final class PostgresSinkLane: @unchecked Sendable {
    /// What became of a commit through the lane.
    enum Outcome: Equatable {
        case committed
        /// The table already held the epoch (its progress row said so); nothing was written.
        case held
        /// No live transaction holds the epoch (any more): commit it from its file.
        case unavailable
    }

    /// The SQL a lane runs, made once by its sink.
    struct Statements {
        /// `COPY <table> (<columns>) FROM STDIN`.
        var copy: String
        /// Creates `sluice_sink_progress` if it does not exist.
        var makeProgress: String
        /// Sets the progress row to `$2` where it is below, returning a row when it did.
        var setProgress: String
        var sinkID: String
    }

    /// Shipments a lane queues at most; an epoch that finds both lanes full goes by its file.
    static let queueLimit = 3
    /// Copied transactions that may wait for their commit while the lane copies the next epoch:
    /// a lane has at most this many connections and one more.
    static let waitingLimit = 1
    /// After a failed connection attempt the lane takes no shipments for this long.
    static let reconnectDelay = Duration.seconds(5)
    private static let readSize = 1 << 20

    /// The sink's name and the lane's number, for messages.
    private let name: String
    private let settings: PostgresConnectionSettings
    private let statements: Statements
    private let memory = MemoryShare(.sinkBuffers)

    private let condition = NSCondition()
    // Guarded by `condition`.
    private var shipments: [PostgresShipment] = []
    /// Connections whose transactions ended, for the next shipments.
    private var idle: [PostgresConnection] = []
    private var nextID: UInt64 = 1
    private var isClosed = false
    private var hasThread = false
    private var reconnectAfter: ContinuousClock.Instant?

    init(name: String, settings: PostgresConnectionSettings, statements: Statements) {
        self.name = name
        self.settings = settings
        self.statements = statements
    }

    // MARK: The fragment's side

    /// Starts shipping the staging file at `path`, before its first piece is written; nil when
    /// the lane cannot take it now (closed, `queueLimit` shipments queued, PostgreSQL unreachable
    /// a moment ago), and the epoch goes by its file alone.
    func begin(reading path: String) -> PostgresShipment? {
        condition.lock()
        defer { condition.unlock() }
        guard !isClosed, shipments.count < Self.queueLimit else { return nil }
        if let reconnectAfter, ContinuousClock.now < reconnectAfter { return nil }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        let shipment = PostgresShipment(id: nextID, descriptor: descriptor)
        nextID += 1
        shipments.append(shipment)
        if !hasThread {
            hasThread = true
            let thread = Thread { [self] in run() }
            thread.name = "sluice-pg-lane"
            thread.start()
        }
        condition.broadcast()
        return shipment
    }

    /// The fragment wrote `piece` (whole rows of COPY text) to the shipment's file.
    func ship(_ piece: Range<Int>, of shipment: PostgresShipment) {
        condition.lock()
        shipment.pieces.append(piece)
        condition.broadcast()
        condition.unlock()
    }

    /// The shipment's epoch is prepared: its COPY ends after the pieces written so far.
    func seal(_ shipment: PostgresShipment, as epoch: UInt64) {
        condition.lock()
        shipment.epoch = epoch
        condition.broadcast()
        condition.unlock()
    }

    /// Drops the shipment: its transaction is rolled back.
    func abort(_ shipment: PostgresShipment) {
        condition.lock()
        if shipment.isOpen { shipment.isAborted = true }
        condition.broadcast()
        condition.unlock()
    }

    // MARK: The committer's side

    /// Commits shipment `id` as `epoch`: waits until its COPY has ended, then sets the progress
    /// row and commits on its connection. The caller has committed every epoch before `epoch`.
    func commit(_ id: UInt64, as epoch: UInt64) -> Outcome {
        condition.lock()
        guard let shipment = shipments.first(where: { $0.id == id }) else {
            condition.unlock()
            return .unavailable
        }
        guard shipment.epoch == epoch, shipment.isOpen, !shipment.isAborted else {
            if shipment.isOpen { shipment.isAborted = true }
            condition.broadcast()
            condition.unlock()
            return .unavailable
        }
        while (shipment.phase == .queued || shipment.phase == .copying) && !shipment.isAborted { condition.wait() }
        guard shipment.phase == .copied, !shipment.isAborted, let connection = shipment.connection else {
            condition.unlock()
            return .unavailable
        }
        shipment.phase = .finishing
        shipment.connection = nil
        condition.unlock()

        var phase = PostgresShipment.Phase.lost
        do throws(SluiceError) {
            // The progress row is set only where it is below the epoch: a table that holds the
            // epoch already gets nothing from this transaction.
            if try connection.execute(statements.setProgress, [statements.sinkID, String(epoch)]).rows.isEmpty {
                try connection.execute("ROLLBACK")
                phase = .held
            } else if try connection.execute("COMMIT").commandTag == "COMMIT" {
                phase = .committed
            }
            // Otherwise the transaction had failed unseen, and PostgreSQL answered COMMIT with
            // ROLLBACK: lost.
        } catch {
            connection.close()
        }
        condition.lock()
        finish(shipment, as: phase, returning: connection)
        condition.unlock()
        switch phase {
        case .committed: return .committed
        case .held: return .held
        case .queued, .copying, .copied, .finishing, .lost: return .unavailable
        }
    }

    /// Aborts the shipments prepared for epochs before `epoch` and not committed: once a later
    /// epoch commits, no commit can come for them (their prepare failed, or their commit went
    /// by their file).
    func abortPrepared(before epoch: UInt64) {
        condition.lock()
        for shipment in shipments where shipment.isOpen && (shipment.epoch.map { $0 < epoch } ?? false) {
            shipment.isAborted = true
        }
        condition.broadcast()
        condition.unlock()
    }

    /// Aborts every shipment; the thread rolls back what is open and ends.
    func close() {
        condition.lock()
        isClosed = true
        for shipment in shipments where shipment.isOpen { shipment.isAborted = true }
        condition.broadcast()
        condition.unlock()
    }

    // MARK: The lane's thread

    /// What the lane's thread does next.
    private enum Work {
        /// Ship this epoch, on this idle connection if there is one.
        case ship(PostgresShipment, PostgresConnection?)
        /// Roll back this aborted shipment's transaction.
        case rollBack(PostgresShipment, PostgresConnection)
        case stop
    }

    private func run() {
        var scratch = [UInt8](repeating: 0, count: Self.readSize)
        memory.set(scratch.count)
        loop: while true {
            switch nextWork() {
            case .ship(let shipment, let connection):
                ship(shipment, on: connection, scratch: &scratch)
            case .rollBack(let shipment, let connection):
                let isRolledBack = (try? connection.execute("ROLLBACK")) != nil
                if !isRolledBack { connection.close() }
                condition.lock()
                finish(shipment, as: .lost, returning: connection)
                condition.unlock()
            case .stop:
                break loop
            }
        }
        memory.set(0)
    }

    /// The lane's next work, waiting for some: aborted transactions are rolled back first, then
    /// the oldest queued shipment is shipped once no more than `waitingLimit` transactions wait.
    private func nextWork() -> Work {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if isClosed {
                // Open transactions roll back with their connections.
                for shipment in shipments where shipment.isOpen {
                    shipment.connection?.close()
                    finish(shipment, as: .lost, returning: nil)
                }
                for connection in idle { connection.close() }
                idle.removeAll()
                hasThread = false
                return .stop
            }
            if let aborted = shipments.first(where: { $0.phase == .copied && $0.isAborted }), let connection = aborted.connection {
                aborted.phase = .finishing
                aborted.connection = nil
                return .rollBack(aborted, connection)
            }
            for shipment in shipments where shipment.phase == .queued && shipment.isAborted {
                finish(shipment, as: .lost, returning: nil)
            }
            let waiting = shipments.count(where: { $0.phase == .copied || $0.phase == .finishing })
            if waiting <= Self.waitingLimit, let next = shipments.first(where: { $0.phase == .queued }) {
                next.phase = .copying
                return .ship(next, idle.popLast())
            }
            condition.wait()
        }
    }

    /// Ends a shipment (lock held): records its phase, lets go of its file and of it, and keeps
    /// `connection` for the next shipments if it is still sound.
    private func finish(_ shipment: PostgresShipment, as phase: PostgresShipment.Phase, returning connection: PostgresConnection?) {
        shipment.phase = phase
        shipment.closeFile()
        shipments.removeAll { $0 === shipment }
        if let connection {
            if connection.isUsable && !isClosed { idle.append(connection) } else { connection.close() }
        }
        condition.broadcast()
    }

    /// Copies one epoch into a new transaction; on success leaves it waiting, copied.
    private func ship(_ shipment: PostgresShipment, on idleConnection: PostgresConnection?, scratch: inout [UInt8]) {
        let connection: PostgresConnection
        do throws(SluiceError) {
            connection = try connected(idleConnection)
        } catch {
            condition.lock()
            finish(shipment, as: .lost, returning: nil)
            condition.unlock()
            return
        }
        do throws(SluiceError) {
            try connection.execute("BEGIN")
            try connection.copyIn(statements.copy) { writer throws(SluiceError) in
                var index = 0
                while let piece = try nextPiece(of: shipment, at: &index) {
                    try StagingReader.send(piece, of: shipment.descriptor, file: "postgres sink \(name)'s staging file", into: &writer, scratch: &scratch)
                }
            }
        } catch {
            // Whatever failed (PostgreSQL, the connection, an abort in the middle of the COPY),
            // the transaction ends with the connection.
            connection.close()
            condition.lock()
            finish(shipment, as: .lost, returning: nil)
            condition.unlock()
            return
        }
        condition.lock()
        shipment.phase = .copied
        shipment.connection = connection
        shipment.closeFile()
        condition.broadcast()
        condition.unlock()
    }

    /// `idle` if it is still sound, or a new connection (a failure keeps the lane from taking
    /// shipments for `reconnectDelay`).
    private func connected(_ idle: PostgresConnection?) throws(SluiceError) -> PostgresConnection {
        if let idle {
            if idle.isUsable { return idle }
            idle.close()
        }
        do throws(SluiceError) {
            let made = try PostgresConnection(settings)
            try made.execute(statements.makeProgress)
            return made
        } catch {
            condition.lock()
            reconnectAfter = ContinuousClock.now + Self.reconnectDelay
            condition.unlock()
            throw error
        }
    }

    /// The next piece to send, waiting for the fragment to write it; nil once the epoch is
    /// prepared and every piece sent.
    private func nextPiece(of shipment: PostgresShipment, at index: inout Int) throws(SluiceError) -> Range<Int>? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if shipment.isAborted {
                throw SluiceError(.queryCanceled, "the live transaction of postgres sink \(name) was aborted")
            }
            if index < shipment.pieces.count {
                index += 1
                return shipment.pieces[index - 1]
            }
            if shipment.epoch != nil { return nil }
            condition.wait()
        }
    }

}
