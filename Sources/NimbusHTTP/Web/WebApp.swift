//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusModel

/// A bundled web app the server serves (`nimbus serve --apps chat`), and the container it talks
/// to. The app reads `/apps/{name}/config.json`, made from these settings: an API token is
/// what CloudKit JS apps embed in their pages too, so handing it to the browser reveals
/// nothing a page of the app would not.
public struct WebApp: Sendable, Hashable {
    /// The app's folder name under the bundled apps (`chat`).
    public var name: String
    /// The container its people use.
    public var containerIdentifier: String
    /// `development` or `production`.
    public var environment: String
    /// The container environment's API token.
    public var apiToken: String

    /// Creates an app's settings.
    public init(name: String, containerIdentifier: String, environment: String, apiToken: String) {
        self.name = name
        self.containerIdentifier = containerIdentifier
        self.environment = environment
        self.apiToken = apiToken
    }

    /// `config.json`: what the app's page configures `nimbus.js` with.
    var configJSON: [UInt8] {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.field("containerIdentifier", containerIdentifier)
        writer.field("environment", environment)
        writer.field("apiToken", apiToken)
        writer.endObject()
        return writer.bytes
    }
}
