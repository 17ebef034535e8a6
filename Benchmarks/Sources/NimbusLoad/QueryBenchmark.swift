//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import CSQLiteBench
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Measures `records/query` as a chat client uses it, in zones of 1,000 and 1,000,000 messages
/// (the queries issue's floor: the large zone's p50 at most 3× the small one's):
///
/// - the page query: "messages of this chat sent before D, newest first, 20 at a time"
///   (`chat EQUALS ref`, `sent LESS_THAN D`, sorted by `sent` descending, `resultsLimit` 20);
/// - the same page of a rare chat: one message in 1,000 (so the small zone has one before `D`);
/// - an `IN` of 5,000 chat references (the real chats among them), `resultsLimit` 200.
///
/// Each message has a `chat` reference (one of 10 chats, so the small zone's chat has a page of
/// 20 before `D` too, or the rare chat), a `sent` timestamp and a `text`.
/// The same page query run straight on the SQLite file is the storage reference.
enum QueryBenchmark {
    struct Timing {
        var zoneSize: Int
        var query: String
        var runs: Int
        var p50Milliseconds: Double
        var p99Milliseconds: Double
        var rawP50Milliseconds: Double?
    }

    static let zones = [("Query1k", 1_000), ("Query1M", 1_000_000)]
    static let chats = 10
    /// The messages `index % 1_000 == rareOffset` are the rare chat's.
    static let rareOffset = 3

