//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusServer
import Testing

@Suite("server configuration")
struct ServerConfigurationTests {
    @Test("a public URL keeps no trailing slash, so the links built on it hold no '//'")
    func publicURL() {
        var configuration = ServerConfiguration(dataDirectory: "data", publicBaseURL: "https://nimbus.example.com//")
        #expect(configuration.publicBaseURL == "https://nimbus.example.com")
        configuration.publicBaseURL = "https://nimbus.example.com/base/"
        #expect(configuration.publicBaseURL == "https://nimbus.example.com/base")
        configuration.publicBaseURL = nil
        #expect(configuration.publicBaseURL == nil)
    }
}
