//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import CSQLite
import Foundation
import Testing

@testable import NimbusSQL

@Suite("the SQLite library as connections find it")
struct SQLiteLibraryConfigurationTests {
    /// With memory statistics on, every SQLite allocation takes a process-wide mutex. The setting
    /// only takes before SQLite initializes, so the first connection must make it.
    @Test("memory statistics are off once a connection has opened")
    func memoryStatisticsOff() async throws {
        try await withTemporarySQLiteConnection { connection in
            try connection.executeScript("CREATE TABLE t (v TEXT); INSERT INTO t VALUES ('some text to allocate for');")
            _ = try connection.query("SELECT v FROM t", [])
            var current: sqlite3_int64 = -1
            var highest: sqlite3_int64 = -1
            #expect(sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &current, &highest, 0) == SQLITE_OK)
            // Counted, the memory an open connection holds is far above zero.
            #expect(current == 0)
            #expect(highest == 0)
        }
    }
}
