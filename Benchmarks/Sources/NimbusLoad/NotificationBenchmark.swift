//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HummingbirdWSClient
import Logging
import Synchronization

/// Measures the messaging hot path: one message saved into a chat whose members are all
/// connected over WebSocket, until the last member has it; the writer's own latency with and
/// without those subscribers; and the server's memory for idle connections.
///
/// The owner shares the chat's zone with every other member, who accepts; each member holds a
/// zone subscription (the owner in the private database, the others in the shared one) and one
/// WebSocket. Messages are sent one at a time, each after the previous reached everyone.
enum NotificationBenchmark {
    struct Result {
        var members: Int
        var sends: Int
        var lastDeliveryP50: Double
        var lastDeliveryP99: Double
        var firstDeliveryP50: Double
        var writeWithoutP50: Double
        var writeWithP50: Double
        var writeWithoutP99: Double
        var writeWithP99: Double
        var idleConnections: Int
        var idleMemoryBytes: Int
        var baselineMemoryBytes: Int
    }

    /// Arrival times of each message at each member.
    final class Arrivals: Sendable {
        private let state = Mutex<[String: [ContinuousClock.Instant]]>([:])

        func record(_ message: String, at instant: ContinuousClock.Instant) {
            state.withLock { $0[message, default: []].append(instant) }
        }

        func arrivals(of message: String) -> [ContinuousClock.Instant] {
            state.withLock { $0[message] ?? [] }
        }
    }

