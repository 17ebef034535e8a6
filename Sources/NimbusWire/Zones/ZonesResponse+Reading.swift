//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

package import NimbusModel

extension ZonesResponse {
    /// Reads a zones answer (`zones/list`, `zones/lookup`, `zones/modify`, `changes/database`)
    /// as ``write(to:options:)`` writes it. A zone that does not say whether it is atomic is
    /// taken to be atomic unless it is a default zone, as the server's zones are.
    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the response")
        zones = []
        for (index, element) in try (members.optional("zones")?.array(at: "zones") ?? []).enumerated() {
            let path = jsonPath("zones", index)
            if WireError.isError(element) {
                zones.append(.error(WireError(json: element)))
                continue
            }
            let item = try element.object(at: path)
            let zoneID = try RecordWireCoding.zoneID(try item.required("zoneID", at: path), at: jsonPath(path, "zoneID"))
            if try item.optionalBool("deleted") == true {
                zones.append(.deleted(zoneID))
                continue
            }
            zones.append(
                .zone(
                    WireZone(
                        zoneID: zoneID,
                        syncToken: try item.optional("syncToken")?.string(at: jsonPath(path, "syncToken")),
                        atomic: try item.optionalBool("atomic") ?? !zoneID.isDefaultZone
                    )
                )
            )
        }
        syncToken = try members.optional("syncToken")?.string(at: "syncToken")
        moreComing = try members.optionalBool("moreComing")
    }
}
