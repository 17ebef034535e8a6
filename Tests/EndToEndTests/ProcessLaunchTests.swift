//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusTestSupport
import Testing

@Suite("test processes")
struct ProcessLaunchTests {
    /// A child that outlives its test (a PostgreSQL server restarted by `pg_ctl`) must not hold
    /// copies of the suite's sockets: other tests' connections would then never close.
    @Test("a child inherits no descriptor but standard input, output and error")
    func childInheritsNoDescriptors() async throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { for end in ends { close(end) } }
        let script = "for fd in \(ends[0]) \(ends[1]); do if [ -e /proc/$$/fd/$fd ]; then echo \"inherited $fd\"; fi; done; echo checked"
        let result = try await ProcessLaunch.runToCompletion("/bin/sh", ["-c", script])
        #expect(result.status == 0)
        #expect(result.stdout == "checked\n", "the child holds descriptors of its parent: \(result.stdout)")
    }
}
