//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import NimbusEngine
import NimbusModel
import NimbusServer
import NimbusStore

/// Sign-in settings from a file, for deployments configured as code: `NIMBUS_SIGN_IN_CONFIG`
/// names a JSON array of `{"container", "environment", "settings"}`, where `settings` has the
/// keys `nimbus auth show --json` prints (any left out keep their defaults). A provider's
/// `clientSecret` may be given as `clientSecretFile`, a path read at start.
///
/// Decision: the file is authoritative. It is applied at every start, after the first start's
/// container is made and before the server listens, replacing what `nimbus auth` saved for the
/// container environments it names; the others keep theirs.
struct SignInConfigFile: Sendable {
    struct Entry: Decodable, Sendable {
        var container: String
        var environment: String
        var settings: SignInSettings
        /// Per provider name: a file holding its client secret.
        var clientSecretFiles: [String: String]?
    }

    let entries: [(ContainerEnvironment, SignInSettings)]

    /// Reads and checks the file; throws a message naming what is wrong.
    init(path: String) throws {
        guard let data = FileManager.default.contents(atPath: path) else { throw ValidationError("cannot read NIMBUS_SIGN_IN_CONFIG \(path)") }
        let decoded: [Entry]
        do {
            decoded = try JSONDecoder().decode([Entry].self, from: data)
        } catch {
            throw ValidationError("NIMBUS_SIGN_IN_CONFIG \(path) is not a JSON array of {container, environment, settings}: \(error)")
        }
        entries = try decoded.map { entry in
            guard let environment = Environment(parsing: entry.environment) else {
                throw ValidationError("NIMBUS_SIGN_IN_CONFIG: environment must be development or production, not \(entry.environment)")
            }
            var settings = entry.settings
            for (name, file) in entry.clientSecretFiles ?? [:] {
                guard let index = settings.providers.firstIndex(where: { $0.name == name }) else {
                    throw ValidationError("NIMBUS_SIGN_IN_CONFIG: clientSecretFiles names \(name), which is no provider")
                }
                guard let secret = FileManager.default.contents(atPath: file) else {
                    throw ValidationError("cannot read the client secret file \(file)")
                }
                settings.providers[index].clientSecret = String(decoding: secret, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            }
            return (ContainerEnvironment(container: entry.container, environment: environment), settings)
        }
    }

    /// Saves every entry's settings (checked as `nimbus auth` checks them).
    func apply(to instance: NimbusInstance) async throws {
        for (target, settings) in entries {
            do throws(NimbusError) {
                try await instance.signIn.saveSettings(settings, for: target)
            } catch {
                throw ValidationError("NIMBUS_SIGN_IN_CONFIG for \(target.container) (\(target.environment.rawValue)): \(error.reason)")
            }
        }
    }
}
