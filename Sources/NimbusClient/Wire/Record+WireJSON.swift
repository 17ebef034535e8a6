//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusModel

extension Record {
    /// Reads a record dictionary in the wire shape of CloudKit Web Services, as tools and fixtures
    /// write them: `{"recordName": …, "recordType": …, "fields": {"title": {"value": …}}}`.
    /// - Parameters:
    ///   - wireJSON: the JSON bytes.
    ///   - zoneID: the zone, unless the dictionary names one.
    /// - Throws: `.badRequest` naming the path of a value of the wrong shape.
    public init(wireJSON: [UInt8], in zoneID: ZoneID) throws {
        let json: JSONValue
        do {
            json = try JSONParser.parse(wireJSON)
        } catch {
            throw NimbusError.badRequest("the record is not valid JSON: \(error)")
        }
        self = try RecordWireCoding.record(json, in: zoneID, at: "record")
    }

    /// The record as a wire-shape dictionary, with its system fields (change tag, zone, created
    /// and modified stamps): what `records/lookup` answers.
    public func wireJSON() -> [UInt8] {
        var writer = JSONWriter()
        RecordWireCoding.write(self, to: &writer, as: .response(numbersAsStrings: false))
        return writer.bytes
    }
}
