//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

extension Subscription {
    /// Reads a JSON array of notification rules, validated as the server validates them.
    /// - Throws: `.badRequest` naming the problem and where it is.
    public static func rules(fromJSON text: String) throws(NimbusError) -> [NotificationRule] {
        let json: JSONValue
        do {
            json = try JSONParser.parse(text)
        } catch {
            throw .badRequest("the rules are not valid JSON: \(error)")
        }
        return try NotificationRule.readList(json, at: "rules")
    }
}
