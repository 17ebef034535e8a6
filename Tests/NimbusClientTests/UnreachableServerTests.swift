//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import NimbusClient
import NimbusModel
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A server that is not there: the SDK says so at once, with its own error code, and does not
/// retry what cannot succeed.
@Suite("NimbusClient: a server that cannot be reached", .timeLimit(.minutes(1)))
struct UnreachableServerTests {
    /// A loopback port nothing listens on: bound, read and closed again.
    static func closedPort() throws -> Int {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard bound else { throw CocoaError(.fileReadUnknown) }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    @Test("a refused connection or an unknown host is networkUnavailable within seconds (not minutes), reads and writes alike")
    func failsAtOnce() async throws {
        let port = try Self.closedPort()
        for url in ["http://127.0.0.1:\(port)", "http://nimbus-test.invalid:8080"] {
            let container = Container(
                serverURL: url,
                identifier: "iCloud.com.example.app",
                authentication: .apiToken(String(repeating: "a", count: 64), webAuthToken: "token"),
                transport: HTTPClientTransport()
            )
            let started = ContinuousClock.now
            let read = await #expect(throws: NimbusError.self) { _ = try await container.privateCloudDatabase.allZones() }
            let write = await #expect(throws: NimbusError.self) {
                _ = try await container.privateCloudDatabase.save(zones: [ZoneID(zoneName: "Notes", ownerRecordName: "")])
            }
            for error in [read, write] {
                #expect(error?.code == .networkUnavailable, "\(String(describing: error))")
                #expect(error?.reason.contains(url) == true, "\(String(describing: error))")
            }
            #expect(ContinuousClock.now - started < .seconds(10), "\(url) took \(ContinuousClock.now - started)")
        }
    }
}
