//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusWire
import Testing

/// The SDK writes a request with the type the server reads it with: what it writes must read
/// back as what it meant, or the two sides of the protocol have drifted apart.
@Suite("requests the SDK writes read back as the server reads them")
struct RequestRoundTripTests {
    @Test("records/modify: every kind of operation, field, parent and share change")
    func recordsModify() throws {
        let zoneID = ZoneID(zoneName: "Notes", ownerRecordName: "_" + String(repeating: "a", count: 32))
        let operations = [
            RecordOperation(
                kind: .create,
                recordName: "n1",
                recordType: "Note",
                fields: [
                    "title": FieldInput(.string("Groceries \"and\" more")),
                    "count": FieldInput(.int64(-42)),
                    "secret": FieldInput(.string("sealed"), isEncrypted: true),
                    "tags": FieldInput(.list(elementType: .string, [.string("a"), .string("b")])),
                    "gone": FieldInput(nil),
                ],
                parent: .set("folder")
            ),
            RecordOperation(kind: .update, recordName: "n2", recordType: "Note", recordChangeTag: "7", parent: .clear),
            RecordOperation(kind: .forceReplace, recordName: "n3", recordType: "Note"),
            RecordOperation(kind: .delete, recordName: "n4", recordChangeTag: "9"),
            RecordOperation(
                kind: .create,
                recordName: "share-1",
                recordType: Share.recordType,
                fields: ["cloudkit.title": FieldInput(.string("Trip"))],
                share: ShareChange(
                    rootRecordName: "n1",
                    publicPermission: .readOnly,
                    participants: [
                        ParticipantInput(participantID: "p-1", lookupInfo: nil, permission: .readWrite),
                        ParticipantInput(lookupInfo: .emailAddress("bob@example.com"), role: .privateUser, permission: .readOnly),
                        ParticipantInput(lookupInfo: .phoneNumber("+15550100"), role: .administrator, permission: .readWrite),
                        ParticipantInput(lookupInfo: .userRecordName("_carol"), role: .privateUser, permission: .readOnly),
                    ]
                )
            ),
        ]
        let sent = RecordsModifyRequest(operations: operations, zoneID: zoneID, atomic: false, desiredKeys: ["title"], numbersAsStrings: true)
        let read = try RecordsModifyRequest.parse(sent.jsonBody)
        #expect(read.operations == sent.operations)
        #expect(read.zoneID == zoneID)
        #expect(read.atomic == false)
        #expect(read.desiredKeys == ["title"])
        #expect(read.numbersAsStrings == true)
    }

    @Test("records/modify: what a request leaves out stays out")
    func recordsModifyDefaults() throws {
        let sent = RecordsModifyRequest(operations: [RecordOperation(kind: .create, recordType: "Note")])
        let read = try RecordsModifyRequest.parse(sent.jsonBody)
        #expect(read.operations == sent.operations)
        #expect(read.zoneID == nil && read.atomic == nil && read.desiredKeys == nil && read.numbersAsStrings == nil)
    }
}

extension RequestRoundTripTests {
    @Test("records/query: the query, its zone or every zone, and the page asked for")
    func recordsQuery() throws {
        let query = Query(
            recordType: "Note",
            filters: [Filter("title", .beginsWith, .string("Gro")), Filter("rank", .greaterThan, .int64(3))],
            sortDescriptors: [SortDescriptor("rank", ascending: false)]
        )
        let zoneID = ZoneID(zoneName: "Z", ownerRecordName: "_owner")
        let sent = RecordsQueryRequest(query: query, zoneID: zoneID, resultsLimit: 50, continuationMarker: "m", desiredKeys: ["title"])
        let read = try RecordsQueryRequest.parse(sent.jsonBody)
        #expect(read.query == query && read.zoneID == zoneID && read.zoneWide == nil)
        #expect(read.resultsLimit == 50 && read.continuationMarker == "m" && read.desiredKeys == ["title"])
        let everywhere = try RecordsQueryRequest.parse(RecordsQueryRequest(query: query, zoneID: nil).jsonBody)
        #expect(everywhere.zoneID == nil && everywhere.zoneWide == true && everywhere.resultsLimit == nil)
    }
}

extension RequestRoundTripTests {
    @Test("records/lookup, and a whole record saved as an operation: fields, encrypted fields, tag and parent")
    func lookupAndRecordSaves() throws {
        let zoneID = ZoneID(zoneName: "Z", ownerRecordName: "_owner")
        let lookup = RecordsLookupRequest(
            records: [.init(recordName: "a"), .init(recordName: "b", desiredKeys: ["x"])],
            zoneID: zoneID,
            desiredKeys: []
        )
        let readLookup = try RecordsLookupRequest.parse(lookup.jsonBody)
        #expect(readLookup.records == lookup.records && readLookup.zoneID == zoneID && readLookup.desiredKeys == [])

        let stamp = ChangeStamp(timestamp: 1, userRecordName: "_owner", deviceID: "d")
        var record = Record(
            recordID: RecordID(recordName: "n1", zoneID: zoneID),
            recordType: "Note",
            fields: ["title": .string("x"), "when": .timestamp(5)],
            parentRecordName: "folder",
            created: stamp,
            modified: stamp
        )
        record.encryptedFields = ["secret": .string("s")]
        record.recordChangeTag = "3"
        let operation = RecordOperation(saving: record, as: .replace)
        #expect(operation.fields["secret"] == FieldInput(.string("s"), isEncrypted: true))
        let read = try RecordsModifyRequest.parse(RecordsModifyRequest(operations: [operation]).jsonBody)
        #expect(read.operations == [operation])
        #expect(read.operations.first?.recordChangeTag == "3" && read.operations.first?.parent == .set("folder"))
    }
}
