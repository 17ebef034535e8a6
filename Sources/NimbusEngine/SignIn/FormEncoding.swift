//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// `application/x-www-form-urlencoded`, as OAuth's token endpoints take their requests.
public enum FormEncoding {
    /// `name=value&...`, every byte but the unreserved ones percent-encoded.
    public static func encode(_ fields: [(String, String)]) -> String {
        fields.map { "\(component($0.0))=\(component($0.1))" }.joined(separator: "&")
    }

    /// One name or value, percent-encoded (a space as `%20`, which every server reads).
    public static func component(_ text: String) -> String {
        var output = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                output.unicodeScalars.append("%")
                output.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
                output.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0x0F)]))
            }
        }
        return output
    }
}
