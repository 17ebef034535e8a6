//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// How to reach Apple's push service: the team's signing key, and where APNs is.
public struct APNsConfiguration: Sendable {
    /// The `.p8` key from the Apple developer account, in PEM (PKCS #8, P-256).
    public var keyPEM: String
    /// The key's ID (10 characters, shown next to the key in the developer account).
    public var keyID: String
    /// The developer team's ID: the provider token's issuer.
    public var teamID: String
    /// The app's bundle ID, sent as `apns-topic`. `nil`: the container ID without its `iCloud.`
    /// prefix, which is how CloudKit containers are named after their app.
    public var topic: String?
    /// APNs for devices that registered as `development`. Default: Apple's sandbox.
    public var developmentURL: String
    /// APNs for devices that registered as `production`. Default: Apple's production host.
    public var productionURL: String
    /// Certificates (PEM) trusted besides the system's: for an APNs stand-in with a private CA.
    public var additionalTrustRootsPEM: String?

    /// Apple's sandbox host.
    public static let sandboxURL = "https://api.sandbox.push.apple.com"
    /// Apple's production host.
    public static let productionURL = "https://api.push.apple.com"

    /// Creates a configuration.
    public init(
        keyPEM: String,
        keyID: String,
        teamID: String,
        topic: String? = nil,
        developmentURL: String = Self.sandboxURL,
        productionURL: String = Self.productionURL,
        additionalTrustRootsPEM: String? = nil
    ) {
        self.keyPEM = keyPEM
        self.keyID = keyID
        self.teamID = teamID
        self.topic = topic
        self.developmentURL = developmentURL
        self.productionURL = productionURL
        self.additionalTrustRootsPEM = additionalTrustRootsPEM
    }

    /// The topic of a container's pushes.
    func topic(for container: String) -> String {
        if let topic { return topic }
        return container.hasPrefix("iCloud.") ? String(container.dropFirst("iCloud.".count)) : container
    }
}

/// The signing key never appears when a configuration is printed, nor in anything that holds one.
extension APNsConfiguration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "APNsConfiguration(keyID: \(keyID), teamID: \(teamID), topic: \(topic ?? "from the container"), "
            + "developmentURL: \(developmentURL), productionURL: \(productionURL), keyPEM: (redacted))"
    }

    public var debugDescription: String { description }

    public var customMirror: Mirror {
        Mirror(self, children: ["keyID": keyID, "teamID": teamID, "keyPEM": "(redacted)"], displayStyle: .struct)
    }
}
