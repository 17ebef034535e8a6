//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Logging
import NimbusStore
import Synchronization

/// Builds the ``FieldIndex``es queries ask for, one at a time, in the background.
///
/// A query names the values it filters and sorts on; the first time this process sees one,
/// its index is queued, and that query (and those until the index exists) run without it.
/// Building is `CREATE INDEX IF NOT EXISTS`: an index another process built, or this one
/// before a restart, costs one quick statement. A build that fails is tried again when a
/// query asks after ``retryDelay``.
///
/// Indexes come from queries rather than from the schema's markings: a field no query uses
/// costs writes nothing, and in production a query can only name fields marked queryable or
/// sortable, so it builds no index a deployment did not allow. Queries name only fields the
/// schema knows (`QuerySQLBuilder.indexes`), and at most ``maximumCount`` field indexes are
/// built: every write of a record evaluates every index's predicate, so a development client
/// naming field after field must not be able to slow every tenant's writes without end.
final class FieldIndexBuilder: Sendable {
    private struct State {
        /// Indexes asked for and built, or being built, or waiting their turn.
        var requested: Set<FieldIndex> = []
        /// Indexes whose build failed, and when a query may ask again.
        var failed: [FieldIndex: WallInstant] = [:]
        var queue: [FieldIndex] = []
        /// Whether an index is being built now.
        var isBuilding = false
        /// Callers of ``waitUntilIdle()``.
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// How long a failed build waits before a query may ask for it again.
    static let retryDelay = Duration.seconds(60)

    /// The most field indexes the database may hold (by any process); past it, no more are built.
    /// Approximate with several processes: each counts, then builds, so two that count one
    /// below the limit at once both build.
    static let maximumCount = 32

    private let database: any SQLDatabase
    private let clock: any NimbusClock
    private let logger: Logger
    private let state = Mutex(State())
    /// Wakes ``run()`` when an index is queued.
    private let wakeups: AsyncStream<Void>
    private let wake: AsyncStream<Void>.Continuation

    init(database: any SQLDatabase, clock: any NimbusClock, logger: Logger) {
        self.database = database
        self.clock = clock
        self.logger = logger
        (wakeups, wake) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Builds the indexes queued, as they are queued, until the calling task is cancelled (the
    /// store closing): a queued index waits for a later run, a build under way ends with it.
    func run() async {
        for await _ in wakeups {
            await drain()
            if Task.isCancelled { break }
        }
        let waiters = state.withLock { state in
            defer { state.idleWaiters = [] }
            return state.idleWaiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Queues each index not yet asked for.
    func request(_ indexes: some Sequence<FieldIndex>) {
        let now = clock.now
        let queued = state.withLock { state in
            let before = state.queue.count
            for index in indexes where !state.requested.contains(index) {
                if let retry = state.failed[index], retry > now { continue }
                state.failed[index] = nil
                state.requested.insert(index)
                state.queue.append(index)
            }
            return state.queue.count > before
        }
        if queued { wake.yield() }
    }

    /// Waits until every index asked for so far was built or failed (or the builder stopped).
    func waitUntilIdle() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                guard state.isBuilding || !state.queue.isEmpty else { return true }
                state.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    private func drain() async {
        while let index = next() {
            let start = clock.now
            do {
                let existing = try await database.readStatement(database.dialect.indexNamesWithPrefix, [.text(FieldIndex.namePrefix)])
                if !existing.contains(where: { $0.string(0) == index.name }), existing.count >= Self.maximumCount {
                    logger.warning(
                        "Field index not built: the database has the most field indexes allowed; queries run without it",
                        metadata: ["index": "\(index.name)", "expressions": "\(index.expressions)", "limit": "\(Self.maximumCount)"]
                    )
                    retryLater(index)
                    continue
                }
                let built = try await database.createIndexIfMissing(
                    named: index.name,
                    on: "records",
                    columns: index.columns,
                    where: index.predicate
                )
                guard built else {
                    // Another process is building it; should that build fail, ask again.
                    retryLater(index)
                    continue
                }
                logger.debug(
                    "Field index ready",
                    metadata: ["index": "\(index.name)", "expressions": "\(index.expressions)", "duration": "\(start.duration(to: clock.now))"]
                )
            } catch {
                // Stopped by the store closing: nothing failed, and nothing is left to build.
                if Task.isCancelled { return }
                logger.warning(
                    "Field index build failed; queries run without it",
                    metadata: ["index": "\(index.name)", "expressions": "\(index.expressions)", "error": "\(error)"]
                )
                retryLater(index)
            }
        }
    }

    /// Forgets that `index` was asked for, so a query may ask again after ``retryDelay``.
    private func retryLater(_ index: FieldIndex) {
        let now = clock.now
        state.withLock { state in
            state.requested.remove(index)
            state.failed[index] = now.advanced(by: Self.retryDelay)
        }
    }

    /// The next queued index, or `nil` (waking those waiting for idleness) when none is left.
    private func next() -> FieldIndex? {
        let (index, waiters) = state.withLock { state -> (FieldIndex?, [CheckedContinuation<Void, Never>]) in
            guard !Task.isCancelled, !state.queue.isEmpty else {
                state.isBuilding = false
                defer { state.idleWaiters = [] }
                return (nil, state.idleWaiters)
            }
            state.isBuilding = true
            return (state.queue.removeFirst(), [])
        }
        for waiter in waiters { waiter.resume() }
        return index
    }
}
