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

/// The process's limit on open file descriptors, which bounds how many connections it can hold.
enum DescriptorLimit {
    /// Descriptors kept back from connections: the database, its WAL, logs, APNs and outgoing
    /// connections, the listener.
    static let reserve = 64

    /// Raises the soft limit to the hard one (servers are often started with a soft limit of
    /// 1,024 and a much higher hard one) and returns the soft limit now in force.
    @discardableResult
    static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(resourceNoFile, &limit) == 0 else { return 1024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            #if canImport(Darwin)
                // macOS refuses more than OPEN_MAX for the soft limit.
                raised.rlim_cur = min(raised.rlim_cur, rlim_t(OPEN_MAX))
            #endif
            if setrlimit(resourceNoFile, &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur >= rlim_t(Int.max) ? Int.max : Int(limit.rlim_cur)
    }

    /// The connections a process with this descriptor limit can hold and still open its files.
    static func connectionCap(forDescriptorLimit limit: Int) -> Int {
        max(16, limit - reserve)
    }

    #if canImport(Glibc)
        private static let resourceNoFile = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
        private static let resourceNoFile = RLIMIT_NOFILE
    #endif
}
