//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

package import Logging
import NIOCore
import NIOSSL
import NimbusStore
import PostgresNIO
import Synchronization

/// A PostgreSQL database behind a connection pool, which several Nimbus processes may share.
///
/// The store's statements were written for SQLite's one writer at a time. Here:
///
/// - A write with a key (a tenant's zone writes) runs `READ COMMITTED`, and its first statement
///   after `BEGIN` takes the key's advisory lock until the transaction ends
///   (`pg_advisory_xact_lock`). Each later statement takes a snapshot of its own, after the lock
///   was granted, so it sees every write that held the key before, and none can change the
///   key's rows until commit: a tenant's writes thus run one after another, as on SQLite. Where
///   writes of different tenants meet (a new field in `record_fields`, the owner's
///   `storage_usage`), the statements are written to be right on the newest row: an upsert
///   returns the row as it is, and the store checks it (``SQLStore``'s field registry runs the
///   write again when another writer added the field with another type). A `REPEATABLE READ`
///   transaction would fix its snapshot when the lock statement starts, before the lock is
///   granted, and miss the writes of the holder it waited for; a lock taken before `BEGIN`
///   instead needs an unlock after `COMMIT`, a round trip more. `SERIALIZABLE` would add predicate locks
///   that, under load, abort writes of unrelated tenants that share index pages.
/// - Concurrent writes with the same key commit together (``WriteGroupQueue``): one transaction,
///   lock and log flush for the group, with a savepoint per write only once one of them failed
///   without. They would take turns on the lock anyway; together they skip each other's round
///   trips and flushes.
/// - A write without a key (accounts, the pruner) runs `SERIALIZABLE`: rare, and free of
///   hand-reasoned guarantees. Where it meets a keyed write's row, the keyed write waits for it
///   and carries on from the row it left; the serializable one, if second, fails and runs again.
/// - A write that loses a race (`40001`, or a deadlock, `40P01`) runs again from the start,
///   so a lost race becomes a retry that sees the winner's data (an etag `CONFLICT`, say), never
///   a lost update.
///
/// Reads run `REPEATABLE READ READ ONLY`: one snapshot for the whole body, as SQLite's read
/// transactions.
package final class PostgreSQLDatabase: SQLDatabase {
    package let dialect = SQLDialect.postgres
    private let client: PostgresClient
    /// Opens once ``run()`` runs the pool: a lease asked for before would wait unseen, with a
    /// warning from postgres-nio.
    private let poolRunning = StoreLifetime()
    private let logger: Logger
    private let connectionWait: Duration
    /// Advisory locks are per database, not per schema: keys of a store in a schema of its own
    /// name it (stores in the default schema keep the unqualified keys).
    let lockScope: String
    /// Gives up on a statement unanswered for long enough to take its connection for dead;
    /// `nil` when statements have no timeout. It sweeps for as long as this database exists,
    /// whether or not ``run()`` runs.
    private let statementWatchdog: DeadlineWatchdog?
    private let watchdogSweeps: RepeatedTask?
    /// Gives up on a request that waited ``connectionWait`` for a pooled connection.
    private let leaseWatchdog: DeadlineWatchdog
    private let leaseWatchdogSweeps: RepeatedTask
    private let statements: PostgresStatementCache

    /// How often a write that lost a serialization race is run again before the caller sees an error.
    private static let maximumWriteAttempts = 10
    /// Concurrent writes of one tenant, gathered to commit together. A group is capped at 32:
    /// past 64 subtransactions (a body's savepoint is one) a transaction overflows the cache
    /// PostgreSQL keeps of them, and every snapshot in the cluster gets slower.
    let groups = WriteGroupQueue<PostgresSQLConnection>(maximumGroupSize: 32)
    /// Connects to the database and brings its schema up to date.
    ///
    /// The migrations run on a client of their own, run only for them, which waits at least 30
    /// seconds for a connection: the pool of the database returned runs in ``run()``, as a
    /// service of the caller's, with the location's own wait.
    /// - Returns: the database, and whether it held no container before (a new deployment).
    package static func open(_ location: PostgresLocation, logger: Logger) async throws -> (PostgreSQLDatabase, heldNoData: Bool) {
        var migrations = location
        migrations.poolSize = 1
        // Opening is once per start: it waits for the database longer than a request would
        // (a server started beside its database, or on a loaded machine, outlasts a slow first
        // connection), at least 30 seconds.
        migrations.connectionWaitMilliseconds = max(location.connectionWaitMilliseconds, 30_000)
        // Nor does it give up on a statement: it may wait for another process's migrations
        // (the lock below) as long as they take, and a migration may rewrite a large table.
        migrations.statementTimeoutMilliseconds = 0
        // Migrations run each statement once.
        migrations.preparedStatements = 0
        let migrator = PostgreSQLDatabase(migrations, logger: logger)
        let heldNoData = try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await migrator.run() }
            defer { group.cancelAll() }
            try await migrator.migrate(schema: location.schema)
            return try await migrator.readStatement("SELECT 1 FROM containers LIMIT 1", []).isEmpty
        }
        return (PostgreSQLDatabase(location, logger: logger), heldNoData)
    }

    package func run() async {
        async let running: Void = client.run()
        await Task.yield()
        _ = poolRunning.close()
        await running
    }

    private init(_ location: PostgresLocation, logger: Logger) {
        let tls: PostgresClient.Configuration.TLS =
            switch location.tls {
            case .disable: .disable
            case .prefer: .prefer(.makeClientConfiguration())
            case .require: .require(.makeClientConfiguration())
            }
        var configuration = PostgresClient.Configuration(
            host: location.host,
            port: location.port,
            username: location.username,
            password: location.password,
            database: location.database,
            tls: tls
        )
        configuration.options.maximumConnections = location.poolSize
        configuration.options.connectTimeout = .seconds(5)
        var parameters = [("application_name", "nimbus")]
        if location.statementTimeoutMilliseconds > 0 {
            parameters.append(("statement_timeout", "\(location.statementTimeoutMilliseconds)"))
        }
        if let schema = location.schema { parameters.append(("search_path", schema)) }
        configuration.options.additionalStartupParameters = parameters
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        self.client = client
        self.logger = logger
        connectionWait = .milliseconds(location.connectionWaitMilliseconds)
        statements = PostgresStatementCache(capacity: location.preparedStatements)
        lockScope = location.schema.map { "\($0)." } ?? ""
        statementWatchdog =
            location.statementTimeoutMilliseconds > 0
            ? DeadlineWatchdog(deadline: .milliseconds(location.statementTimeoutMilliseconds + 2_000)) : nil
        watchdogSweeps = statementWatchdog?.startSweeping(on: PostgresClient.defaultEventLoopGroup.any())
        leaseWatchdog = DeadlineWatchdog(deadline: connectionWait)
        leaseWatchdogSweeps = leaseWatchdog.startSweeping(on: PostgresClient.defaultEventLoopGroup.any())
    }

    deinit {
        watchdogSweeps?.cancel()
        leaseWatchdogSweeps.cancel()
    }

    package func read<Result: Sendable>(
        _ body: @escaping @Sendable (any SQLConnection) async throws -> Result
    ) async throws -> Result {
        do {
            return try await transaction("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY") { try await body($0) }
        } catch {
            throw PostgresFailure(error).storeError
        }
    }

    /// Runs the statement outside an explicit transaction: it then sees one snapshot of its own.
    package func readStatement(_ sql: String, _ binds: [SQLValue], reusingPlan: Bool) async throws -> [SQLRow] {
        let logger = logger
        let watchdog = statementWatchdog
        let statements = statements
        do {
            return try await withConnection { connection in
                try await PostgresSQLConnection(connection: connection, logger: logger, watchdog: watchdog, statements: statements)
                    .query(sql, binds, reusingPlan: reusingPlan)
            }
        } catch {
            throw PostgresFailure(error).storeError
        }
    }

    package func write<Result: Sendable>(
        serializing key: String?,
        _ body: @escaping @Sendable (any SQLConnection) async throws -> Result
    ) async throws -> Result {
        try await retryingLostRaces {
            guard let key else {
                return try await self.transaction("BEGIN ISOLATION LEVEL SERIALIZABLE", writes: true) { try await body($0) }
            }
            return try await self.groups.write(
                key: key,
                committingWith: { key, members in await self.commitGroup(members, key: key) },
                { try await body($0) }
            )
        }
    }

    /// The turn is the advisory lock ``commitGroup(_:key:)`` takes for a transaction, taken
    /// by an uncorrelated subquery, evaluated once, when the statement first reaches the
    /// condition. The transaction is `REPEATABLE READ`, so that it fails, rather than carries on,
    /// where it meets a row changed after its snapshot.
    ///
    /// A transaction that lost a race runs again with the lock held around it, taken before
    /// `BEGIN` (as processes of earlier versions take it for every keyed write; a session lock
    /// and a transaction lock of one key exclude each other): had it waited inside its statement again,
    /// behind another process that keeps taking turns (one instance working through a backlog),
    /// its snapshot would again predate that one's commit, and it could lose every attempt.
    package func write<Result: Sendable>(
        takingTurnOf key: String,
        _ body: @escaping @Sendable (_ connection: any SQLConnection, _ turn: String) async throws -> Result
    ) async throws -> Result {
        let begin = "BEGIN ISOLATION LEVEL REPEATABLE READ"
        let lock = Self.advisoryLock("nimbus.write.\(lockScope)\(key)")
        let turn = "(SELECT true FROM (SELECT pg_advisory_xact_lock(CAST(\(lock) AS BIGINT))) AS turn)"
        var lostARace = false
        return try await retryingLostRaces {
            defer { lostARace = true }
            guard lostARace else { return try await self.transaction(begin, writes: true) { try await body($0, turn) } }
            return try await self.transaction(begin, lock: .aroundTransaction(lock), writes: true) { try await body($0, "true") }
        }
    }

    /// Runs `attempt` again while it loses a race (`40001`, or a deadlock, `40P01`), up to
    /// ``maximumWriteAttempts`` times, and turns a failure into a `StoreError`.
    private func retryingLostRaces<Result>(_ attempt: () async throws -> Result) async throws -> Result {
        var attempts = 1
        while true {
            do {
                return try await attempt()
            } catch {
                let failure = PostgresFailure(error)
                guard failure.isSerializationFailure, attempts < Self.maximumWriteAttempts else { throw failure.storeError }
                attempts += 1
                // Back off a little, at random, so the transactions that collided do not collide again.
                try await Task.sleep(for: .microseconds(Int.random(in: 0...(500 << min(attempts, 6)))))
            }
        }
    }

    /// Runs a group of one key's writes (``WriteGroupQueue``) in one `READ COMMITTED`
    /// transaction that takes the key's lock first, and commits it: one `BEGIN`, `COMMIT` and
    /// lock, and one log flush, for the whole group.
    ///
    /// Most writes succeed, so a group's bodies first run one after another with no savepoint,
    /// a round trip fewer each. Should one fail, even on a lost race, the transaction rolls back
    /// and the group runs again with a savepoint per body, so the failure is its writer's alone
    /// (a body may run more than once: ``write(serializing:_:)``). A failure outside the bodies
    /// (`BEGIN`, `COMMIT`) or of the connection is the group's, as it is for a group of one: with
    /// savepoints it was too, since the rollback to the savepoint could not run.
    private func commitGroup(_ members: [WriteGroupQueue<PostgresSQLConnection>.Member], key: String) async -> Swift.Result<Void, any Error> {
        let begin = "BEGIN ISOLATION LEVEL READ COMMITTED"
        let lock = Self.advisoryLock("nimbus.write.\(lockScope)\(key)")
        do {
            // Which body sent a statement that failed unawaited is not known: with savepoints,
            // each waits for its own.
            let sentStatementFailure: @Sendable (any Error) -> any Error = { members.count == 1 ? $0 : BodyFailure(error: $0) }
            try await transaction(
                begin,
                lock: .fromFirstStatement(lock),
                writes: true,
                startingUnawaited: true,
                sentStatementFailure: sentStatementFailure
            ) { connection in
                for member in members {
                    do {
                        try await member.runAlone(on: connection)
                    } catch {
                        // A lock that failed fails the group: running it again would wait again.
                        if let startFailure = connection.startFailure { throw startFailure }
                        throw members.count == 1 || PostgresFailure(error).isConnectionFailure ? error : BodyFailure(error: error)
                    }
                }
            }
            return .success(())
        } catch is BodyFailure {
            // Run again below, each body in its savepoint.
        } catch {
            return .failure(error)
        }
        do {
            try await transaction(begin, lock: .fromFirstStatement(lock), writes: true) { connection in
                for member in members { try await member.runInSavepoint(on: connection) }
            }
            return .success(())
        } catch {
            return .failure(error)
        }
    }

    /// A body of a group failed while the group ran without savepoints.
    private struct BodyFailure: Error {
        var error: any Error
    }

    package func createIndexIfMissing(named name: String, on table: String, columns: String, where predicate: String) async throws -> Bool {
        let logger = logger
        let lock = Self.advisoryLock("nimbus.index.\(lockScope)\(name)")
        do {
            // A build may take long, and a store shutting down must not wait for it: the caller
            // is answered at cancellation, and the build ends with its connection when the pool
            // closes. An index left half built is invalid, and the next build replaces it.
            return try await withConnection(answeringCancellation: true) { connection in
                // No client deadline either: a build reads the whole table.
                let sql = PostgresSQLConnection(connection: connection, logger: logger, watchdog: nil)
                // Another process building this index holds the lock: it is that one's to build.
                guard try await sql.query("SELECT pg_try_advisory_lock(?)", [.integer(lock)]).first?[0] == .integer(1) else {
                    return false
                }
                do {
                    try await sql.execute("SET statement_timeout = 0")
                    let invalid = try await sql.query(
                        """
                        SELECT 1 FROM pg_index JOIN pg_class ON pg_class.oid = pg_index.indexrelid
                        WHERE pg_class.relname = ? AND pg_class.relnamespace = CAST(current_schema() AS regnamespace)
                            AND NOT pg_index.indisvalid
                        """,
                        [.text(name)]
                    )
                    if !invalid.isEmpty { try await sql.run("DROP INDEX CONCURRENTLY IF EXISTS \(name)") }
                    try await sql.run("CREATE INDEX CONCURRENTLY IF NOT EXISTS \(name) ON \(table) (\(columns)) WHERE \(predicate)")
                } catch {
                    // Should these fail, the connection is broken and closing it ends both.
                    try? await sql.run("RESET statement_timeout")
                    try? await sql.execute("SELECT pg_advisory_unlock(?)", [.integer(lock)])
                    throw error
                }
                try await sql.run("RESET statement_timeout")
                try await sql.execute("SELECT pg_advisory_unlock(?)", [.integer(lock)])
                return true
            }
        } catch {
            throw PostgresFailure(error).storeError
        }
    }

    /// Holds one pooled connection for `LISTEN` on the store's own channel of that name
    /// (``SchemaChannel``) until cancelled.
    ///
    /// The listening runs in a task of its own, and cancellation returns at once whatever that
    /// task is doing: postgres-nio may not answer a cancellation while it waits for a lease or
    /// for `LISTEN` to start, and a server shutting down must not wait on it. The task ends when
    /// it sees the cancellation, or when the pool closes its connection.
    package func listen(channel: String, _ receive: @escaping @Sendable (String) -> Void) async throws {
        await poolRunning.waitUntilClosed()
        let client = client
        let outcome = ListenOutcome()
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let listening = Task {
                    do {
                        try await client.withConnection { connection in
                            let sql = PostgresSQLConnection(connection: connection, logger: logger, watchdog: nil)
                            guard case .text(let scoped)? = try await sql.query("SELECT \(SchemaChannel.nameSQL)", [.text(channel)]).first?[0]
                            else { throw StoreError(.database, detail: "current_schema() named no schema to listen in") }
                            try await connection.listen(on: scoped) { notifications in
                                for try await notification in notifications { receive(notification.payload) }
                            }
                        }
                        outcome.finish(.success(()))
                    } catch {
                        outcome.finish(Task.isCancelled ? .success(()) : .failure(PostgresFailure(error).storeError))
                    }
                }
                outcome.start(continuation, listening: listening)
            }
        } onCancel: {
            outcome.finish(.success(()))
        }
    }

    /// Nothing to close: the pool stops when the task running ``run()`` ends.
    package func close() async {}

    /// How a transaction holds an advisory lock.
    private enum TransactionLock {
        /// Taken before `BEGIN` and released after `COMMIT`: a `REPEATABLE READ` transaction's
        /// snapshot is taken by its first statement, and one taken before waiting for the lock
        /// would not see the writes of the transaction it waited for.
        case aroundTransaction(Int64)
        /// Taken by the first statement after `BEGIN`, released by `COMMIT`: no unlock round
        /// trip, for a `READ COMMITTED` transaction, whose later statements take snapshots of
        /// their own.
        case fromFirstStatement(Int64)
    }

    /// Runs `body` between `begin` and `COMMIT` on one leased connection; rolls back if it throws.
    ///
    /// With a `lock`, the connection holds that advisory lock as ``TransactionLock`` says.
    /// With `writes`, the body starts once `BEGIN` is answered, the statements it sent unawaited
    /// (``PostgresSQLConnection/send(_:)``) are waited for with `COMMIT` (a failure among them is
    /// passed through `sentStatementFailure`), and a COMMIT whose outcome is unknown (the server
    /// may have committed) is `StoreError.outcomeUnknown`. A write with a lock and
    /// `startingUnawaited` does not wait for `BEGIN` and its lock before its body: the body's
    /// statements go out behind them, so the first runs once the lock is held, and the start is
    /// waited for with the body's first wait (``PostgresSQLConnection/startUnawaited(_:_:)``). Without, the body
    /// only reads: its first statement goes out behind `BEGIN` unawaited, and it has nothing to
    /// lose, so it fails as any database failure.
    private func transaction<Result: Sendable>(
        _ begin: String,
        lock: TransactionLock? = nil,
        writes: Bool = false,
        startingUnawaited: Bool = false,
        sentStatementFailure: @escaping @Sendable (any Error) -> any Error = { $0 },
        _ body: @escaping @Sendable (PostgresSQLConnection) async throws -> Result
    ) async throws -> Result {
        let logger = logger
        let watchdog = statementWatchdog
        let statements = statements
        var sessionLock: Int64?
        var transactionLock: Int64?
        switch lock {
        case .aroundTransaction(let key): sessionLock = key
        case .fromFirstStatement(let key): transactionLock = key
        case nil: break
        }
        return try await withConnection { [sessionLock, transactionLock] connection in
            let sql = PostgresSQLConnection(
                connection: connection,
                logger: logger,
                watchdog: watchdog,
                statements: statements,
                unawaited: writes ? UnawaitedStatements() : nil
            )
            if let lock = sessionLock { try await sql.execute("SELECT pg_advisory_lock(?)", [.integer(lock)]) }
            let result: Result
            do {
                let began = sql.send(begin)
                do {
                    // The lock goes out behind `BEGIN`, unawaited: one wait for both, or, when
                    // the body may start before it, none of its own.
                    let locked = transactionLock.map { sql.send("SELECT pg_advisory_xact_lock(?)", [.integer($0)]) }
                    if let locked, startingUnawaited, writes {
                        sql.startUnawaited(began, locked)
                    } else {
                        if let locked { try await sql.wait(for: locked) }
                        // A write's body runs only inside the transaction. A read's first
                        // statement goes out behind `BEGIN` too: should `BEGIN` have failed, the
                        // read fails after its body, which only read.
                        if writes { try await sql.wait(for: began) }
                    }
                    result = try await body(sql)
                    if !writes { try await sql.wait(for: began) }
                    do {
                        try await sql.commit()
                    } catch let error where writes && PostgresFailure(error).leavesCommitUnknown {
                        throw StoreError(.outcomeUnknown, detail: "COMMIT got no answer: \(error)")
                    } catch let failure as SentStatementFailure {
                        throw sentStatementFailure(failure.error)
                    }
                } catch {
                    try? await sql.run("ROLLBACK")
                    throw error
                }
            } catch {
                // Should the unlock fail, the connection is broken and closing it releases the lock.
                if let lock = sessionLock { try? await sql.execute("SELECT pg_advisory_unlock(?)", [.integer(lock)]) }
                throw error
            }
            if let lock = sessionLock { try await sql.execute("SELECT pg_advisory_unlock(?)", [.integer(lock)]) }
            return result
        }
    }

    /// Leases a connection and runs `body` on it, or fails if none is leased within
    /// ``connectionWait``.
    ///
    /// The pool queues a request while it cannot connect, for up to a minute; a client is better
    /// served by `TRY_AGAIN_LATER` after a few seconds. The lease runs in a task of its own, started
    /// at once on the caller's thread (an idle connection is leased without waking another), and
    /// races its deadline in ``leaseWatchdog`` (an entry in a table swept a few times a second,
    /// rather than a sleeping task per request); whichever settles ``LeaseRace`` first answers.
    /// A lease that fails before it is granted leaves its entry to expire, which then finds the
    /// caller answered. The caller never waits for a lease that lost: the pool is asked to cancel
    /// it, but while it is connecting it may not look until its connect attempt ends, and that
    /// must not hold the request. A body that started always runs to its end and answers; should
    /// the pool hand a lost lease a connection, it gives it straight back.
    ///
    /// With `answeringCancellation`, a cancelled caller is answered at once with
    /// `CancellationError`, even while its body runs: for work that may be abandoned half done.
    private func withConnection<Result: Sendable>(
        answeringCancellation: Bool = false,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        await poolRunning.waitUntilClosed()
        let client = client
        let wait = connectionWait
        let leaseWatchdog = leaseWatchdog
        let answer = CancellationAnswer<Result>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Result, any Error>) in
                let race = LeaseRace(continuation)
                if answeringCancellation { answer.set(race) }
                let lease = Task.immediate {
                    do {
                        let result = try await client.withConnection { connection in
                            guard race.claimLease() else { throw CancellationError() }
                            return try await withTaskExecutorPreference(EventLoopTaskExecutor.of(connection.eventLoop)) {
                                try await body(connection)
                            }
                        }
                        race.finish(.success(result))
                    } catch {
                        race.finish(.failure(error))
                    }
                }
                let watch = leaseWatchdog.watch {
                    if race.expire(StoreError(.database, detail: "no PostgreSQL connection within \(wait)")) { lease.cancel() }
                }
                // Once leased, the deadline has nothing left to decide.
                race.onLease { leaseWatchdog.release(watch) }
            }
        } onCancel: {
            answer.cancel()
        }
    }

    /// The advisory lock for a name: its 64-bit FNV-1a hash.
    package static func advisoryLock(_ name: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in name.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }

    /// Creates the schema if the location names one, and applies the migrations it lacks, while
    /// holding a lock that any other Nimbus process migrating the same schema waits for.
    private func migrate(schema: String?) async throws {
        do {
            try await transaction("BEGIN", writes: true) { connection in
                // Nor one the database or its role sets.
                try await connection.execute("SET LOCAL statement_timeout = 0")
                try await connection.execute(
                    "SELECT pg_advisory_xact_lock(?)",
                    [.integer(Self.advisoryLock("nimbus.migrations.\(schema ?? "public")"))]
                )
                // The name was checked to be a plain identifier (PostgresLocation).
                if let schema { try await connection.execute("CREATE SCHEMA IF NOT EXISTS \(schema)") }
                try await SQLMigrations.migrate(connection, dialect: .postgres)
            }
        } catch {
            throw PostgresFailure(error).storeError
        }
    }
}

