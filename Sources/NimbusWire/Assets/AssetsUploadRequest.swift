//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// The body of `assets/upload`: the assets a client means to upload, one entry per asset (an
/// asset list repeats its record and field).
public struct AssetsUploadRequest: WireRequest {
    /// The zone of the records; `nil` means the default zone.
    public var zoneID: ZoneID?
    /// The assets.
    public var tokens: [AssetUploadRequest]

    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the body")
        zoneID = try members.zoneID()
        let list = try members.required("tokens", at: "").array(at: "tokens")
        tokens = []
        for (index, element) in list.enumerated() {
            let path = jsonPath("tokens", index)
            let item = try element.object(at: path)
            tokens.append(
                AssetUploadRequest(
                    recordName: try item.optional("recordName")?.string(at: jsonPath(path, "recordName")),
                    recordType: try item.optional("recordType")?.string(at: jsonPath(path, "recordType")),
                    fieldName: try item.required("fieldName", at: path).string(at: jsonPath(path, "fieldName"))
                )
            )
        }
    }
}
