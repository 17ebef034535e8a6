//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import Testing

/// Connections that never finish their first request: the server closes them, holds no more
/// connections than its descriptors allow, and keeps answering `/health`.
@Suite("connections that never send a request", .timeLimit(.minutes(2)))
struct ConnectionLimitTests {
    /// Opens connections that send nothing, half a request head, or half a WebSocket upgrade,
    /// more than the server's descriptor limit; asks `/health` meanwhile; then waits for the
    /// server to close every one. Prints what it saw as JSON.
    static let client = #"""
        import json, socket, sys, time
        port, count = int(sys.argv[1]), int(sys.argv[2])
        held, refused = [], 0
        heads = [b"", b"GET /health HTTP/1.1\r\nHost: a\r\n",
                 b"GET /database/1/x/development/notifications/ws HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"]
        for index in range(count):
            s = socket.socket()
            s.settimeout(1)
            try:
                s.connect(("127.0.0.1", port))
                s.sendall(heads[index % 3])
                held.append(s)
            except OSError:
                refused += 1
                s.close()
        def health():
            started = time.time()
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=20) as h:
                    h.sendall(b"GET /health HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
                    answer = h.recv(200)
                return answer.startswith(b"HTTP/1.1 200"), time.time() - started
            except OSError:
                return False, time.time() - started
        answered, seconds = health()
        deadline, closed = time.time() + 30, 0
        for s in held:
            s.settimeout(max(0.1, deadline - time.time()))
            try:
                if s.recv(1) == b"": closed += 1
            except ConnectionResetError:
                closed += 1
            except OSError:
                pass
            s.close()
        print(json.dumps({"held": len(held), "refused": refused, "closed": closed,
                          "health": answered, "healthSeconds": seconds, "healthAfter": health()[0]}))
        """#

    @Test("past its descriptor limit the server still answers /health, and closes connections that never send a request head")
    func idleConnections() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-e2e-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let server = try await ServerProcess(
            DataLocation(directory: directory),
            environment: ["NIMBUS_FIRST_BYTE_TIMEOUT": "2", "NIMBUS_HEADER_TIMEOUT": "3"],
            descriptorLimit: 256
        )
        let port = try #require(server.url.split(separator: ":").last.map(String.init))
        let result = try await runProcess("/usr/bin/env", ["python3", "-c", Self.client, port, "400"])
        let seen = try #require(
            try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any],
            "\(result.stdout) \(result.stderr)"
        )
        let held = try #require(seen["held"] as? Int)
        #expect(held > 256, "the client held more connections than the server has descriptors: \(seen)")
        #expect(seen["health"] as? Bool == true, "/health did not answer under the load: \(seen)")
        #expect((seen["healthSeconds"] as? Double ?? 99) < 15, "\(seen)")
        #expect(seen["closed"] as? Int == held, "the server left connections open: \(seen)")
        #expect(seen["healthAfter"] as? Bool == true, "\(seen)")
        #expect(try await server.stop() == 0)
    }
}
