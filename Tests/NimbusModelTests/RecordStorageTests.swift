//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Testing

@testable import NimbusModel

@Suite("Records: optional members kept without optionals read back as set")
struct RecordStorageTests {
    private func record() -> Record {
        Record(recordType: "Note", recordID: RecordID(recordName: "n1", zoneID: ZoneID(zoneName: "Z", ownerRecordName: "")))
    }

    @Test("parent, share and containing share read back what was set, and nil when cleared")
    func namesRoundTrip() {
        var record = record()
        #expect(record.parentRecordName == nil)
        #expect(record.shareRecordName == nil)
        #expect(record.containingShare == nil)
        record.parentRecordName = "p1"
        record.shareRecordName = "s1"
        record.containingShare = "s0"
        #expect(record.parentRecordName == "p1")
        #expect(record.shareRecordName == "s1")
        #expect(record.containingShare == "s0")
        record.parentRecordName = nil
        record.shareRecordName = nil
        record.containingShare = nil
        #expect(record.parentRecordName == nil)
        #expect(record.shareRecordName == nil)
        #expect(record.containingShare == nil)
        #expect(record == self.record())
    }

    @Test("an empty name, which no record may have, reads as none")
    func emptyNameIsNone() {
        var record = record()
        record.parentRecordName = ""
        #expect(record.parentRecordName == nil)
        #expect(record == self.record())
        let made = Record(
            recordID: record.recordID,
            recordType: "Note",
            parentRecordName: "",
            shareRecordName: "",
            created: record.created,
            modified: record.modified
        )
        #expect(made.parentRecordName == nil)
        #expect(made.shareRecordName == nil)
    }

    @Test("share details read back, take part in equality, and clear")
    func shareDetails() {
        var record = record()
        #expect(record.shareDetails == nil)
        let details = ShareDetails(
            share: Share(recordName: "s1", rootRecordName: "n1", shortGUID: "abc", publicPermission: .readOnly),
            currentUserParticipant: nil
        )
        record.shareDetails = details
        #expect(record.shareDetails == details)
        #expect(record != self.record())
        var other = self.record()
        other.shareDetails = details
        #expect(record == other)
        #expect(record.hashValue == other.hashValue)
        record.shareDetails = nil
        #expect(record.shareDetails == nil)
        #expect(record == self.record())
    }

    @Test("a copy is a value: changing any member of one leaves the other as it was, and equal copies hash alike")
    func copiesAreValues() {
        var original = record()
        original.fields["title"] = .string("first")
        original.recordChangeTag = "t1"
        let before = original
        var changes: [(String, (inout Record) -> Void)] = [
            ("recordID", { $0.recordID = RecordID(recordName: "n2", zoneID: $0.recordID.zoneID) }),
            ("recordType", { $0.recordType = "Task" }),
            ("recordChangeTag", { $0.recordChangeTag = "t2" }),
            ("fields", { $0.fields["title"] = .string("second") }),
            ("encryptedFields", { $0.encryptedFields["secret"] = .string("s") }),
            ("parentRecordName", { $0.parentRecordName = "p" }),
            ("shareRecordName", { $0.shareRecordName = "s" }),
            ("containingShare", { $0.containingShare = "c" }),
            ("created", { $0.created = ChangeStamp(timestamp: 5, userRecordName: "u") }),
            ("modified", { $0.modified.timestamp = 6 }),
        ]
        changes.append(("fields removed", { $0.fields.removeAll() }))
        for (member, change) in changes {
            var copy = original
            change(&copy)
            #expect(copy != original, "\(member)")
            #expect(original == before, "changing the copy's \(member) changed the original")
            #expect(original.fields["title"] == .string("first"), "\(member)")
            // And the other way round: the original changes, a copy taken before does not.
            let taken = original
            var changed = original
            change(&changed)
            #expect(taken == before, "\(member)")
        }
        var twin = record()
        twin.fields["title"] = .string("first")
        twin.recordChangeTag = "t1"
        #expect(twin == original)
        #expect(twin.hashValue == original.hashValue)
        #expect(Set([twin, original, before]).count == 1)
    }
}
