//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

/// How a subscription's notifications look: CloudKit's `notificationInfo`.
///
/// The documented keys have properties; every other key a client sends (native extras such as
/// `titleLocalizationKey`) is stored and echoed unchanged.
public struct NotificationInfo: Sendable, Hashable {
    /// The keys as the client sent them.
    package var values: JSONObject

    /// Creates notification info with the given visible text and flags.
    public init(
        alertBody: String? = nil,
        title: String? = nil,
        soundName: String? = nil,
        shouldBadge: Bool = false,
        shouldSendContentAvailable: Bool = false,
        desiredKeys: [String]? = nil,
        category: String? = nil
    ) {
        values = [:]
        if let alertBody { values["alertBody"] = .string(alertBody) }
        if let title { values["title"] = .string(title) }
        if let soundName { values["soundName"] = .string(soundName) }
        if shouldBadge { values["shouldBadge"] = .bool(true) }
        if shouldSendContentAvailable { values["shouldSendContentAvailable"] = .bool(true) }
        if let desiredKeys { values["desiredKeys"] = .array(desiredKeys.map(JSONValue.string)) }
        if let category { values["category"] = .string(category) }
    }

    package init(values: JSONObject) {
        self.values = values
    }

    /// The alert text.
    public var alertBody: String? { string("alertBody") }
    /// The alert title.
    public var title: String? { string("title") }
    /// The alert's localization key.
    public var alertLocalizationKey: String? { string("alertLocalizationKey") }
    /// The sound to play.
    public var soundName: String? { string("soundName") }
    /// The notification's category.
    public var category: String? { string("category") }
    /// The key whose value collapses notifications on the device (`collapseIDKey`).
    public var collapseIDKey: String? { string("collapseIDKey") }
    /// Whether the app's badge is incremented.
    public var shouldBadge: Bool { values["shouldBadge"] == .bool(true) }
    /// Whether the notification wakes the app (a silent push when nothing else is visible).
    public var shouldSendContentAvailable: Bool { values["shouldSendContentAvailable"] == .bool(true) }
    /// Whether the device may modify the notification before showing it.
    public var shouldSendMutableContent: Bool { values["shouldSendMutableContent"] == .bool(true) }
    /// The record fields copied into a query notification.
    public var desiredKeys: [String]? {
        guard case .array(let elements) = values["desiredKeys"] else { return nil }
        return elements.compactMap { if case .string(let key) = $0 { key } else { nil } }
    }

    /// Whether a notification shows anything to the user: an alert, a sound or a badge.
    public var isVisible: Bool {
        alertBody != nil || title != nil || alertLocalizationKey != nil || soundName != nil || shouldBadge
    }

    private func string(_ key: String) -> String? {
        if case .string(let value) = values[key] { value } else { nil }
    }
}
