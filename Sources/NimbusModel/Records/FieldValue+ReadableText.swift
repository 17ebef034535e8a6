//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

extension FieldValue {
    /// The value as a person reads it, in one line: strings quoted, dates in ISO 8601 (UTC),
    /// references as `ref → name`, locations as coordinates, assets and bytes by size, lists in
    /// brackets. What the CLI's text output and the console show.
    public var readableText: String {
        switch self {
        case .string(let text): Self.quoted(text)
        case .int64(let number): String(number)
        case .double(let number): String(number)
        case .timestamp(let milliseconds): Self.isoTime(milliseconds)
        case .bytes(let data): "\(data.count) bytes"
        case .encryptedBytes(let data): "\(data.count) encrypted bytes"
        case .reference(let reference): Self.text(reference)
        case .asset(let asset): Self.text(asset)
        case .location(let location): Self.text(location)
        case .list(_, let elements): "[" + elements.map(\.readableText).joined(separator: ", ") + "]"
        }
    }

    private static func quoted(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            // Nothing a terminal would act on: other control characters are written as codes.
            case _ where scalar.value < 0x20 || scalar.value == 0x7F: escaped += "\\u{\(String(scalar.value, radix: 16))}"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return "\"" + escaped + "\""
    }

    /// `2026-11-27T02:51:22.123Z`: milliseconds kept, as the wire has them.
    static func isoTime(_ milliseconds: Int64) -> String {
        let seconds = milliseconds.quotient(dividingBy: 1000)
        let millis = milliseconds - seconds * 1000
        let text = Date(timeIntervalSince1970: Double(seconds)).ISO8601Format()
        let padded = String(millis + 1000).dropFirst()
        return text.dropLast() + "." + padded + "Z"
    }

    private static func text(_ reference: Reference) -> String {
        var text = "ref → "
        if let zone = reference.zoneID { text += "\(zone.zoneName)/" }
        text += reference.recordName
        switch reference.action {
        case .none: break
        case .deleteSelf: text += " (deleted with it)"
        case .validate: text += " (validated)"
        }
        return text
    }

    private static func text(_ asset: Asset) -> String {
        var parts = ["asset"]
        if let size = asset.size { parts.append("\(size) bytes") }
        if let checksum = asset.fileChecksum { parts.append("checksum \(checksum.prefix(12))…") }
        return parts.joined(separator: " ")
    }

    private static func text(_ location: Location) -> String {
        var text = "\(location.latitude), \(location.longitude)"
        if let accuracy = location.horizontalAccuracy { text += " ±\(accuracy) m" }
        if let altitude = location.altitude { text += ", altitude \(altitude) m" }
        return text
    }
}

extension Int64 {
    /// Division rounded toward negative infinity, so times before 1970 keep a positive remainder.
    fileprivate func quotient(dividingBy divisor: Int64) -> Int64 {
        let (quotient, remainder) = quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? quotient - 1 : quotient
    }
}
