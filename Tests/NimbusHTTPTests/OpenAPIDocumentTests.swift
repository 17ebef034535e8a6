//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import HummingbirdTesting
import NimbusHTTP
import Testing

/// The OpenAPI description the server serves covers every route it serves.
@Suite("the OpenAPI description")
struct OpenAPIDocumentTests {
    @Test("GET /openapi.json answers OpenAPI 3.1 that describes every route the server serves, with the methods it takes")
    func everyRoute() async throws {
        try await HTTPFixture.with { _, client in
            let response = try await client.send(.get, "/openapi.json")
            #expect(response.status == .ok)
            let document = try response.json
            #expect((document["openapi"] as? String)?.hasPrefix("3.1") == true)
            let paths = try #require(document["paths"] as? [String: [String: Any]])
            func methods(_ path: String) -> Set<String> { Set(paths[path]?.keys.filter { $0 != "parameters" } ?? []) }
            for operation in DatabaseRoute.Operation.allCases {
                let path = "/database/1/{container}/{environment}/{database}/\(operation.rawValue)"
                #expect(methods(path) == ["get", "post"], "\(operation.rawValue): \(methods(path))")
            }
            let others: [String: Set<String>] = [
                "/database/1/{container}/{environment}/notifications/inbox": ["get", "post"],
                "/database/1/{container}/{environment}/notifications/ws": ["get"],
                "/webcourier/{token}": ["get"],
                "/health": ["get", "head"],
                "/metrics": ["get"],
                "/openapi.json": ["get"],
                "/signin/{container}": ["get", "post"],
                "/signin/{container}/{environment}": ["get", "post"],
                "/auth/1/{container}/{environment}/{action}": ["get", "post"],
                "/share/{shortGUID}": ["get", "post"],
                "/js/{file}": ["get", "head"],
                "/apps/{app}/{path}": ["get", "head"],
            ]
            for (path, expected) in others {
                #expect(expected.isSubset(of: methods(path)), "\(path): \(methods(path))")
            }
            let schemas = try #require((document["components"] as? [String: Any])?["schemas"] as? [String: Any])
            for name in ["Record", "ZoneID", "Subscription", "ErrorDictionary"] { #expect(schemas[name] != nil, "\(name)") }
        }
    }
}
