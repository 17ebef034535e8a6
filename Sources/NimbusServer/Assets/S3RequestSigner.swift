//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Crypto
import Foundation
import NimbusModel

/// Signs S3 requests with AWS Signature Version 4 (header form).
///
/// Written here because no library in the project's dependencies signs S3 requests (the Soto
/// SDK would bring a whole AWS client for three calls); it follows the AWS documentation for
/// S3, and the test suite checks it against the example signature the documentation gives.
struct S3RequestSigner: Sendable {
    let accessKeyID: String
    let secretAccessKey: String
    let region: String

    /// The payload hash for a body that is not hashed (streamed over TLS, or empty when so
    /// stated): S3 and its compatibles accept it.
    static let unsignedPayload = "UNSIGNED-PAYLOAD"

    /// The headers to add to a request: `x-amz-date`, `x-amz-content-sha256` and
    /// `Authorization`. `headers` are the other headers to sign (lowercase names): `host` at least.
    func sign(
        method: String,
        path: String,
        query: [(String, String)] = [],
        headers: [String: String],
        payloadHash: String = unsignedPayload,
        date: Date
    ) -> [String: String] {
        let (amzDate, day) = Self.timestamps(date)
        var signed = headers
        signed["x-amz-date"] = amzDate
        signed["x-amz-content-sha256"] = payloadHash
        let names = signed.keys.map { $0.lowercased() }.sorted()
        let canonicalHeaders = names.map { "\($0):\(signed[$0]!.trimmingCharacters(in: .whitespaces))\n" }.joined()
        let signedHeaders = names.joined(separator: ";")
        let encodedQuery: [(name: String, value: String)] = query.map { (Self.encode($0.0, slash: true), Self.encode($0.1, slash: true)) }
        let sortedQuery = encodedQuery.sorted { $0.name == $1.name ? $0.value < $1.value : $0.name < $1.name }
        let canonicalQuery = sortedQuery.map { $0.name + "=" + $0.value }.joined(separator: "&")
        let canonicalRequest = [method, Self.encode(path, slash: false), canonicalQuery, canonicalHeaders, signedHeaders, payloadHash]
            .joined(separator: "\n")
        let scope = "\(day)/\(region)/s3/aws4_request"
        let stringToSign = ["AWS4-HMAC-SHA256", amzDate, scope, Hex.string(Array(SHA256.hash(data: Array(canonicalRequest.utf8))))]
            .joined(separator: "\n")
        var key = SymmetricKey(data: Array("AWS4\(secretAccessKey)".utf8))
        for part in [day, region, "s3", "aws4_request"] {
            key = SymmetricKey(data: HMAC<SHA256>.authenticationCode(for: Array(part.utf8), using: key))
        }
        let signature = Hex.string(Array(HMAC<SHA256>.authenticationCode(for: Array(stringToSign.utf8), using: key)))
        return [
            "x-amz-date": amzDate,
            "x-amz-content-sha256": payloadHash,
            "authorization": "AWS4-HMAC-SHA256 Credential=\(accessKeyID)/\(scope), SignedHeaders=\(signedHeaders), Signature=\(signature)",
        ]
    }

    /// `20130524T000000Z` and `20130524`, in UTC.
    private static func timestamps(_ date: Date) -> (String, String) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        func two(_ value: Int?) -> String { String(format: "%02d", value ?? 0) }
        let day = String(format: "%04d", parts.year ?? 0) + two(parts.month) + two(parts.day)
        return (day + "T" + two(parts.hour) + two(parts.minute) + two(parts.second) + "Z", day)
    }

    private static let unreserved = Set(Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.~".utf8))

    /// RFC 3986 encoding as SigV4 wants it: everything but unreserved characters (and `/` in a
    /// path) as `%XX`, uppercase.
    static func encode(_ text: String, slash: Bool) -> String {
        var encoded = ""
        for byte in text.utf8 {
            if Self.unreserved.contains(byte) || (!slash && byte == UInt8(ascii: "/")) {
                encoded.append(Character(UnicodeScalar(byte)))
            } else {
                encoded += "%" + (byte < 16 ? "0" : "") + String(byte, radix: 16, uppercase: true)
            }
        }
        return encoded
    }
}
