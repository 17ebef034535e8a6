//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Logging
import NimbusStore
import NimbusTestSupport
import Synchronization
import Testing

@testable import NimbusSQL

@Suite("the watchdog on PostgreSQL statements awaiting an answer")
struct StatementWatchdogTests {
    @Test("a statement unanswered at its deadline is given up on, once; one that answered is not")
    func overdueStatementsExpireOnce() {
        let watchdog = StatementWatchdog(deadline: .seconds(10))
        let start = ContinuousClock.now
        let expired = Mutex<[String]>([])
        _ = watchdog.watch(now: start) { expired.withLock { $0.append("silent") } }
        let answered = watchdog.watch(now: start) { expired.withLock { $0.append("answered") } }
        let later = watchdog.watch(now: start + .seconds(5)) { expired.withLock { $0.append("later") } }
        watchdog.release(answered)

        watchdog.sweep(now: start + .seconds(9))
        #expect(expired.withLock { $0 }.isEmpty, "nothing is overdue before its deadline")
        watchdog.sweep(now: start + .seconds(10))
        #expect(expired.withLock { $0 } == ["silent"])
        watchdog.release(later)
        watchdog.sweep(now: start + .seconds(30))
        #expect(expired.withLock { $0 } == ["silent"], "given up on once; the later one answered in time")
    }

    @Test("the sweeps come at most a second apart, and four times per deadline when it is short")
    func sweepInterval() {
        #expect(StatementWatchdog(deadline: .seconds(32)).sweepInterval == .seconds(1))
        #expect(StatementWatchdog(deadline: .seconds(2)).sweepInterval == .milliseconds(500))
    }
}

@Suite(
    "a PostgreSQL server that stops answering",
    .enabled(if: TestDatabase.postgresServer != nil, "needs the PostgreSQL server scripts/test starts"),
    .timeLimit(.minutes(1))
)
struct SilentPostgresTests {
    @Test("a statement its server never answers fails soon after statement_timeout plus the grace, and the next one gets a fresh connection")
    func silentServer() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-silent-\(UUID().uuidString)")
        // One connection, so the stopped server process is the one the next statement goes to.
        let url = try #require(TestDatabase(directory: directory).postgresURL) + "&pool_size=1&statement_timeout=1000"
        let (database, _) = try await PostgreSQLDatabase.open(PostgresLocation(url: url), logger: Logger(label: "test"))
        let running = Task { await database.run() }
        defer { running.cancel() }
        let backend = try #require(try await database.readStatement("SELECT pg_backend_pid()", []).first?.int(0))
        // A stopped process keeps its socket open and answers nothing, as a hung host or a
        // silent network would; PostgreSQL's own statement_timeout cannot fire in it either.
        #expect(kill(pid_t(backend), SIGSTOP) == 0)
        defer { kill(pid_t(backend), SIGCONT) }
        let start = ContinuousClock.now
        await #expect(throws: StoreError.self) { try await database.readStatement("SELECT 1", []) }
        let waited = ContinuousClock.now - start
        // The deadline is statement_timeout plus two seconds; the sweep comes at most a quarter
        // of it later.
        #expect(waited >= .seconds(3) && waited < .seconds(10), "gave up after \(waited)")
        kill(pid_t(backend), SIGCONT)
        let fresh = try await database.readStatement("SELECT pg_backend_pid()", []).first?.int(0)
        #expect(fresh != nil && fresh != backend, "the silent connection was closed and replaced")
    }
}
