//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

/// The body of `users/contacts/verify` (`{"lookupInfo": {...}}`) and `users/contacts/confirm`
/// (the same with `"code"`): a Nimbus extension for proving an address.
public struct ContactVerificationRequest: WireRequest {
    /// The email address or phone number to prove.
    public var address: LookupInfo
    /// The code received (`users/contacts/confirm` only).
    public var code: String?

    package init(json: JSONValue) throws(NimbusError) {
        let members = try json.object(at: "the body")
        address = try LookupInfo.read(try members.required("lookupInfo", at: ""), at: "lookupInfo")
        code = try members.optional("code").map { (code) throws(NimbusError) in try code.string(at: "code") }
    }
}

/// The answer to `users/contacts/verify` and `users/contacts/confirm`:
/// `{"lookupInfo": {...}, "status": "CODE_SENT" | "VERIFIED", "expiresAt"?: ms}`.
public struct ContactVerificationResponse: WireResponse {
    /// The address, in normal form.
    public var address: LookupInfo
    /// Whether the address is proven now; otherwise a code was sent.
    public var verified: Bool
    /// When the code sent stops working.
    public var expiresAt: Int64?

    /// Creates a response.
    public init(address: LookupInfo, verified: Bool, expiresAt: Int64? = nil) {
        self.address = address
        self.verified = verified
        self.expiresAt = expiresAt
    }

    package func write(to writer: inout JSONWriter, options: WireOptions) {
        writer.beginObject()
        writer.key("lookupInfo")
        writer.beginObject()
        address.writeMember(to: &writer)
        writer.endObject()
        writer.field("status", verified ? "VERIFIED" : "CODE_SENT")
        if let expiresAt { writer.field("expiresAt", expiresAt) }
        writer.endObject()
    }
}
