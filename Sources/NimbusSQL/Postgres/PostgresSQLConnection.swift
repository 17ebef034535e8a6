//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Logging
import NIOCore
import NimbusStore
import PostgresNIO
import Synchronization

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The store's statements on one leased PostgreSQL connection.
///
/// Numbers the store's `?` placeholders as `$1, $2, …`, binds ``SQLValue``s as the PostgreSQL
/// types of the same name, and reads every result column back as an ``SQLValue``.
///
/// A statement that has not answered by the watchdog's deadline fails and closes the
/// connection: the server cancels statements at its `statement_timeout`, so silence past it (and
/// a grace period) means the server or the network is gone, and TCP alone may take hours to say
/// so.
struct PostgresSQLConnection: SQLConnection {
    let connection: PostgresConnection
    let logger: Logger
    /// `nil` waits for every answer as long as it takes.
    let watchdog: DeadlineWatchdog?
    /// The statements prepared on the pool's connections; `nil` sends every statement unnamed.
    var statements: PostgresStatementCache? = nil
    /// Where a write transaction keeps the statements it sent without waiting for their answers;
    /// `nil` waits for every answer as each statement is sent.
    var unawaited: UnawaitedStatements? = nil

    func query(_ sql: String, _ binds: [SQLValue]) async throws -> [SQLRow] {
        try await query(sql, binds, reusingPlan: true)
    }

    func query(_ sql: String, _ binds: [SQLValue], reusingPlan: Bool) async throws -> [SQLRow] {
        try await rows { sending(sql, binds, reusingPlan: reusingPlan).answer }
    }

    /// Sends a statement (`send`) and waits for its rows; should it fail, throws its cause
    /// (``cause(of:)``).
    private func rows(_ send: @Sendable () -> EventLoopFuture<[SQLRow]>) async throws -> [SQLRow] {
        do {
            return try await answered(send)
        } catch {
            throw await cause(of: error)
        }
    }

    /// Sends `statement` and returns without its answer, in a write transaction, which waits
    /// for it with its `COMMIT` (``commit()``) or before a savepoint is kept
    /// (``awaitSentStatements()``); in any other, runs it now.
    func send(_ statement: SQLStatement) async throws {
        guard let unawaited else {
            _ = try await query(statement.sql, statement.binds)
            return
        }
        if let failure = unawaited.failure { throw failure }
        guard !connection.isClosed else { throw PostgresConnectionLost(afterSending: false) }
        let sent = sending(statement.sql, statement.binds, reusingPlan: true)
        guard sent.prepares else {
            unawaited.append(.init(answer: sent.answer, startsTransaction: false))
            return
        }
        // postgres-nio holds a statement back until it is prepared, and a statement sent
        // meanwhile goes out first: this one is waited for, as the first run of each is.
        _ = try await rows { sent.answer }
    }

    /// Waits for the statements ``send(_:)`` sent unawaited; throws the first failure among
    /// them, or the one an earlier wait found.
    func awaitSentStatements() async throws {
        guard let unawaited else { return }
        for sent in unawaited.takeAll() {
            do {
                _ = try await answered { sent.answer }
            } catch {
                unawaited.fail(error, of: sent)
                break
            }
        }
        if let failure = unawaited.failure { throw failure }
    }

    /// Starts the transaction without waiting: `BEGIN` and the statement after it, its lock,
    /// already sent, are waited for with the transaction's next wait. A statement sent after
    /// them runs once the lock is held; should either fail, the transaction fails with that
    /// failure (``startFailure``) rather than a writer's.
    func startUnawaited(_ begin: SentStatement, _ lock: SentStatement) {
        for start in [begin, lock] {
            unawaited?.append(.init(answer: start.answer.map { _ in [] }, startsTransaction: true))
        }
    }

    /// Why the transaction's start failed, if it was not waited for (``startUnawaited(_:_:)``)
    /// and a wait since found it failed.
    var startFailure: (any Error)? { unawaited?.startFailure }

    /// The error to report for a statement that failed: the failure of a statement sent earlier
    /// unawaited, if one failed, since this one then failed only because that one had aborted
    /// the transaction. A lost connection is its own cause.
    private func cause(of error: any Error) async -> any Error {
        guard let unawaited, !unawaited.isSettled, !PostgresFailure(error).isConnectionFailure else { return error }
        do {
            try await awaitSentStatements()
        } catch let earlier {
            return earlier
        }
        return error
    }

