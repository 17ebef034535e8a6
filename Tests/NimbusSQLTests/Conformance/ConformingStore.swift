//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusModel
import NimbusSQL
import NimbusStore
import NimbusTestSupport
import Synchronization
import Testing

/// Every store protocol a complete Nimbus store implements: what the conformance suite tests.
typealias ConformingStore = AccountStore & NotificationStore & PushTokenStore & RecordStore & SchemaStore & ShareStore
    & SubscriptionStore

/// How the conformance suite opens one kind of store.
///
/// The suite tests the store protocols' documented contract directly, through the protocols
/// only (its tests import `NimbusModel` and `NimbusStore`, never a store's module), each test
/// on a new, empty database. It runs every test on each factory of ``all``: another store
/// joins it with one factory there.
struct StoreFactory: Sendable, CustomTestStringConvertible {
    /// A store opened on a new, empty database, and how to close it.
    struct Opened: Sendable {
        let store: any ConformingStore
        let close: @Sendable () async -> Void
    }

    /// The store's name, as test results show it.
    let name: String
    /// Opens a store on a new, empty database (files, if any, go in the directory given),
    /// reading the time from the clock given.
    let open: @Sendable (_ directory: URL, _ clock: ManualClock) async throws -> Opened

    var testDescription: String { name }

    /// The stores the suite runs on.
    static let all: [StoreFactory] = [.sql]

    /// ``SQLStore`` on SQLite, or on the PostgreSQL server `NIMBUS_TEST_DATABASE` names (``TestDatabase``).
    static let sql = StoreFactory(name: TestDatabase.postgresServer == nil ? "SQL store on SQLite" : "SQL store on PostgreSQL", open: openSQLStore)

    private static func openSQLStore(in directory: URL, clock: ManualClock) async throws -> Opened {
        let cipher = FieldCipher(keyBytes: Array(repeating: 5, count: 32))!
        let store = try await TestDatabase(directory: directory).open(cipher: cipher, clock: clock)
        return Opened(store: store, close: { await store.close() })
    }

    /// Runs `body` with a store of this kind on a new database, and closes it afterwards.
    func with(_ body: (StoreFixture) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-conformance-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualClock()
        let opened = try await open(directory, clock)
        do {
            try await body(StoreFixture(store: opened.store, clock: clock))
            await opened.close()
        } catch {
            await opened.close()
            throw error
        }
    }
}

/// A store under test, with helpers to write what the tests need.
struct StoreFixture: Sendable {
    static let container = "iCloud.test.conformance"
    static let development = ContainerEnvironment(container: container, environment: .development)

    let store: any ConformingStore
    let clock: ManualClock

    /// A user's private database (user record names are `_` and 32 hex digits).
    func tenant(_ owner: String = Self.alice, environment: Environment = .development) -> Tenant {
        Tenant(container: Self.container, environment: environment, owner: owner)
    }

    static let alice = "_" + String(repeating: "a", count: 32)
    static let bob = "_" + String(repeating: "b", count: 32)
    static let carol = "_" + String(repeating: "c", count: 32)

    /// A record of `tenant`'s zone, stamped by its owner at the clock's time.
    func record(
        _ name: String,
        type: String = "Note",
        in zone: String = "Z",
        of tenant: Tenant? = nil,
        fields: [NameKey: FieldValue] = [:],
        parent: String? = nil,
        share: String? = nil
    ) -> Record {
        let tenant = tenant ?? self.tenant()
        let stamp = ChangeStamp(timestamp: clock.milliseconds, userRecordName: tenant.owner, deviceID: "device-1")
        var record = Record(
            recordID: RecordID(recordName: name, zoneID: ZoneID(zoneName: zone, ownerRecordName: tenant.owner)),
            recordType: type,
            fields: fields,
            parentRecordName: parent,
            created: stamp,
            modified: stamp
        )
        record.containingShare = share
        return record
    }

    /// Saves records in one write transaction on their zone; returns them as saved.
    @discardableResult
    func save(_ records: [Record], in zone: String = "Z", of tenant: Tenant? = nil) async throws -> [Record] {
        try await store.write(zone: zone, of: tenant ?? self.tenant()) { try await $0.save(records) }
    }

    /// Deletes records in one write transaction on their zone.
    func delete(_ names: [String], type: String = "Note", in zone: String = "Z", of tenant: Tenant? = nil) async throws {
        try await store.write(zone: zone, of: tenant ?? self.tenant()) { transaction in
            try await transaction.delete(names.map { Tombstone(recordName: $0, recordType: type) })
        }
    }

    /// Deletes a zone; the note of the deletion names every user of its shares, whatever their
    /// role or acceptance, so a test sees which shares the store handed to the notice.
    @discardableResult
    func deleteZone(_ name: String = "Z", of tenant: Tenant? = nil) async throws -> Bool {
        let tenant = tenant ?? self.tenant()
        return try await store.deleteZone(named: name, of: tenant) { shares in
            let users = shares.flatMap(\.participants).compactMap(\.userRecordName)
            return ChangeNote(writer: tenant.owner, deviceID: nil, created: [], deleted: [], zoneDeleted: true, formerParticipants: users.sorted())
        }
    }

    /// A zone's live state; fails the test if it does not exist.
    func zone(_ name: String = "Z", of tenant: Tenant? = nil) async throws -> Zone {
        try #require(try await store.zone(named: name, of: tenant ?? self.tenant()))
    }

    /// One page of a zone's change feed.
    func changes(
        in zone: String = "Z",
        of tenant: Tenant? = nil,
        after position: ZoneChangePosition? = nil,
        limit: Int = 100,
        recordTypes: [String]? = nil
    ) async throws -> ZoneChanges {
        try await store.zoneChanges(
            ZoneChangesRequest(tenant: tenant ?? self.tenant(), zoneName: zone, after: position, limit: limit, recordTypes: recordTypes)
        )
    }
}

/// An error a test's transaction body throws on purpose.
struct DeliberateFailure: Error, Equatable {}

/// The kind of the ``StoreError`` `body` throws; `nil` (and a recorded issue) if it throws
/// something else or nothing.
func storeErrorKind(_ body: () async throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) async -> StoreError.Kind? {
    do {
        try await body()
        Issue.record("expected a StoreError, nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as StoreError {
        return error.kind
    } catch {
        Issue.record("expected a StoreError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

extension RecordChange {
    /// The name of the record the change is about.
    var recordName: String {
        switch self {
        case .saved(let record): record.recordID.recordName
        case .deleted(let tombstone): tombstone.recordName
        }
    }

    /// Whether the change is a deletion.
    var isDeletion: Bool {
        if case .deleted = self { return true }
        return false
    }
}
