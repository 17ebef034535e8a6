//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusWire

/// The share record of the wire protocol (ckws §6.3), read from responses.
enum ShareJSON {
    static func share(_ json: JSONValue, in zoneID: ZoneID, at path: @autoclosure () -> String) throws(NimbusError) -> ShareInfo {
        let record = try RecordWireCoding.record(json, in: zoneID, at: path())
        let share = WireShare.share(named: record.recordID.recordName, keys: try json.object(at: path()))
        return Self.share(record, details: ShareDetails(share: share, currentUserParticipant: nil))
    }

    /// A share from its record and the share keys read with it.
    static func share(_ record: Record, details: ShareDetails?) -> ShareInfo {
        let share = details?.share
        return ShareInfo(
            recordName: record.recordID.recordName,
            zoneID: record.recordID.zoneID,
            shortGUID: share?.shortGUID ?? "",
            publicPermission: share?.publicPermission ?? .none,
            participants: share?.participants ?? [],
            recordChangeTag: record.recordChangeTag,
            requestsEnabled: share?.requestsEnabled ?? false
        )
    }
}
