//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NIOCore
import NIOPosix
import Testing

@testable import NimbusSQL

@Suite("work that prefers an event loop as its executor")
struct EventLoopTaskExecutorTests {
    @Test("runs on that loop, and resumes there after each wait, as do tasks started for it")
    func runsOnItsLoop() async {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let executor = EventLoopTaskExecutor.of(loop)
        #expect(EventLoopTaskExecutor.of(loop) === executor, "one executor per loop")
        let onLoop = await withTaskExecutorPreference(executor) {
            var onLoop = [loop.inEventLoop]
            for _ in 0..<3 {
                // A yield gives the task back to its executor, which must run it on the loop again.
                await Task.yield()
                onLoop.append(loop.inEventLoop)
            }
            let started = Task.immediate(executorPreference: executor) {
                await Task.yield()
                return loop.inEventLoop
            }
            onLoop.append(await started.value)
            return onLoop
        }
        #expect(onLoop == [true, true, true, true, true])
    }
}
