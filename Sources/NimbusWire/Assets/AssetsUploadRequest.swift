//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// The body of `assets/upload`: the assets a client means to upload, one entry per asset (an
/// asset list repeats its record and field).
public struct AssetsUploadRequest: WireRequest {
    /// One asset to upload.
    public struct Token: Sendable, Hashable {
        /// The record the asset is for; the server picks a name when absent.
        public var recordName: String?
        /// The record's type.
        public var recordType: String?
        /// The asset field.
        public var fieldName: String

        /// One asset to upload.
        public init(recordName: String?, recordType: String?, fieldName: String) {
            self.recordName = recordName
            self.recordType = recordType
            self.fieldName = fieldName
        }
    }

    /// The zone of the records; `nil` means the default zone.
    public var zoneID: ZoneID?
    /// The assets.
    public var tokens: [Token]

    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the body")
        zoneID = try members.zoneID()
        let list = try members.required("tokens", at: "").array(at: "tokens")
        tokens = []
        for (index, element) in list.enumerated() {
            let path = jsonPath("tokens", index)
            let item = try element.object(at: path)
            tokens.append(
                Token(
                    recordName: try item.optional("recordName")?.string(at: jsonPath(path, "recordName")),
                    recordType: try item.optional("recordType")?.string(at: jsonPath(path, "recordType")),
                    fieldName: try item.required("fieldName", at: path).string(at: jsonPath(path, "fieldName"))
                )
            )
        }
    }
}
