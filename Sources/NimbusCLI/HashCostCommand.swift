//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import ArgumentParser
import Foundation
import NimbusEngine

extension AuthCommand {
    /// `nimbus auth hash-cost [--log-rounds N ...] [--count N]`: what each password-hash cost
    /// takes on this machine, so an operator can choose `NIMBUS_PASSWORD_HASH_COST`.
    struct HashCost: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "hash-cost",
            abstract: "Measure what hashing one password costs at each scrypt setting, on this machine.",
            discussion: """
                A sign-in with a password runs one hash on one core; memory is taken while it runs.
                Choose the highest cost whose time your users accept (OWASP: at least 16, 64 MiB),
                and set it with NIMBUS_PASSWORD_HASH_COST. Raising it later leaves existing hashes
                valid: each is rehashed at the new cost when its user next signs in.
                """
        )

        @Option(name: .customLong("log-rounds"), help: "log2 of scrypt's N to measure (repeat for several).")
        var logRounds: [Int] = [14, 15, 16, 17]
        @Option(help: "Hashes per setting (the median is reported).") var count: Int = 5
        @Flag(help: "Print one JSON object.") var json = false

        func run() async throws {
            guard (1...100).contains(count) else { throw CommandFailure(description: "--count must be 1 to 100") }
            guard logRounds.allSatisfy({ (10...22).contains($0) }) else { throw CommandFailure(description: "--log-rounds must be 10 to 22") }
            var rows: [[String: Any]] = []
            for rounds in logRounds {
                let parameters = PasswordHasher.Parameters(logRounds: rounds)
                let hasher = PasswordHasher(parameters: parameters, concurrency: 1)
                var times: [Double] = []
                for _ in 0..<count {
                    let start = ContinuousClock.now
                    _ = try await hasher.hash("a password of ordinary length")
                    let elapsed = ContinuousClock.now - start
                    times.append(Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
                }
                let median = times.sorted()[times.count / 2]
                rows.append([
                    "logRounds": rounds, "memoryMiB": parameters.memoryBytes >> 20, "millisecondsPerHash": (median * 10).rounded() / 10,
                    "hashesPerSecondPerCore": (1000 / median * 10).rounded() / 10,
                ])
            }
            if json {
                Output.printJSON(["settings": rows, "cores": ProcessInfo.processInfo.activeProcessorCount])
                return
            }
            Swift.print("cost  memory   per hash   per core")
            for row in rows {
                Swift.print(
                    String(
                        format: "%4d  %3d MiB  %6.1f ms  %6.1f/s",
                        row["logRounds"] as! Int,
                        row["memoryMiB"] as! Int,
                        row["millisecondsPerHash"] as! Double,
                        row["hashesPerSecondPerCore"] as! Double
                    )
                )
            }
            Swift.print("\(ProcessInfo.processInfo.activeProcessorCount) cores; the default cost is \(PasswordHasher.Parameters.standard.logRounds).")
        }
    }
}
