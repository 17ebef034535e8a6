//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

#if canImport(FoundationEssentials)
    public import FoundationEssentials
#else
    public import Foundation
#endif

/// Base64url without padding, as JSON web tokens, PKCE and Nimbus's sealed tokens and cookies
/// write it: safe in URLs and cookies as it is.
public enum Base64URL {
    /// The bytes in base64url, unpadded.
    public static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacing("+", with: "-").replacing("/", with: "_").replacing("=", with: "")
    }

    /// The bytes of base64url text (padded or not), or `nil` if it is not base64url.
    public static func decode(_ text: Substring) -> Data? {
        var base64 = String(text).replacing("-", with: "+").replacing("_", with: "/")
        while base64.utf8.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64)
    }
}
