//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

package import NimbusModel

/// A request body, read from parsed JSON.
///
/// Bodies are parsed with ``JSONParser`` and read by hand rather than through `JSONDecoder`:
/// it is several times faster, and every failure names the path of the offending value.
package protocol WireRequest: Sendable {
    init(json: JSONValue) throws(NimbusError)
}

/// A request the SDK sends: it writes itself as the body its ``WireRequest/init(json:)`` reads,
/// so the server and the SDK share one description of it.
package protocol WireRequestBody: WireRequest {
    /// Writes the request as its JSON body.
    func write(to writer: inout JSONWriter)
}

extension WireRequestBody {
    /// The request as its UTF-8 JSON body.
    package var jsonBody: [UInt8] {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.bytes
    }
}

extension WireRequest {
    /// Parses a request body.
    /// - Throws: `.badRequest` for an empty body, invalid JSON, or a value of the wrong shape.
    package static func parse(_ body: [UInt8]) throws(NimbusError) -> Self {
        guard !body.isEmpty else { throw .badRequest("request body is empty; expected a JSON object") }
        let json: JSONValue
        do {
            json = try JSONParser.parse(body)
        } catch {
            throw .badRequest("request body is not valid JSON: \(error)")
        }
        return try Self(json: json)
    }
}

/// Reads optional members that several requests share.
extension JSONObject {
    func zoneID() throws(NimbusError) -> ZoneID? {
        try optional("zoneID").map { (zone) throws(NimbusError) in try ZoneID.read(zone, at: "zoneID") }
    }

    func optionalBool(_ key: String) throws(NimbusError) -> Bool? {
        try optional(key)?.bool(at: key)
    }

    func stringList(_ key: String, at path: @autoclosure () -> String) throws(NimbusError) -> [String]? {
        guard let value = optional(key) else { return nil }
        func listPath() -> String { jsonPath(path(), key) }
        return try value.array(at: listPath()).enumerated().map { (index, element) throws(NimbusError) in
            try element.string(at: jsonPath(listPath(), index))
        }
    }
}
