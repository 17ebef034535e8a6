//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// A record's `Codable` form is its wire dictionary with the system fields: name, type, change
/// tag, zone, parent, share reference, created and modified stamps, and fields (encrypted ones
/// marked `isEncrypted`), so results can be archived, cached on disk, and handed to other
/// processes (Canopy's reason for result records). A share's participants are not part of it.
extension Record: Codable {
    public init(from decoder: any Decoder) throws {
        let json = try JSONValue(from: decoder)
        self = try RecordWireCoding.record(json, in: ZoneID(zoneName: ZoneID.defaultZoneName, ownerRecordName: ""), at: "record")
    }

    public func encode(to encoder: any Encoder) throws {
        var writer = JSONWriter()
        RecordWireCoding.write(self, to: &writer, as: .response(numbersAsStrings: false))
        try JSONParser.parse(writer.bytes).encode(to: encoder)
    }
}
