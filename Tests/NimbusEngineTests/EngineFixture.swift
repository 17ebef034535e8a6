//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Logging
import NimbusEngine
import NimbusModel
import NimbusSQL
import NimbusStore
import NimbusTestSupport
import Synchronization

/// Makes deterministic record names: rec-1, rec-2, ...
final class SequentialNames: Sendable {
    private let next = Mutex(0)

    func make() -> String {
        next.withLock {
            $0 += 1
            return "rec-\($0)"
        }
    }
}

/// A real engine on a fresh database: SQLite in a temporary directory, or a PostgreSQL schema
/// when the suite runs on PostgreSQL (``TestDatabase``).
struct EngineFixture {
    static let container = "iCloud.test.engine"
    let directory: URL
    let testDatabase: TestDatabase
    let store: SQLStore
    /// The engine the fixture's helpers call; a copy may point at a second instance's.
    var database: DatabaseService
    let accounts: AccountService
    let clock: ManualClock
    let alice: String
    let bob: String
    /// What the engine logged, where the development mailer writes verification codes.
    let log: CapturedLog

    /// Runs `body` with a new fixture and removes its directory afterwards.
    static func with<Result>(_ body: (EngineFixture) async throws -> Result) async throws -> Result {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-engine-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualClock()
        let names = SequentialNames()
        let cipher = FieldCipher(keyBytes: Array(repeating: 7, count: 32))!
        let testDatabase = TestDatabase(directory: directory)
        let store = try await testDatabase.open(cipher: cipher, clock: clock)
        let log = CapturedLog()
        let logger = Logger(label: "test") { _ in CapturingLogHandler(log: log) }
        let accounts = AccountService(store: store, clock: clock, logger: logger)
        let database = DatabaseService(
            records: store,
            shares: store,
            subscriptions: store,
            users: store,
            schemaStore: store,
            clock: clock,
            makeRecordName: { names.make() },
            cursorKey: Array(repeating: 9, count: 32),
            logger: logger
        )
        _ = try await accounts.createContainer(container, environment: .development)
        let alice = try await accounts.addUser(name: "Alice Liddell", email: "alice@example.com", phone: nil, container: container)
        let bob = try await accounts.addUser(name: "Bob", email: nil, phone: nil, container: container)
        let fixture = EngineFixture(
            directory: directory,
            testDatabase: testDatabase,
            store: store,
            database: database,
            accounts: accounts,
            clock: clock,
            alice: alice.user.userRecordName,
            bob: bob.user.userRecordName,
            log: log
        )
        do {
            let result = try await body(fixture)
            await store.close()
            return result
        } catch {
            await store.close()
            throw error
        }
    }

    func access(_ user: String?, _ scope: DatabaseScope = .private, kind: Caller.Kind? = nil, deviceID: String? = nil) -> DatabaseAccess {
        let kind = kind ?? (user == nil ? .anonymous : .user)
        var caller = Caller(container: Self.container, environment: .development, kind: kind, userRecordName: user)
        caller.deviceID = deviceID
        return DatabaseAccess(caller: caller, scope: scope)
    }

    /// Runs `body` with another engine on the same database, as a second server instance is:
    /// its own store (own connections), its own caches.
    func withSecondInstance<Result>(_ body: (DatabaseService) async throws -> Result) async throws -> Result {
        let other = try await testDatabase.open(cipher: FieldCipher(keyBytes: Array(repeating: 7, count: 32))!, clock: clock)
        let names = SequentialNames()
        let instance = DatabaseService(
            records: other,
            shares: other,
            subscriptions: other,
            users: other,
            schemaStore: other,
            clock: clock,
            makeRecordName: { "b-" + names.make() },
            cursorKey: Array(repeating: 9, count: 32),
            logger: Logger(label: "second-instance")
        )
        do {
            let result = try await body(instance)
            await other.close()
            return result
        } catch {
            await other.close()
            throw error
        }
    }

    /// Creates a custom zone in a user's private database.
    func makeZone(_ name: String, for user: String) async throws {
        let results = try await database.modifyZones([.create(ZoneID(zoneName: name, ownerRecordName: ""))], access: access(user))
        guard case .saved = results.first else { throw FixtureError("zone \(name) was not created: \(results)") }
    }

    /// Runs a modify and returns the results.
    func modify(
        _ operations: [RecordOperation],
        zone: String = "Notes",
        atomic: Bool = true,
        as user: String? = nil,
        scope: DatabaseScope = .private
    ) async throws -> [RecordResult] {
        try await database.modifyRecords(
            operations,
            inZone: ZoneID(zoneName: zone, ownerRecordName: ""),
            atomic: atomic,
            access: access(user ?? alice, scope)
        )
    }

    /// Saves one record and returns it as saved.
    func save(_ operation: RecordOperation, zone: String = "Notes", as user: String? = nil, scope: DatabaseScope = .private) async throws -> Record {
        let results = try await modify([operation], zone: zone, as: user, scope: scope)
        guard case .saved(let record) = results.first else { throw FixtureError("not saved: \(results)") }
        return record
    }

    /// The names of the `Note` records one page of a query over one of Alice's zones returns.
    func queryNames(_ filters: [Filter], zone: String) async throws(NimbusError) -> Set<String> {
        let result = try await database.queryRecords(
            Query(recordType: "Note", filters: filters),
            inZone: ZoneID(zoneName: zone, ownerRecordName: ""),
            resultsLimit: nil,
            continuationMarker: nil,
            access: access(alice)
        )
        return Set(result.records.map(\.recordID.recordName))
    }

    /// Looks a record up, returning `nil` if it is not found.
    func lookup(_ name: String, zone: String = "Notes", as user: String? = nil, scope: DatabaseScope = .private) async throws -> Record? {
        let results = try await database.lookupRecords(
            named: [name],
            inZone: ZoneID(zoneName: zone, ownerRecordName: ""),
            access: access(user ?? alice, scope)
        )
        if case .success(let record) = results.first { return record }
        return nil
    }
}

struct FixtureError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

extension RecordOperation {
    /// A create of a `Note` with the given string fields.
    static func note(_ name: String?, _ fields: [NameKey: FieldValue] = [:], kind: Kind = .create, tag: String? = nil) -> RecordOperation {
        RecordOperation(
            kind: kind,
            recordName: name,
            recordType: "Note",
            recordChangeTag: tag,
            fields: fields.mapValues { FieldInput($0) }
        )
    }
}

extension RecordResult {
    var error: NimbusError? {
        if case .failed(_, let error) = self { return error }
        return nil
    }

    var record: Record? {
        if case .saved(let record) = self { return record }
        return nil
    }
}