    static func run(session: LoadSession, largest: Int) async throws -> [Timing] {
        guard let port = URL(string: session.url)?.port else { throw LoadError("no port in \(session.url)") }
        var timings: [Timing] = []
        for (zone, size) in zones where size <= largest {
            FileHandle.standardError.write(Data("seeding \(zone) with \(size) messages...\n".utf8))
            try await seed(session: session, zone: zone, messages: size)
            // Connected after seeding: the server closes a connection idle for 75 s.
            let connection = try KeepAliveClient(port: port)
            let before = size / 2 * 1_000
            func page(of chat: String) -> String {
                """
                {"zoneID":{"zoneName":"\(zone)"},"resultsLimit":20,"query":{"recordType":"Message",
                "filterBy":[{"comparator":"EQUALS","fieldName":"chat","fieldValue":{"value":{"recordName":"\(chat)"},"type":"REFERENCE"}},
                {"comparator":"LESS_THAN","fieldName":"sent","fieldValue":{"value":\(before),"type":"TIMESTAMP"}}],
                "sortBy":[{"fieldName":"sent","ascending":false}]}}
                """
            }
            let references = (0..<5_000).map { #"{"recordName":"chat-\#($0)"}"# }.joined(separator: ",")
            let inQuery = """
                {"zoneID":{"zoneName":"\(zone)"},"resultsLimit":200,"query":{"recordType":"Message",
                "filterBy":[{"comparator":"IN","fieldName":"chat","fieldValue":{"value":[\(references)],"type":"REFERENCE_LIST"}}]}}
                """
            let rareBefore = (0..<size / 2).count { $0 % 1_000 == rareOffset }
            let queries = [
                ("chat page (20)", page(of: "chat-7"), 20),
                ("rare chat page (20)", page(of: "rare"), min(20, rareBefore)),
                ("IN 5,000 references (200)", inQuery, 200),
            ]
            for (name, body, expected) in queries {
                FileHandle.standardError.write(Data("timing \(name) in \(zone)...\n".utf8))
                let times = try measure {
                    let response = try connection.post(session.privatePath("records/query", user: 0), body: body)
                    guard response.status == 200 else {
                        throw LoadError("records/query failed: \(String(decoding: response.body.prefix(300), as: UTF8.self))")
                    }
                    let found = occurrences(of: Array(#""recordChangeTag""#.utf8), in: response.body)
                    guard found == expected else { throw LoadError("\(name) found \(found) records, expected \(expected)") }
                }
                // The raw reference reads the SQLite file; on PostgreSQL there is none.
                let raw =
                    name.hasPrefix("chat") && session.database == nil ? try rawPage(path: session.databasePath, zone: zone, before: before) : nil
                timings.append(
                    Timing(
                        zoneSize: size,
                        query: name,
                        runs: times.count,
                        p50Milliseconds: percentile(times, 0.5),
                        p99Milliseconds: percentile(times, 0.99),
                        rawP50Milliseconds: raw
                    )
                )
            }
        }
        return timings
    }

    /// Times `body` after one warm-up run: 100 runs, or as many as fit in a minute (at least 10).
    private static func measure(_ body: () throws -> Void) throws -> [Double] {
        try body()
        var times: [Double] = []
        let start = ContinuousClock.now
        while times.count < 100, times.count < 10 || ContinuousClock.now - start < .seconds(60) {
            let begin = ContinuousClock.now
            try body()
            times.append(SyncBenchmark.seconds(ContinuousClock.now - begin) * 1_000)
        }
        return times.sorted()
    }

    private static func percentile(_ sorted: [Double], _ fraction: Double) -> Double {
        sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
    }

    /// The page query's rows read straight from SQLite with the server's statement (its storage
    /// ceiling, with the indexes the server built); the p50 of 20 runs, in milliseconds.
    private static func rawPage(path: String, zone: String, before: Int) throws -> Double {
        var database: OpaquePointer?
        guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let database else {
            throw LoadError("cannot open \(path)")
        }
        defer { sqlite3_close(database) }
        // The zone's tenant, so the statement reads the same index range as the server's.
        var tenantStatement: OpaquePointer?
        sqlite3_prepare_v2(database, "SELECT container, environment, owner FROM records WHERE zone_name = ? LIMIT 1", -1, &tenantStatement, nil)
        defer { sqlite3_finalize(tenantStatement) }
        sqlite3_bind_text(tenantStatement, 1, zone, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        guard sqlite3_step(tenantStatement) == SQLITE_ROW else { throw LoadError("no records in \(zone)") }
        let tenant = (0..<3).map { String(cString: sqlite3_column_text(tenantStatement, $0)) }
        var statement: OpaquePointer?
        let sql = """
            SELECT record_name, fields FROM records
            WHERE container = ? AND environment = ? AND owner = ? AND zone_name = ? AND record_type = 'Message' AND is_deleted = 0
              AND json_extract(fields, '$."chat"."value"."recordName"') = 'chat-7'
              AND json_extract(fields, '$."sent"."value"') < ? AND json_extract(fields, '$."sent"."value"') IS NOT NULL
            ORDER BY json_extract(fields, '$."sent"."value"') DESC, record_name ASC
            LIMIT 20
            """
        guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw LoadError("prepare failed") }
        defer { sqlite3_finalize(statement) }
        var times: [Double] = []
        for _ in 0..<21 {
            sqlite3_reset(statement)
            for (index, value) in (tenant + [zone]).enumerated() {
                sqlite3_bind_text(statement, Int32(index + 1), value, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
            }
            sqlite3_bind_int64(statement, 5, Int64(before))
            let begin = ContinuousClock.now
            var rows = 0
            while sqlite3_step(statement) == SQLITE_ROW { rows += 1 }
            guard rows == 20 else { throw LoadError("raw page found \(rows) rows") }
            times.append(SyncBenchmark.seconds(ContinuousClock.now - begin) * 1_000)
        }
        return percentile(Array(times.dropFirst()).sorted(), 0.5)
    }

    /// Creates the zone and its messages.
    private static func seed(session: LoadSession, zone: String, messages: Int) async throws {
        try await session.fill(zone: zone, records: messages) { index in
            #"{"recordName":"m-\#(index)","recordType":"Message","fields":{"#
                + #""chat":{"value":{"recordName":"\#(index % 1_000 == rareOffset ? "rare" : "chat-\(index % chats)")","action":"NONE"},"#
                + #""type":"REFERENCE"},"#
                + #""sent":{"value":\#(index * 1_000),"type":"TIMESTAMP"},"text":{"value":"message \#(index)"}}}"#
        }
    }
}
