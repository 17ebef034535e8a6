//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusClient
import NimbusModel
import NimbusTesting
import Testing

@Suite("NimbusClient: answers it cannot read")
struct MalformedAnswerTests {
    @Test("an answer missing what the protocol requires is the server's internal error, not a BAD_REQUEST of the caller's")
    func malformedZones() async throws {
        let transport = ScriptedTransport([.response(status: 200, body: #"{"zones":[{"atomic":true}]}"#)])
        let container = Container(
            serverURL: "http://nimbus.test",
            identifier: "iCloud.com.example.app",
            authentication: .apiToken(String(repeating: "a", count: 64), webAuthToken: "token"),
            transport: transport
        )
        do {
            _ = try await container.privateCloudDatabase.allZones()
            Issue.record("a zone without a zoneID was accepted")
        } catch let error as NimbusError {
            #expect(error.code == .internalError)
            #expect(error.reason.contains("zoneID"), "\(error.reason)")
        }
    }
}
