//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdHTTP2
import JWTKit
import Logging
import NIOCore
import NIOHTTP2
import NIOSSL
import NimbusTestSupport
import Synchronization

/// A stand-in for Apple's push service on 127.0.0.1: HTTP/2 over TLS with a certificate made
/// for the test. It checks every push as APNs does (an ES256 provider token signed by the
/// team's key, the topic, the push type and its priority) and records it. A test scripts the
/// answers for a device token (an error, a throttle) before its pushes arrive.
final class FakeAPNs: Sendable {
    /// One request as it arrived.
    struct Received: Sendable {
        var deviceToken: String
        var headers: [String: String]
        var payload: [UInt8]
        /// Whether it came over HTTP/2, as APNs requires.
        var overHTTP2: Bool
        /// What was wrong with it, in APNs' words (`nil`: a good push).
        var problem: String?

        /// The payload as a JSON object.
        var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any] ?? [:] }
        /// `ck` of the payload.
        var ck: [String: Any] { json["ck"] as? [String: Any] ?? [:] }
    }

    /// A scripted answer.
    struct Answer: Sendable {
        var status: Int
        var reason: String
        var retryAfter: Int?
    }

    private struct State {
        var received: [Received] = []
        var scripted: [String: [Answer]] = [:]
    }

    let keyID = "KEY1234567"
    let teamID = "TEAM123456"
    let topic: String
    /// The team's signing key, as the `.p8` file Apple hands out.
    let signingKeyPEM: String
    /// The certificate the server presents: clients trust it to reach the fake.
    let certificatePEM: String
    private let verifier: JWTKeyCollection
    private let state = Mutex(State())

    private init(topic: String, signingKeyPEM: String, certificatePEM: String, verifier: JWTKeyCollection) {
        self.topic = topic
        self.signingKeyPEM = signingKeyPEM
        self.certificatePEM = certificatePEM
        self.verifier = verifier
    }

    /// Every request so far, in arrival order.
    var received: [Received] { state.withLock { $0.received } }

    /// Answers the next pushes to `deviceToken` with `answers`, one each, before answering 200.
    func script(_ deviceToken: String, _ answers: [Answer]) {
        state.withLock { $0.scripted[deviceToken, default: []] += answers }
    }

    /// Waits up to ten seconds for `count` requests; returns them all.
    func waitForRequests(_ count: Int) async throws -> [Received] {
        for _ in 0..<200 where received.count < count { try await Task.sleep(for: .milliseconds(50)) }
        return received
    }

    /// Runs `body` with a running fake and the URL it listens on; stops it afterwards.
    static func with(topic: String, _ body: @escaping @Sendable (FakeAPNs, String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("nimbus-apns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyPath = directory.appendingPathComponent("server.key").path
        let certificatePath = directory.appendingPathComponent("server.crt").path
        try await openssl([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", keyPath, "-out",
            certificatePath, "-days", "1", "-subj", "/CN=Nimbus test APNs", "-addext", "subjectAltName=IP:127.0.0.1",
        ])
        let signingPath = directory.appendingPathComponent("AuthKey.p8").path
        try await openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", signingPath])
        let signingKeyPEM = try String(contentsOfFile: signingPath, encoding: .utf8)
        let certificatePEM = try String(contentsOfFile: certificatePath, encoding: .utf8)
        let signingKey = try ES256PrivateKey(pem: signingKeyPEM)
        let fake = FakeAPNs(
            topic: topic,
            signingKeyPEM: signingKeyPEM,
            certificatePEM: certificatePEM,
            verifier: await JWTKeyCollection().add(ecdsa: signingKey.publicKey, kid: JWKIdentifier(string: "KEY1234567"))
        )

        let tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMFile(certificatePath).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(file: keyPath, format: .pem))
        )
        let router = Router(context: FakeAPNsContext.self)
        router.post("3/device/:token") { request, context in
            try await fake.answer(request, context: context)
        }
        let port = Mutex<Int?>(nil)
        var logger = Logger(label: "fake-apns")
        logger.logLevel = .error
        let app = Application(
            router: router,
            server: try .http2Upgrade(tlsConfiguration: tls),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in port.withLock { $0 = channel.localAddress?.port } },
            logger: logger
        )
        let server = Task { try await app.runService(gracefulShutdownSignals: []) }
        defer { server.cancel() }
        for _ in 0..<200 where port.withLock({ $0 }) == nil { try await Task.sleep(for: .milliseconds(25)) }
        guard let listening = port.withLock({ $0 }) else { throw FixtureFailure("the fake APNs server did not start") }
        try await body(fake, "https://127.0.0.1:\(listening)")
    }

    /// Checks and records one push, and answers as APNs would.
    private func answer(_ request: Request, context: FakeAPNsContext) async throws -> Response {
        let deviceToken = context.parameters.get("token") ?? ""
        let payload = Array(try await request.body.collect(upTo: 64 * 1024).readableBytesView)
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName] = field.value }
        let overHTTP2 = (try? await context.channel.getOption(HTTP2StreamChannelOptions.streamID)) != nil
        let problem = await check(headers, payload: payload)
        let scripted = state.withLock { state -> Answer? in
            state.received.append(Received(deviceToken: deviceToken, headers: headers, payload: payload, overHTTP2: overHTTP2, problem: problem))
            guard problem == nil, var answers = state.scripted[deviceToken], !answers.isEmpty else { return nil }
            let next = answers.removeFirst()
            state.scripted[deviceToken] = answers
            return next
        }
        if let problem { return Self.error(problem == "InvalidProviderToken" ? 403 : 400, problem, retryAfter: nil) }
        if let scripted { return Self.error(scripted.status, scripted.reason, retryAfter: scripted.retryAfter) }
        var fields = HTTPFields()
        fields[HTTPField.Name("apns-id")!] = headers["apns-id"] ?? UUID().uuidString
        return Response(status: .ok, headers: fields)
    }

    /// What APNs would refuse in a request, by its reason; `nil` for a good one.
    private func check(_ headers: [String: String], payload: [UInt8]) async -> String? {
        guard let authorization = headers["authorization"], authorization.hasPrefix("bearer ") else { return "MissingProviderToken" }
        guard let claims = try? await verifier.verify(String(authorization.dropFirst("bearer ".count)), as: ProviderClaims.self),
            claims.iss.value == teamID, abs(claims.iat.value.timeIntervalSinceNow) < 3600
        else { return "InvalidProviderToken" }
        guard let topic = headers["apns-topic"] else { return "MissingTopic" }
        guard topic == self.topic else { return "BadTopic" }
        switch (headers["apns-push-type"], headers["apns-priority"]) {
        case ("alert", "10"), ("background", "5"): break
        case ("alert", _), ("background", _): return "BadPriority"
        default: return "InvalidPushType"
        }
        guard headers["apns-expiration"].flatMap(Int.init) != nil else { return "BadExpirationDate" }
        guard headers["apns-id"].flatMap(UUID.init(uuidString:)) != nil else { return "BadMessageId" }
        if let collapse = headers["apns-collapse-id"], collapse.utf8.count > 64 { return "BadCollapseId" }
        guard payload.count <= 4096 else { return "PayloadTooLarge" }
        guard (try? JSONSerialization.jsonObject(with: Data(payload))) as? [String: Any] != nil else { return "PayloadEmpty" }
        return nil
    }

    private static func error(_ status: Int, _ reason: String, retryAfter: Int?) -> Response {
        var fields = HTTPFields()
        fields[.contentType] = "application/json"
        if let retryAfter { fields[HTTPField.Name("retry-after")!] = "\(retryAfter)" }
        return Response(
            status: .init(code: status),
            headers: fields,
            body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"reason":"\#(reason)"}"#))
        )
    }

    private static func openssl(_ arguments: [String]) async throws {
        let result = try await ProcessLaunch.runToCompletion("/usr/bin/env", ["openssl"] + arguments)
        guard result.status == 0 else { throw FixtureFailure("openssl \(arguments[0]) failed: \(result.stderr)") }
    }
}

/// The claims of a provider token.
private struct ProviderClaims: JWTPayload {
    var iss: IssuerClaim
    var iat: IssuedAtClaim

    func verify(using algorithm: some JWTAlgorithm) throws {}
}

/// A request context that keeps the channel, to tell an HTTP/2 stream from an HTTP/1 connection.
struct FakeAPNsContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        channel = source.channel
    }
}
