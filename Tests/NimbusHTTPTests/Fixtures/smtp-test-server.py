#!/usr/bin/env python3
# This source file is part of the Nimbus open source project
# Copyright (c) 2026 the Nimbus project authors
# SPDX-License-Identifier: Apache-2.0
"""A real SMTP server for SMTPMailerTests, built on aiosmtpd.

It listens on 127.0.0.1 on a port the system picks and writes one JSON object a line to
standard output, flushed at once: first {"event": "ready", "port": N}, then one line for each
connection, EHLO/HELO, AUTH attempt and message. A message's line is written before the server
answers 250 to the end of DATA, so once a client has its 250 the line is there to read.

Options:
  --auth USER:PASSWORD    require AUTH with these credentials (PLAIN and LOGIN are offered)
  --mechanisms PLAIN,...  offer only these AUTH mechanisms
  --starttls CERT KEY     offer STARTTLS with this certificate, and require it
  --tls CERT KEY          TLS from the first byte (implicit TLS, as on port 465)
  --refuse ADDRESS        answer 550 to RCPT TO this address (repeatable)
  --no-ehlo               answer 502 to EHLO, as a server that only knows HELO
  --silent                accept connections and never say anything
  --turn-away             greet each connection with 554 and close it
  --inject                offer STARTTLS, and send a forged reply right behind its go-ahead,
                          unencrypted, as someone on the path would (CVE-2011-0411)
"""

import argparse
import asyncio
import email
import email.policy
import json
import logging
import ssl
import sys
import warnings

from aiosmtpd.smtp import SMTP, AuthResult


# aiosmtpd warns that AUTH without TLS is unsafe: on loopback, in a test, it is what is wanted.
warnings.simplefilter("ignore")
logging.getLogger("mail.log").setLevel(logging.CRITICAL)


def emit(**event):
    print(json.dumps(event), flush=True)


class Handler:
    def __init__(self, refused):
        self.refused = set(refused)

    async def handle_EHLO(self, server, session, envelope, hostname, responses):
        session.host_name = hostname
        emit(event="ehlo", hostname=hostname, tls=server.is_tls())
        return responses

    async def handle_HELO(self, server, session, envelope, hostname):
        session.host_name = hostname
        emit(event="helo", hostname=hostname, tls=server.is_tls())
        return "250 {}".format(server.hostname)

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address in self.refused:
            return "550 5.1.1 <{}>: no such user here".format(address)
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        raw = envelope.content
        message = email.message_from_bytes(raw, policy=email.policy.default)
        emit(
            event="message",
            mail_from=envelope.mail_from,
            rcpt_tos=envelope.rcpt_tos,
            raw=raw.decode("latin-1"),
            headers={name: str(value) for name, value in message.items()},
            body=message.get_content().replace("\r\n", "\n"),
            tls=server.is_tls(),
            authenticated=bool(session.authenticated),
        )
        return "250 2.0.0 Message accepted"


class RecordingSMTP(SMTP):
    def __init__(self, *args, no_ehlo=False, implicit_tls=False, **kwargs):
        super().__init__(*args, **kwargs)
        self.no_ehlo = no_ehlo
        self.implicit_tls = implicit_tls

    def is_tls(self):
        return self.implicit_tls or self._tls_protocol is not None

    def connection_made(self, transport):
        # aiosmtpd calls this again for the TLS transport after STARTTLS: count connections once.
        if self.transport is None:
            emit(event="connect")
        super().connection_made(transport)

    async def smtp_EHLO(self, hostname):
        if self.no_ehlo:
            await self.push("502 5.5.2 EHLO not supported")
            return
        await super().smtp_EHLO(hostname)


def tls_context(cert, key):
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    return context


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--auth")
    parser.add_argument("--mechanisms")
    parser.add_argument("--starttls", nargs=2)
    parser.add_argument("--tls", nargs=2)
    parser.add_argument("--refuse", action="append", default=[])
    parser.add_argument("--no-ehlo", action="store_true")
    parser.add_argument("--silent", action="store_true")
    parser.add_argument("--turn-away", action="store_true")
    parser.add_argument("--inject", action="store_true")
    options = parser.parse_args()
    loop = asyncio.get_running_loop()

    if options.silent:
        async def never_answer(reader, writer):
            emit(event="connect")
            await reader.read()
        server = await asyncio.start_server(never_answer, "127.0.0.1", 0)
    elif options.turn_away:
        async def turn_away(reader, writer):
            emit(event="connect")
            writer.write(b"554 5.3.2 smtp.test is not taking mail now\r\n")
            await writer.drain()
            writer.close()
        server = await asyncio.start_server(turn_away, "127.0.0.1", 0)
    elif options.inject:
        async def inject(reader, writer):
            emit(event="connect")
            writer.write(b"220 smtp.test ESMTP\r\n")
            while line := await reader.readline():
                command = line.decode("latin-1").strip().upper()
                emit(event="command", command=command)
                if command.startswith("EHLO"):
                    writer.write(b"250-smtp.test\r\n250 STARTTLS\r\n")
                elif command == "STARTTLS":
                    writer.write(b"220 Go ahead\r\n250-smtp.test\r\n250 AUTH PLAIN\r\n")
                else:
                    writer.write(b"500 5.5.1 not here\r\n")
                await writer.drain()
            writer.close()
        server = await asyncio.start_server(inject, "127.0.0.1", 0)
    else:
        kwargs = {"hostname": "smtp.test", "loop": loop}
        if options.auth:
            user, password = options.auth.split(":", 1)

            def authenticator(server, session, envelope, mechanism, auth_data):
                success = auth_data.login == user.encode() and auth_data.password == password.encode()
                emit(event="auth", mechanism=mechanism, login=auth_data.login.decode(), success=success, tls=server.is_tls())
                return AuthResult(success=success, handled=False)

            kwargs.update(authenticator=authenticator, auth_required=True, auth_require_tls=False)
            if options.mechanisms:
                offered = set(options.mechanisms.split(","))
                kwargs["auth_exclude_mechanism"] = [m for m in ("PLAIN", "LOGIN") if m not in offered]
        if options.starttls:
            kwargs.update(tls_context=tls_context(*options.starttls), require_starttls=True)
        implicit = tls_context(*options.tls) if options.tls else None
        handler = Handler(options.refuse)
        server = await loop.create_server(
            lambda: RecordingSMTP(handler, no_ehlo=options.no_ehlo, implicit_tls=implicit is not None, **kwargs),
            host="127.0.0.1",
            port=0,
            ssl=implicit,
        )
    emit(event="ready", port=server.sockets[0].getsockname()[1])
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(0)