    /// Sends a statement, named if ``PostgresStatementCache`` prepares it, and returns its future
    /// rows. The driver has the statement before this returns, so statements reach the server
    /// in the order they are sent, but for one the driver `prepares` first: it holds that one
    /// back until its preparation is answered.
    private func sending(_ sql: String, _ binds: [SQLValue], reusingPlan: Bool) -> (answer: EventLoopFuture<[SQLRow]>, prepares: Bool) {
        let bindings = Self.bindings(binds)
        if reusingPlan, let statements, let (key, prepared, isNew) = statements.statement(for: sql, binds: binds, on: connection) {
            // postgres-nio runs a prepared statement only from an async function. A task started
            // immediately runs it on this thread up to its first wait, by which point the
            // statement is written to the connection.
            let promise = connection.eventLoop.makePromise(of: [SQLRow].self)
            Task.immediate(executorPreference: EventLoopTaskExecutor.of(connection.eventLoop)) { [connection, logger] in
                do {
                    promise.succeed(try await PostgresNamedStatement.run(prepared, bindings, on: connection, logger: logger))
                } catch {
                    statements.forget(key, on: connection)
                    promise.fail(error)
                }
            }
            return (promise.futureResult, isNew)
        }
        let statement = PostgresQuery(unsafeSQL: Self.numberingPlaceholders(sql), binds: bindings)
        let answer = connection.query(statement, logger: logger).flatMapThrowing { result in
            try result.rows.map { row in SQLRow(values: try row.map(Self.value(of:))) }
        }
        return (answer, false)
    }

    /// Sends one unnamed statement and waits for its rows (``answered(_:)``).
    private func execute(_ statement: PostgresQuery) async throws -> PostgresQueryResult {
        try await answered { [connection, logger] in connection.query(statement, logger: logger) }
    }

    private static func bindings(_ binds: [SQLValue]) -> PostgresBindings {
        var bindings = PostgresBindings(capacity: binds.count)
        for value in binds {
            switch value {
            case .null: bindings.appendNull()
            case .integer(let integer): bindings.append(integer)
            case .real(let real): bindings.append(real)
            case .text(let text): bindings.append(text)
            case .blob(let bytes): bindings.append(ByteBuffer(bytes: bytes))
            case .textList(let list): bindings.append(list)
            case .integerList(let list): bindings.append(list)
            }
        }
        return bindings
    }

    /// Runs statements that take no parameters, such as `BEGIN` and `ROLLBACK`.
    func run(_ sql: String) async throws {
        _ = try await execute(PostgresQuery(unsafeSQL: sql))
    }

    /// Commits the transaction, and fails if the server rolled it back instead: it answers
    /// `COMMIT` so, not with an error, when a statement of the transaction failed, and a caller
    /// may have caught that failure and carried on.
    ///
    /// `COMMIT` goes out at once, behind the statements ``send(_:)`` sent unawaited, and they
    /// are waited for with it: one round trip for all. Should one of them have failed, the
    /// server rolled back, and its failure is thrown as a ``SentStatementFailure`` (that of the
    /// transaction's unawaited start, ``startUnawaited(_:_:)``, as it is); should the
    /// connection fail while they are waited for, that failure is thrown as it is: `COMMIT` was
    /// sent, so the outcome is unknown.
    func commit() async throws {
        if let failure = unawaited?.failure { throw startFailure ?? SentStatementFailure(error: failure) }
        guard !connection.isClosed else { throw PostgresConnectionLost(afterSending: false) }
        let committing = send("COMMIT")
        do {
            try await awaitSentStatements()
        } catch {
            // The start's failure is the transaction's own, as when it is waited for.
            throw PostgresFailure(error).isConnectionFailure || startFailure != nil ? error : SentStatementFailure(error: error)
        }
        let answer = try await answered { committing.answer }
        guard answer.metadata.command == "COMMIT" else {
            let detail = "PostgreSQL rolled the transaction back at COMMIT (\(answer.metadata.command)): a statement in it had failed"
            throw StoreError(.database, detail: detail)
        }
    }

    /// Sends a statement unnamed and returns without waiting for its answer.
    ///
    /// The connection sends the statements queued behind it as soon as it is answered, on its
    /// event loop, so a caller that sends `BEGIN` and the statement after it waits once, for
    /// the second, instead of twice with a hop to its task in between. Wait for the answer
    /// with ``wait(for:)``.
    func send(_ sql: String, _ binds: [SQLValue] = []) -> SentStatement {
        let statement = PostgresQuery(unsafeSQL: binds.isEmpty ? sql : Self.numberingPlaceholders(sql), binds: Self.bindings(binds))
        return SentStatement(answer: connection.query(statement, logger: logger))
    }

    /// Waits for the answer to a statement ``send(_:_:)`` sent, at most until the ``watchdog``
    /// gives up on it.
    func wait(for sent: SentStatement) async throws {
        _ = try await answered { sent.answer }
    }

