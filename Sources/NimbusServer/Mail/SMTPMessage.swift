//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

import NimbusEngine

/// A message as it goes over SMTP: the envelope, and the bytes that follow `DATA`.
///
/// Everything about the message is checked here, before any connection is made: an address or
/// a subject with a line break throws, so a value that came from a client can never add a
/// header, or end `DATA` and start commands of its own.
struct SMTPMessage: Sendable {
    /// The envelope sender, for `MAIL FROM`.
    let sender: MailAddress
    /// The envelope recipient, for `RCPT TO`.
    let recipient: MailAddress
    /// The header and body: CRLF line ends, lines that start with "." doubled (RFC 5321
    /// 4.5.2), and the closing `CRLF . CRLF`.
    let data: [UInt8]

    /// Builds a message; throws ``SMTPError/Code/invalidMessage`` for what cannot be sent safely.
    /// - Parameters:
    ///   - message: What to send to whom.
    ///   - from: The sender's address.
    ///   - fromName: The name shown with the sender's address.
    ///   - date: The `Date` header's value.
    ///   - messageID: A unique left part for `Message-ID`; the sender's domain is the right part.
    init(_ message: MailMessage, from: MailAddress, fromName: String?, date: String, messageID: String) throws(SMTPError) {
        let recipient: MailAddress
        do {
            recipient = try MailAddress(message.to)
        } catch {
            throw SMTPError(.invalidMessage, "the recipient cannot be sent to: \(error.message)")
        }
        if message.subject.unicodeScalars.contains(where: MailAddress.isForbiddenInHeader) {
            throw SMTPError(.invalidMessage, "the subject holds a line break or control character")
        }
        var lines = [
            "Date: \(date)",
            "From: \(Self.mailbox(from, name: fromName))",
            "To: \(recipient)",
            "Subject: \(Self.headerText(message.subject, after: "Subject: "))",
            "Message-ID: <\(messageID)@\(from.domain)>",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: quoted-printable",
            // RFC 3834: vacation responders and the like do not answer sign-in mail.
            "Auto-Submitted: auto-generated",
            "",
        ]
        var body = QuotedPrintable.encode(message.body)
        // The CRLF that closes the last line ends a body that ended with a line break.
        if body.count > 1, body.last == "" { body.removeLast() }
        lines += body
        var data: [UInt8] = []
        for line in lines.joined(separator: "\r\n").split(separator: Character("\r\n"), omittingEmptySubsequences: false) {
            // A line that starts with "." gets another, which the server removes: a line of
            // just "." would otherwise end the message there.
            if line.hasPrefix(".") { data.append(UInt8(ascii: ".")) }
            data += line.utf8
            data += [13, 10]
        }
        data += Array(".\r\n".utf8)
        self.sender = from
        self.recipient = recipient
        self.data = data
    }

    /// `From`'s value: the address, after the name if there is one.
    private static func mailbox(_ address: MailAddress, name: String?) -> String {
        guard let name, !name.isEmpty else { return "\(address)" }
        // A quoted string (RFC 5322 3.2.4) holds any printable ASCII once `"` and `\` are escaped.
        if EncodedWord.isPlain(name, maximumLength: 200) {
            let escaped = name.replacing("\\", with: "\\\\").replacing("\"", with: "\\\"")
            return "\"\(escaped)\" <\(address)>"
        }
        return "\(EncodedWord.encode(name, after: "From: ")) <\(address)>"
    }

    /// Unstructured header text: as it is if it fits one line of 78, else encoded-words, which
    /// fold to lines of at most 78; also for long ASCII, which saves folding it at spaces.
    private static func headerText(_ text: String, after name: String) -> String {
        EncodedWord.isPlain(text, maximumLength: EncodedWord.maximumLineLength - name.utf8.count)
            ? text : EncodedWord.encode(text, after: name)
    }
}
