//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Logging
import NimbusEngine
import NimbusStore

extension NimbusInstance {
    /// The mailer a configuration asks for: its SMTP server, or without one the log.
    ///
    /// Made before anything is opened, so a configuration that cannot be used fails the start
    /// instead of the first sign-in, and leaves nothing open behind.
    static func makeMailer(_ configuration: ServerConfiguration, clock: any NimbusClock, logger: Logger) throws -> any Mailer {
        guard let smtp = configuration.smtp else { return LogMailer(logger: logger) }
        do {
            return try SMTPMailer(configuration: smtp, clock: clock, logger: logger)
        } catch {
            throw ServerError("the SMTP configuration is not usable: \(error.message)")
        }
    }
}
