# An OpenID Connect provider for the browser tests, on loopback: discovery, JWKS, an
# authorization endpoint that shows a consent page (the person clicks "Approve"), and a token
# endpoint that checks the code, the client secret and PKCE's verifier before it answers with
# an RS256 ID token. Standard library and `cryptography` (from the Python package index).

import base64
import hashlib
import html
import http.server
import json
import secrets
import socketserver
import threading
import time
import urllib.parse

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def integer(value):
    return b64url(value.to_bytes((value.bit_length() + 7) // 8, "big"))


class Issuer:
    def __init__(self, client_id, client_secret, subject, name):
        self.client_id = client_id
        self.client_secret = client_secret
        self.subject = subject
        self.name = name
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.codes = {}
        issuer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *arguments):
                pass

            def answer(self, status, body, content_type="application/json", headers=()):
                data = body.encode() if isinstance(body, str) else body
                self.send_response(status)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(data)))
                for name, value in headers:
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                path, _, query = self.path.partition("?")
                if path == "/.well-known/openid-configuration":
                    self.answer(200, json.dumps({
                        "issuer": issuer.url, "jwks_uri": issuer.url + "/jwks", "authorization_endpoint": issuer.url + "/authorize",
                        "token_endpoint": issuer.url + "/token",
                    }))
                elif path == "/jwks":
                    numbers = issuer.key.public_key().public_numbers()
                    self.answer(200, json.dumps({"keys": [
                        {"kty": "RSA", "kid": "browser-key", "alg": "RS256", "use": "sig", "n": integer(numbers.n), "e": integer(numbers.e)},
                    ]}))
                elif path == "/authorize":
                    fields = dict(urllib.parse.parse_qsl(query))
                    hidden = "".join(
                        '<input type="hidden" name="%s" value="%s">' % (html.escape(name), html.escape(value)) for name, value in fields.items()
                    )
                    self.answer(200, '<!doctype html><html><body><h1>Test provider</h1><p>Sign in to the app as %s?</p>'
                                '<form method="post" action="/approve">%s<button id="approve">Approve</button></form></body></html>'
                                % (html.escape(issuer.name), hidden), "text/html")
                else:
                    self.answer(404, "{}")

            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                fields = dict(urllib.parse.parse_qsl(self.rfile.read(length).decode()))
                if self.path == "/approve":
                    code = secrets.token_urlsafe(16)
                    issuer.codes[code] = fields
                    location = fields["redirect_uri"] + "?" + urllib.parse.urlencode({"code": code, "state": fields.get("state", "")})
                    self.answer(302, "", "text/plain", [("Location", location)])
                elif self.path == "/token":
                    request = issuer.codes.pop(fields.get("code", ""), None)
                    verifier = fields.get("code_verifier", "")
                    if (request is None or fields.get("client_id") != issuer.client_id or fields.get("client_secret") != issuer.client_secret
                            or fields.get("redirect_uri") != request["redirect_uri"]
                            or b64url(hashlib.sha256(verifier.encode()).digest()) != request["code_challenge"]):
                        self.answer(400, json.dumps({"error": "invalid_grant"}))
                        return
                    now = int(time.time())
                    claims = {"iss": issuer.url, "sub": issuer.subject, "aud": issuer.client_id, "iat": now, "exp": now + 600,
                              "nonce": request.get("nonce"), "name": issuer.name}
                    self.answer(200, json.dumps({"id_token": issuer.sign(claims), "token_type": "Bearer", "access_token": "unused"}))
                else:
                    self.answer(404, "{}")

        self.server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def sign(self, claims):
        header = b64url(json.dumps({"alg": "RS256", "kid": "browser-key", "typ": "JWT"}).encode())
        payload = b64url(json.dumps(claims).encode())
        signature = self.key.sign((header + "." + payload).encode(), padding.PKCS1v15(), hashes.SHA256())
        return header + "." + payload + "." + b64url(signature)

    def stop(self):
        self.server.shutdown()
