//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NIOCore
import Synchronization

/// A task executor that runs jobs on one NIO event loop: work done with a leased PostgreSQL
/// connection prefers its connection's loop, so the driver's answers, which arrive on that loop,
/// resume the waiting task there rather than waking a thread of the global pool, and the next
/// statement is written from the loop without waking it.
///
/// swift-nio offers event loops as serial executors (for actors) but not as task executors,
/// which is what `withTaskExecutorPreference` takes; this is that adapter.
final class EventLoopTaskExecutor: TaskExecutor {
    let eventLoop: any EventLoop

    private init(_ eventLoop: any EventLoop) {
        self.eventLoop = eventLoop
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        eventLoop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }

    /// The executor of `eventLoop`, one per loop for the life of the process (the pool's loops
    /// are few and live as long).
    static func of(_ eventLoop: any EventLoop) -> EventLoopTaskExecutor {
        let key = ObjectIdentifier(eventLoop)
        return executors.withLock { executors in
            if let executor = executors[key] { return executor }
            let executor = EventLoopTaskExecutor(eventLoop)
            executors[key] = executor
            return executor
        }
    }

    private static let executors = Mutex<[ObjectIdentifier: EventLoopTaskExecutor]>([:])
}