/// Which came first: a leased connection or the deadline for one. It holds the caller's
/// continuation and resumes it exactly once.
private final class LeaseRace<Value: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Value, any Error>?
        var leased = false
        var leaseAction: (@Sendable () -> Void)?
    }
    private let state: Mutex<State>

    init(_ continuation: CheckedContinuation<Value, any Error>) {
        state = Mutex(State(continuation: continuation))
    }

    /// Marks the lease as won; `false` if the deadline already answered the caller.
    func claimLease() -> Bool {
        let (won, action) = state.withLock { state -> (Bool, (@Sendable () -> Void)?) in
            guard state.continuation != nil else { return (false, nil) }
            state.leased = true
            return (true, state.leaseAction.take())
        }
        action?()
        return won
    }

    /// Runs `action` once a connection is leased (at once if it already is).
    func onLease(_ action: @escaping @Sendable () -> Void) {
        let runNow = state.withLock { state -> Bool in
            if state.leased { return true }
            state.leaseAction = action
            return false
        }
        if runNow { action() }
    }

    /// Answers the caller with the lease's outcome, unless the deadline already did.
    func finish(_ result: Result<Value, any Error>) {
        state.withLock { $0.continuation.take() }?.resume(with: result)
    }

    /// Answers the caller with `CancellationError` unless it was answered already, whether or
    /// not a connection was leased: the body, if it started, runs on unawaited.
    func abandon() {
        state.withLock { $0.continuation.take() }?.resume(throwing: CancellationError())
    }

    /// Answers the caller with `error` if no connection was leased yet; `true` if it did.
    func expire(_ error: any Error) -> Bool {
        guard let continuation = state.withLock({ $0.leased ? nil : $0.continuation.take() }) else { return false }
        continuation.resume(throwing: error)
        return true
    }
}

