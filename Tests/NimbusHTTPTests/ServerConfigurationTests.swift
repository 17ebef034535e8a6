//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusAPNs
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

    @Test("a configuration prints no secret, however it is printed, nor does anything that holds one", arguments: [true, false])
    func printedWithoutSecrets(parses: Bool) {
        let url = parses ? "postgres://nimbus:hunter2-pw@db.example.com/nimbus" : "postgres://nimbus:hunter2-pw@db.example.com:notaport/x"
        let configuration = ServerConfiguration(
            dataDirectory: "data",
            databaseURL: url,
            fieldEncryptionKey: "FIELDKEY-c2VjcmV0",
            tokenKey: "TOKENKEY-c2VjcmV0",
            apns: APNsConfiguration(keyPEM: "-----BEGIN PRIVATE KEY-----\nPEMBODY-c2VjcmV0\n-----END PRIVATE KEY-----", keyID: "ABC", teamID: "T")
        )
        struct Holder { var configuration: ServerConfiguration }
        var dumped = ""
        dump(Holder(configuration: configuration), to: &dumped)
        for text in ["\(configuration)", String(reflecting: configuration), "\(Holder(configuration: configuration))", dumped] {
            for secret in ["hunter2-pw", "FIELDKEY", "TOKENKEY", "PEMBODY"] {
                #expect(!text.contains(secret), "\(secret) in \(text)")
            }
            #expect(text.contains("data"), "the rest is still there: \(text)")
        }
    }
}