    static func run(session: LoadSession, members: Int, sends: Int, idleConnections: Int) async throws -> Result {
        guard let port = URL(string: session.url)?.port else { throw LoadError("no port in \(session.url)") }
        let owner = try KeepAliveClient(port: port)
        func post(_ client: KeepAliveClient, _ path: String, _ body: String) throws -> String {
            let response = try client.post(path, body: body)
            let text = String(decoding: response.body, as: UTF8.self)
            guard response.status == 200, !text.contains("serverErrorCode") else { throw LoadError("\(path) failed: \(text.prefix(300))") }
            return text
        }

        FileHandle.standardError.write(Data("adding \(members - 1) chat members...\n".utf8))
        var memberTokens: [String] = []
        var memberNames: [String] = []
        for index in 1..<members {
            let output = try Shell.run(
                session.nimbus,
                ["user", "add", "Member \(index)", "--container", LoadSession.container, "--json"] + session.dataOptions
            )
            let user = try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: String] ?? [:]
            memberTokens.append(user["webAuthToken"] ?? "")
            memberNames.append(user["userRecordName"] ?? "")
        }
        func path(_ operation: String, scope: String, token: String) -> String {
            let escaped = token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            return "/database/1/\(LoadSession.container)/development/\(scope)/\(operation)?ckAPIToken=\(session.apiToken)&ckWebAuthToken=\(escaped)"
        }
        let ownerToken = session.webAuthTokens[0]
        let ownerName = try string(after: #""userRecordName":""#, in: try post(owner, path("users/current", scope: "public", token: ownerToken), ""))

        FileHandle.standardError.write(Data("sharing the chat with every member...\n".utf8))
        _ = try post(
            owner,
            path("zones/modify", scope: "private", token: ownerToken),
            #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Chat"}}}]}"#
        )
        let participants = memberNames.map {
            #"{"permission":"READ_WRITE","userIdentity":{"lookupInfo":{"userRecordName":"\#($0)"}}}"#
        }
        let shared = try post(
            owner,
            path("records/modify", scope: "private", token: ownerToken),
            #"{"zoneID":{"zoneName":"Chat"},"operations":[{"operationType":"create","record":{"recordName":"cloudkit.zoneshare","recordType":"cloudkit.share","participants":[\#(participants.joined(separator: ","))]}}]}"#
        )
        let guid = try string(after: #""shortGUID":""#, in: shared)
        let member = try KeepAliveClient(port: port)
        for token in memberTokens {
            _ = try post(member, path("records/accept", scope: "public", token: token), #"{"shortGUIDs":[{"value":"\#(guid)"}]}"#)
        }

        // The writer's latency before anyone subscribed.
        func send(_ name: String) throws -> Double {
            let begin = ContinuousClock.now
            _ = try post(
                owner,
                path("records/modify", scope: "private", token: ownerToken),
                #"{"zoneID":{"zoneName":"Chat"},"operations":[{"operationType":"create","record":{"recordName":"\#(name)","recordType":"Message","fields":{"text":{"value":"hello"}}}}]}"#
            )
            return Double.milliseconds(since: begin)
        }
        var without: [Double] = []
        for index in 0..<(sends + 10) {
            let time = try send("warm-\(index)")
            if index >= 10 { without.append(time) }
        }

        FileHandle.standardError.write(Data("subscribing and connecting \(members) WebSockets...\n".utf8))
        let zoneSubscription =
            #"{"operations":[{"operationType":"create","subscription":{"subscriptionID":"chat","subscriptionType":"zone","zoneID":{"zoneName":"Chat","ownerRecordName":"\#(ownerName)"}}}]}"#
        _ = try post(owner, path("subscriptions/modify", scope: "private", token: ownerToken), zoneSubscription)
        for token in memberTokens {
            _ = try post(member, path("subscriptions/modify", scope: "shared", token: token), zoneSubscription)
        }
        let arrivals = Arrivals()
        let socketURL = { (token: String) in
            let escaped = token.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            return
                "ws://127.0.0.1:\(port)/database/1/\(LoadSession.container)/development/notifications/ws?ckAPIToken=\(session.apiToken)&ckWebAuthToken=\(escaped)"
        }
        let urls = ([ownerToken] + memberTokens).map(socketURL)
        let connected = Counter()
        let sockets = Task {
            await withTaskGroup(of: Void.self) { group in
                for url in urls {
                    group.addTask {
                        try? await WebSocketClient.connect(url: url, logger: Logger(label: "bench")) { inbound, _, _ in
                            connected.add(1)
                            for try await message in inbound.messages(maxSize: 1 << 20) {
                                guard case .text(let text) = message, let name = firstRecordName(in: text) else { continue }
                                arrivals.record(name, at: .now)
                            }
                        }
                    }
                }
            }
        }
        while connected.value < members { try await Task.sleep(for: .milliseconds(50)) }
        // Every connection has fixed where its stream starts once it is upgraded; settle anyway.
        try await Task.sleep(for: .milliseconds(500))

        FileHandle.standardError.write(Data("sending \(sends) messages to \(members) members...\n".utf8))
        var last: [Double] = []
        var first: [Double] = []
        var with: [Double] = []
        for index in 0..<(sends + 5) {
            let name = "m\(index)"
            let begin = ContinuousClock.now
            let writeTime = try send(name)
            let deadline = begin + .seconds(30)
            while arrivals.arrivals(of: name).count < members, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(1))
            }
            let times = arrivals.arrivals(of: name)
            guard times.count == members else { throw LoadError("message \(name) reached \(times.count) of \(members) members in 30 s") }
            if index >= 5 {
                with.append(writeTime)
                last.append(Double.milliseconds(from: begin, to: times.max()!))
                first.append(Double.milliseconds(from: begin, to: times.min()!))
            }
        }
        sockets.cancel()

        // Idle connections: the server's resident memory before and after opening them.
        FileHandle.standardError.write(Data("holding \(idleConnections) idle WebSockets...\n".utf8))
        try await Task.sleep(for: .seconds(1))
        let baseline = try residentMemory(of: session.serverPID)
        let idle = Counter()
        let holders = Task {
            await withTaskGroup(of: Void.self) { group in
                for index in 0..<idleConnections {
                    let url = urls[index % urls.count]
                    group.addTask {
                        try? await WebSocketClient.connect(url: url, logger: Logger(label: "bench")) { inbound, _, _ in
                            idle.add(1)
                            for try await _ in inbound {}
                        }
                    }
                }
            }
        }
        let openDeadline = ContinuousClock.now + .seconds(120)
        while idle.value < idleConnections, ContinuousClock.now < openDeadline { try await Task.sleep(for: .milliseconds(100)) }
        guard idle.value == idleConnections else { throw LoadError("only \(idle.value) of \(idleConnections) idle connections opened") }
        try await Task.sleep(for: .seconds(2))
        let held = try residentMemory(of: session.serverPID)
        holders.cancel()

        return Result(
            members: members,
            sends: sends,
            lastDeliveryP50: percentile(last, 0.5),
            lastDeliveryP99: percentile(last, 0.99),
            firstDeliveryP50: percentile(first, 0.5),
            writeWithoutP50: percentile(without, 0.5),
            writeWithP50: percentile(with, 0.5),
            writeWithoutP99: percentile(without, 0.99),
            writeWithP99: percentile(with, 0.99),
            idleConnections: idleConnections,
            idleMemoryBytes: held,
            baselineMemoryBytes: baseline
        )
    }

    /// The first record name a notification lists.
    static func firstRecordName(in text: String) -> String? {
        guard let range = text.range(of: #""rid":""#) else { return nil }
        let rest = text[range.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }

    static func residentMemory(of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { throw LoadError("no VmRSS for process \(pid)") }
        return kilobytes * 1024
    }

    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return 0 }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)]
    }

    final class Counter: Sendable {
        private let count = Mutex(0)
        func add(_ value: Int) { count.withLock { $0 += value } }
        var value: Int { count.withLock { $0 } }
    }
}