/// Answers a caller of `withConnection(answeringCancellation:)` with `CancellationError` when
/// its task is cancelled, whether the cancellation comes before or after its race is known.
private final class CancellationAnswer<Value: Sendable>: Sendable {
    private struct State {
        var race: LeaseRace<Value>?
        var cancelled = false
    }

    private let state = Mutex(State())

    func set(_ race: LeaseRace<Value>) {
        let cancelled = state.withLock { state -> Bool in
            state.race = race
            return state.cancelled
        }
        if cancelled { race.abandon() }
    }

    func cancel() {
        let race = state.withLock { state -> LeaseRace<Value>? in
            state.cancelled = true
            return state.race
        }
        race?.abandon()
    }
}

/// Resumes a listener's caller once: with the listening task's end, or at cancellation (which
/// also cancels the task).
private final class ListenOutcome: Sendable {
    private struct State {
        var continuation: CheckedContinuation<Void, any Error>?
        var listening: Task<Void, Never>?
        var result: Result<Void, any Error>?
    }

    private let state = Mutex(State())

    func start(_ continuation: CheckedContinuation<Void, any Error>, listening: Task<Void, Never>) {
        let ready = state.withLock { state -> Result<Void, any Error>? in
            state.listening = listening
            if let result = state.result { return result }
            state.continuation = continuation
            return nil
        }
        if let ready {
            listening.cancel()
            continuation.resume(with: ready)
        }
    }

    func finish(_ result: Result<Void, any Error>) {
        let (continuation, listening) = state.withLock { state -> (CheckedContinuation<Void, any Error>?, Task<Void, Never>?) in
            if state.result == nil { state.result = result }
            defer { state.continuation = nil }
            return (state.continuation, state.listening)
        }
        listening?.cancel()
        continuation?.resume(with: result)
    }
}
