//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Synchronization

/// A fixed set of resources leased to one task at a time; tasks wait in FIFO order for a free one.
///
/// Used for SQLite connections: one write connection (so writes are serialised, as SQLite
/// requires) and several read connections.
final class ResourcePool<Resource: AnyObject>: Sendable {
    /// A resource crossing between tasks. The pool hands each to one task at a time, which is
    /// what makes moving a non-Sendable connection between them safe.
    private struct Lease: @unchecked Sendable {
        let resource: Resource
    }

    private struct State: Sendable {
        var idle: [Lease]
        var waiters: [CheckedContinuation<Lease, Never>] = []
    }

    private let state: Mutex<State>
    private let leases: [Lease]

    init(_ resources: [Resource]) {
        precondition(!resources.isEmpty, "a pool needs at least one resource")
        leases = resources.map(Lease.init)
        state = Mutex(State(idle: leases))
    }

    /// Every resource, leased or not: only for closing them at shutdown.
    var all: [Resource] { leases.map(\.resource) }

    /// Whether no resource is leased.
    var isIdle: Bool { state.withLock { $0.idle.count == leases.count } }

    /// Leases a resource for the duration of `body`.
    func withResource<Result>(_ body: (Resource) async throws -> Result) async throws -> Result {
        let lease = await acquire()
        defer { release(lease) }
        return try await body(lease.resource)
    }

    private func acquire() async -> Lease {
        if let lease = state.withLock({ $0.idle.popLast() }) { return lease }
        return await withCheckedContinuation { continuation in
            let lease: Lease? = state.withLock { state in
                if let lease = state.idle.popLast() { return lease }
                state.waiters.append(continuation)
                return nil
            }
            if let lease { continuation.resume(returning: lease) }
        }
    }

    private func release(_ lease: Lease) {
        let waiter: CheckedContinuation<Lease, Never>? = state.withLock { state in
            if state.waiters.isEmpty {
                state.idle.append(lease)
                return nil
            }
            return state.waiters.removeFirst()
        }
        waiter?.resume(returning: lease)
    }
}
