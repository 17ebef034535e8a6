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

/// Measures the change feeds as one syncing client sees them: a sync from scratch of a large
/// zone, and incremental syncs of 100 changes in zones of very different sizes (whose times
/// should not depend on the size).
enum SyncBenchmark {
    struct Incremental {
        var zoneSize: Int
        var p50Milliseconds: Double
        var maxMilliseconds: Double
    }

    struct Result {
        var initialRecords: Int
        var initialSeconds: Double
        var pages: Int
        /// Reading the same rows straight from SQLite, in change order: the storage ceiling.
        var rawReadSeconds: Double
        var incremental: [Incremental]
    }

    static let initialZone = ("Sync100k", 100_000)
    static let incrementalZones = [("Sync1k", 1_000), ("Sync100k", 100_000), ("Sync1M", 1_000_000)]

    static func run(session: LoadSession, largest: Int) async throws -> Result {
        let client = try FeedClient(session: session)
        for (zone, size) in incrementalZones where size <= largest {
            FileHandle.standardError.write(Data("seeding \(zone) with \(size) records...\n".utf8))
            try await client.seed(zone: zone, records: size)
        }

        FileHandle.standardError.write(Data("initial sync of \(initialZone.0)...\n".utf8))
        var token: String?
        var received = 0
        var pages = 0
        let start = ContinuousClock.now
        while true {
            let page = try await client.changes(zone: initialZone.0, token: token)
            received += page.records
            pages += 1
            token = page.syncToken
            if !page.moreComing { break }
        }
        let initialSeconds = seconds(ContinuousClock.now - start)
        guard received == initialZone.1 else { throw LoadError("initial sync got \(received) records, expected \(initialZone.1)") }
        let raw = try rawRead(path: session.databasePath, zone: initialZone.0)

        var incremental: [Incremental] = []
        for (zone, size) in incrementalZones where size <= largest {
            FileHandle.standardError.write(Data("incremental syncs in \(zone)...\n".utf8))
            var token = try await client.currentToken(zone: zone)
            var times: [Double] = []
            for round in 0..<21 {
                try await client.touch(zone: zone, count: 100, of: size, round: round)
                let start = ContinuousClock.now
                let page = try await client.changes(zone: zone, token: token)
                let elapsed = seconds(ContinuousClock.now - start) * 1000
                guard page.records == 100, !page.moreComing else { throw LoadError("incremental sync got \(page.records) records") }
                token = page.syncToken
                // The first round warms the connection and caches; it is not counted.
                if round > 0 { times.append(elapsed) }
            }
            times.sort()
            incremental.append(Incremental(zoneSize: size, p50Milliseconds: times[times.count / 2], maxMilliseconds: times.last ?? 0))
        }
        return Result(initialRecords: received, initialSeconds: initialSeconds, pages: pages, rawReadSeconds: raw, incremental: incremental)
    }

    /// Reads the zone's rows in change order with SQLite directly, decoding nothing.
    private static func rawRead(path: String, zone: String) throws -> Double {
        var database: OpaquePointer?
        guard sqlite3_open_v2(path, &database, SQLITE_OPEN_READONLY, nil) == SQLITE_OK, let database else {
            throw LoadError("cannot open \(path)")
        }
        defer { sqlite3_close(database) }
        var statement: OpaquePointer?
        let sql = """
            SELECT record_name, record_type, change_tag, parent_name, fields, encrypted_fields, created_at, created_by,
                created_device, modified_at, modified_by, modified_device, is_deleted, change_counter
            FROM records WHERE zone_name = ? ORDER BY change_counter
            """
        guard sqlite3_prepare_v2(database, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw LoadError("prepare failed") }
        defer { sqlite3_finalize(statement) }
        sqlite3_bind_text(statement, 1, zone, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
        let start = ContinuousClock.now
        var bytes = 0
        while sqlite3_step(statement) == SQLITE_ROW { bytes += Int(sqlite3_column_bytes(statement, 4)) }
        guard bytes > 0 else { throw LoadError("raw read found no rows") }
        return seconds(ContinuousClock.now - start)
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}

/// A minimal CKWS client for the feeds, as user 0 of the load session. Bulk writes go through
/// URLSession (several in flight); the timed reads through one ``KeepAliveClient`` connection.
final class FeedClient: @unchecked Sendable {
    struct Page {
        var records: Int
        var syncToken: String
        var moreComing: Bool
    }

    let session: LoadSession
    private let connection: KeepAliveClient

    init(session: LoadSession) throws {
        self.session = session
        guard let port = URL(string: session.url)?.port else { throw LoadError("no port in \(session.url)") }
        connection = try KeepAliveClient(port: port)
    }

    func seed(zone: String, records: Int) async throws {
        try await session.fill(zone: zone, records: records) { index in
            #"{"recordName":"s-\#(index)","recordType":"Note","fields":{"title":{"value":"sync \#(index)"},"count":{"value":\#(index)}}}"#
        }
    }

    /// Updates `count` records spread over the zone.
    func touch(zone: String, count: Int, of size: Int, round: Int) async throws {
        let step = max(1, size / count)
        let operations = (0..<count).map { index in
            let name = "s-\((index * step + round) % size)"
            return #"{"operationType":"forceUpdate","record":{"recordName":"\#(name)","recordType":"Note","fields":{"count":{"value":\#(round)}}}}"#
        }
        let response = try await post("records/modify", #"{"zoneID":{"zoneName":"\#(zone)"},"operations":[\#(operations.joined(separator: ","))]}"#)
        guard !response.contains("serverErrorCode") else { throw LoadError("update failed: \(response.prefix(300))") }
    }

    func currentToken(zone: String) async throws -> String {
        let response = try await post("zones/lookup", #"{"zones":[{"zoneName":"\#(zone)"}]}"#)
        guard let token = Self.string(after: #""syncToken":""#, in: response) else { throw LoadError("no syncToken in \(response.prefix(300))") }
        return token
    }

    func changes(zone: String, token: String?) async throws -> Page {
        let tokenMember = token.map { #","syncToken":"\#($0)""# } ?? ""
        let response = try connection.post(
            session.privatePath("records/changes", user: 0),
            body: #"{"zoneID":{"zoneName":"\#(zone)"}\#(tokenMember)}"#
        )
        guard response.status == 200 else { throw LoadError("records/changes failed: \(String(decoding: response.body.prefix(300), as: UTF8.self))") }
        // Read the page's tail only and count records by their change tags: the figure is the
        // server's, not a JSON parser's.
        let tail = String(decoding: response.body.suffix(300), as: UTF8.self)
        guard let syncToken = Self.string(after: #""syncToken":""#, in: tail) else { throw LoadError("no syncToken in \(tail)") }
        return Page(
            records: occurrences(of: Array(#""recordChangeTag""#.utf8), in: response.body),
            syncToken: syncToken,
            moreComing: tail.contains(#""moreComing":true"#)
        )
    }

    private func post(_ operation: String, _ body: String) async throws -> String {
        try await session.post(operation, body)
    }

    private static func string(after marker: String, in text: String) -> String? {
        guard let range = text.range(of: marker, options: .backwards) else { return nil }
        let rest = text[range.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }
}
