//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

package import NimbusModel

extension WireTombstone {
    /// Reads a tombstone of a change page (`{recordName, recordType, deleted: true}`); `nil` for
    /// any other dictionary. A tombstone without a type has the empty one.
    package init?(json: JSONValue) {
        guard case .object(let members) = json, members["deleted"] == .bool(true), case .string(let name)? = members["recordName"] else {
            return nil
        }
        var type = ""
        if case .string(let recordType)? = members["recordType"] { type = recordType }
        self.init(recordName: name, recordType: type)
    }
}

extension ZoneFeedPage {
    /// What follows a change page's records, as ``write(to:options:)`` writes it.
    package struct Tail: Sendable {
        /// Resumes the feed after this page.
        package var syncToken: String
        /// Whether more changes follow.
        package var moreComing: Bool
        /// How far the page is through the zone's changes, when the server says.
        package var progress: FeedProgress?

        /// Reads the tail from a page's members. Progress is an extension for progress bars: a
        /// page without it, or with a malformed one, is as good.
        package init(members: JSONObject) throws(NimbusError) {
            syncToken = try members.required("syncToken", at: "").string(at: "syncToken")
            moreComing = try members.optionalBool("moreComing") ?? false
            if case .object(let progress)? = members["nimbusProgress"],
                case .integer(let from)? = progress["from"],
                case .integer(let through)? = progress["through"],
                case .integer(let latest)? = progress["latest"]
            {
                self.progress = FeedProgress(from: from, through: through, latest: latest)
            }
        }
    }
}
