//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel
import NimbusWire
import Testing

/// A bad request's reason names where in the body the problem is, down to the list element, so
/// a client can find it (the paths are built only when a reason needs one).
@Suite("request errors name the path of what was wrong")
struct RequestErrorPathTests {
    static func reason(_ body: String) -> String? {
        do {
            _ = try RecordsModifyRequest.parse(Array(body.utf8))
            return nil
        } catch {
            return error.code == .badRequest ? error.reason : "not a BAD_REQUEST: \(error)"
        }
    }

    static func operation(_ record: String, type: String = "create") -> String {
        #"{"operations":[{"operationType":"create","record":{"recordType":"Note"}},{"operationType":""# + type + #"","record":"#
            + record + "}]}"
    }

    @Test(
        "records/modify: a wrong or missing value is named by its path",
        arguments: [
            (
                operation(#"{"recordType":"Note","fields":{"title":{"value":5,"type":"STRING"}}}"#),
                "wrong type at operations[1].record.fields.title.value: expected a string, found a number"
            ),
            (
                operation(#"{"recordType":"Note","fields":{"tags":{"value":["a",2],"type":"STRING_LIST"}}}"#),
                "wrong type at operations[1].record.fields.tags.value[1]: expected a string, found a number"
            ),
            (
                operation(#"{"recordType":"Note","fields":{"when":{"value":"soon","type":"TIMESTAMP"}}}"#),
                "wrong type at operations[1].record.fields.when.value: expected an integer, found a string"
            ),
            (
                operation(#"{"recordType":"Note","fields":{"title":{"type":"STRING","other":1}}}"#),
                "missing required field 'value' in operations[1].record.fields.title"
            ),
            (operation(#"{"recordType":7}"#), "wrong type at operations[1].record.recordType: expected a string, found a number"),
            (
                operation(#"{"recordType":"Note","parent":{"recordName":3}}"#),
                "wrong type at operations[1].record.parent.recordName: expected a string, found a number"
            ),
            (
                operation(#"{"recordType":"Note","fields":{"link":{"value":{"recordName":"x","action":"LATER"},"type":"REFERENCE"}}}"#),
                "unknown reference action 'LATER' at operations[1].record.fields.link.value.action"
            ),
            (operation(#"{"recordType":"Note"}"#, type: "explode"), "unknown operationType 'explode' at operations[1].operationType"),
            (operation("[]"), "wrong type at operations[1].record: expected an object, found an array"),
        ]
    )
    func recordsModify(body: String, expected: String) {
        #expect(Self.reason(body) == expected)
    }
}