    /// Sends a statement (`send`) and waits for its answer, at most until the ``watchdog`` gives
    /// up on it.
    ///
    /// The caller is resumed by whichever comes first, the answer or the watchdog, rather than
    /// by the driver's promise alone: a statement written to a connection that has just closed
    /// is dropped by the channel and its promise is never completed, so waiting on it alone
    /// would wait forever.
    private func answered<Value: Sendable>(_ send: @Sendable () -> EventLoopFuture<Value>) async throws -> Value {
        guard !connection.isClosed else { throw PostgresConnectionLost(afterSending: false) }
        let answer = send()
        guard let watchdog else { return try await answer.get() }
        let connection = connection
        return try await withUnsafeThrowingContinuation { continuation in
            let waiter = AnswerWaiter(continuation)
            let watch = watchdog.watch {
                // An answer that came first keeps its connection.
                guard waiter.resume(with: .failure(PostgresConnectionLost(afterSending: true))) else { return }
                let closing: EventLoopFuture<Void> = connection.close()
                closing.whenComplete { _ in }
            }
            answer.whenComplete { result in
                watchdog.release(watch)
                waiter.resume(with: result)
            }
        }
    }

    /// `sql` with each `?` outside quotes replaced by `$1`, `$2`, ….
    ///
    /// Byte by byte, as PostgreSQL reads it: the characters it looks for are ASCII, which no
    /// other character's UTF-8 contains, and walking by `Character` would break every statement,
    /// thousands of characters for a large batch's `INSERT`, into grapheme clusters for nothing.
    static func numberingPlaceholders(_ sql: String) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(sql.utf8.count + 16)
        var number = 0
        var quote: UInt8?
        for byte in sql.utf8 {
            if let open = quote {
                if byte == open { quote = nil }
                output.append(byte)
            } else if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") {
                quote = byte
                output.append(byte)
            } else if byte == UInt8(ascii: "?") {
                number += 1
                output.append(UInt8(ascii: "$"))
                output.append(contentsOf: String(number).utf8)
            } else {
                output.append(byte)
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// A result cell as the value type the store reads.
    static func value(of cell: PostgresCell) throws -> SQLValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8:
            return .integer(try cell.decode(Int64.self))
        case .float4, .float8:
            return .real(try cell.decode(Double.self))
        case .numeric:
            // SUM and AVG answer in numeric; the store only sums integers.
            let text = try cell.decode(Decimal.self).description
            if let integer = Int64(text) { return .integer(integer) }
            return .real(Double(text) ?? .nan)
        case .bool:
            return .integer(try cell.decode(Bool.self) ? 1 : 0)
        case .bytea:
            let buffer = try cell.decode(ByteBuffer.self)
            return .blob(Array(buffer.readableBytesView))
        default:
            return .text(try cell.decode(String.self))
        }
    }
}

/// A statement sent and not yet waited for (``PostgresSQLConnection/send(_:_:)``).
struct SentStatement: Sendable {
    fileprivate let answer: EventLoopFuture<PostgresQueryResult>
}

/// A statement's caller, resumed once: with the answer, or with the watchdog's verdict,
/// whichever comes first.
private final class AnswerWaiter<Value: Sendable>: Sendable {
    private let continuation: Mutex<UnsafeContinuation<Value, any Error>?>

    init(_ continuation: UnsafeContinuation<Value, any Error>) {
        self.continuation = Mutex(continuation)
    }

    /// Resumes the caller with `result`, unless it was resumed already; whether it was this call.
    @discardableResult
    func resume(with result: Result<Value, any Error>) -> Bool {
        guard let continuation = continuation.withLock({ $0.take() }) else { return false }
        continuation.resume(with: result)
        return true
    }
}

/// The connection closed before the statement's answer arrived, or the answer is overdue.
struct PostgresConnectionLost: Error, CustomStringConvertible {
    /// Whether the statement was sent before the connection was found lost.
    var afterSending: Bool

    var description: String { "the PostgreSQL connection closed or stopped answering" }
}

extension PostgresSQLConnection: SavepointConnection {
    func openSavepoint() async throws { try await run("SAVEPOINT writer") }

    /// Nothing to send: a savepoint kept stays open until the group commits, which costs
    /// nothing, where `RELEASE` would be a round trip. The next body's savepoint nests in it.
    func keepSavepoint() async throws {}

    /// Also forgets the statements the write sent unawaited, and their failure: the rollback
    /// undid them.
    func rollBackToSavepoint() async throws {
        try await run("ROLLBACK TO SAVEPOINT writer")
        unawaited?.reset()
    }
}
