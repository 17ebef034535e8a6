//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// Gives PostgreSQL's planner statistics of the seeded tables before the scenarios run.
///
/// Each run starts on a new cluster, and the whole run ends inside autovacuum's first minute, so
/// without this the tables are never analysed: the planner then estimates one row for any zone
/// and reads a record through `records_by_type`, filtering the zone's rows, rather than probing
/// the primary key. A deployment's tables are analysed within a minute of their first rows, so
/// that figure would describe no server in use; `--skip-analyze` measures it all the same. The
/// same holds for a zone the statistics do not know: the zone the saves write to is seeded too
/// (``LoadSession``), or every save's first read would scan the zone it grows.
enum PlannerStatistics {
    static func refresh(database url: String) throws {
        let (connection, schema) = RawPostgresInserts.libpqURL(url)
        try RawPostgresInserts.psql(connection, "SET search_path TO \(schema); ANALYZE")
    }
}
