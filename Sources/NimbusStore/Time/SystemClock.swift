//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The system's wall clock, to the millisecond; sleeps are measured on the continuous clock,
/// so a change of the system time neither shortens nor stretches a wait.
public struct SystemClock: NimbusClock {
    public init() {}

    public var now: WallInstant {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return WallInstant(millisecondsSince1970: Int64(time.tv_sec) * 1000 + Int64(time.tv_nsec) / 1_000_000)
    }

    public var minimumResolution: Duration { .milliseconds(1) }

    public func sleep(until deadline: WallInstant, tolerance: Duration?) async throws {
        try await ContinuousClock().sleep(for: now.duration(to: deadline), tolerance: tolerance)
    }
}
