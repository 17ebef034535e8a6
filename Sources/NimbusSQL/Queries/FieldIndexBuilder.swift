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
        var failed: [FieldIndex: ContinuousClock.Instant] = [:]
        var queue: [FieldIndex] = []
        var worker: Task<Void, Never>?
        var isStopped = false
    }

    /// How long a failed build waits before a query may ask for it again.
    static let retryDelay = Duration.seconds(60)

    /// The most field indexes the database may hold (by any process); past it, no more are built.
    /// Approximate with several processes: each counts, then builds, so two that count one
    /// below the limit at once both build.
    static let maximumCount = 32

    private let database: any SQLDatabase
    private let logger: Logger
    private let state = Mutex(State())

    init(database: any SQLDatabase, logger: Logger) {
        self.database = database
        self.logger = logger
    }

    /// Queues each index not yet asked for.
    func request(_ indexes: some Sequence<FieldIndex>) {
        let now = ContinuousClock.now
        state.withLock { state in
            guard !state.isStopped else { return }
            for index in indexes where !state.requested.contains(index) {
                if let retry = state.failed[index], retry > now { continue }
                state.failed[index] = nil
                state.requested.insert(index)
                state.queue.append(index)
            }
            guard state.worker == nil, !state.queue.isEmpty else { return }
            state.worker = Task { [self] in await drain() }
        }
    }

    /// Waits until every index asked for so far was built or failed.
    func waitUntilIdle() async {
        while let worker = state.withLock({ $0.worker }) {
            await worker.value
        }
    }

    /// Stops building: queued indexes are dropped, and a build under way is waited for, at
    /// most five seconds (an SQLite build holds the writer, which closing waits for anyway).
    func stop() async {
        let worker = state.withLock { state in
            state.isStopped = true
            state.queue.removeAll()
            return state.worker
        }
        guard let worker else { return }
        if await !waitForEnd(of: worker, atMost: .seconds(5)) {
            logger.warning("An index build did not end within 5 seconds of shutdown; it is abandoned")
        }
    }

    private func drain() async {
        while let index = next() {
            let start = ContinuousClock.now
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
                    metadata: ["index": "\(index.name)", "expressions": "\(index.expressions)", "duration": "\(ContinuousClock.now - start)"]
                )
            } catch {
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
        state.withLock { state in
            state.requested.remove(index)
            state.failed[index] = .now + Self.retryDelay
        }
    }

    /// The next queued index, or `nil` (and the worker ends) when none is left.
    private func next() -> FieldIndex? {
        state.withLock { state in
            guard !state.isStopped, !state.queue.isEmpty else {
                state.worker = nil
                return nil
            }
            return state.queue.removeFirst()
        }
    }
}
