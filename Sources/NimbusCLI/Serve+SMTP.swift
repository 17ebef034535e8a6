//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import NimbusServer

extension Serve {
    /// SMTP, from `--smtp-url` or `NIMBUS_SMTP_URL` (see ``SMTPConfiguration/init(url:)``), and
    /// optionally `NIMBUS_SMTP_CA_FILE` (extra trusted certificates, PEM, for a server with a
    /// private CA). No URL: no SMTP, and mail goes to the log.
    static func smtp(url: String?, _ environment: SettingsValues) throws -> SMTPConfiguration? {
        // Empty counts as unset, as a compose file's `${SMTP_URL}` gives when it is not set.
        guard let url = url?.trimmingCharacters(in: .whitespaces), !url.isEmpty else {
            if environment["NIMBUS_SMTP_CA_FILE"] != nil { throw ValidationError("NIMBUS_SMTP_CA_FILE needs an SMTP URL") }
            return nil
        }
        var configuration: SMTPConfiguration
        do {
            configuration = try SMTPConfiguration(url: url)
        } catch {
            // The message names what is wrong and never repeats the URL, which holds the password.
            throw ValidationError("the SMTP URL is not usable: \(error.message)")
        }
        if let path = environment["NIMBUS_SMTP_CA_FILE"] {
            guard let contents = FileManager.default.contents(atPath: path) else { throw ValidationError("cannot read NIMBUS_SMTP_CA_FILE \(path)") }
            configuration.additionalTrustRootsPEM = String(decoding: contents, as: UTF8.self)
        }
        return configuration
    }
}
