//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import NimbusStore

/// What a webhook's receiver made of a delivery.
public enum WebhookOutcome: Sendable, Hashable {
    /// A 2xx answer: the entries are delivered.
    case delivered
    /// Anything else (no answer, a 5xx, a 4xx): the same entries go again after a back-off.
    case retryLater(reason: String)
}

/// Sends inbox entries to a webhook URL, signed with the webhook's secret.
public protocol WebhookSender: Sendable {
    /// POSTs `entries` (in sequence order) to `url`; never throws: a failure is an outcome.
    func send(_ entries: [InboxEntry], to url: String, secret: String) async -> WebhookOutcome
}
