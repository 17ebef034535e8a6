//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusModel

/// How every `share` command prints participants: the same columns in the same order
/// (participant, role, permission, acceptance), aligned under a header, and the same keys in
/// JSON. A participant is named by their address or phone number, else their user record name.
enum ShareParticipantTable {
    static let columns = ["participant", "role", "permission", "acceptance"]

    /// The JSON entries: the four columns, and `user` when the participant has an account.
    static func rows(_ participants: [ShareParticipant]) -> [[String: String]] {
        participants.map { participant in
            var row = [
                "participant": name(of: participant), "role": participant.role.rawValue,
                "permission": participant.permission.rawValue, "acceptance": participant.acceptance.rawValue,
            ]
            row["user"] = participant.userRecordName
            return row
        }
    }

    /// The table's lines, each indented by `indent`.
    static func lines(_ participants: [ShareParticipant], indent: String = "") -> [String] {
        let rows = rows(participants)
        let header = columns.map { $0.uppercased() }
        let table = [header] + rows.map { row in columns.map { row[$0] ?? "" } }
        let widths = columns.indices.map { column in table.map { $0[column].count }.max() ?? 0 }
        return table.map { cells in
            indent
                + zip(cells, widths).enumerated().map { index, pair in
                    index == cells.count - 1 ? pair.0 : pair.0.padding(toLength: pair.1, withPad: " ", startingAt: 0)
                }
                .joined(separator: "  ")
        }
    }

    private static func name(of participant: ShareParticipant) -> String {
        switch participant.lookupInfo {
        case .emailAddress(let address)?: address
        case .phoneNumber(let number)?: number
        default: participant.userRecordName ?? participant.participantID
        }
    }
}
