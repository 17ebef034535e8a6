//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Synchronization
import Testing

@testable import NimbusSQL

@Suite("the watchdog on waits for PostgreSQL: statements awaiting an answer, requests awaiting a connection")
struct DeadlineWatchdogTests {
    @Test("a statement unanswered at its deadline is given up on, once; one that answered is not")
    func overdueStatementsExpireOnce() {
        let watchdog = DeadlineWatchdog(deadline: .seconds(10))
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
        #expect(DeadlineWatchdog(deadline: .seconds(32)).sweepInterval == .seconds(1))
        #expect(DeadlineWatchdog(deadline: .seconds(2)).sweepInterval == .milliseconds(500))
    }
}
