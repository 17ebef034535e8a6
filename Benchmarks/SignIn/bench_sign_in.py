#!/usr/bin/env python3
# Sign-ins per second at a password-hash cost, measured against the server's own /health in the
# same run, and against what `nimbus auth hash-cost` says one hash costs a core.
#
# Starts `nimbus serve` (a release build) on a fresh data directory with
# NIMBUS_PASSWORD_HASH_COST=COST, signs a user up through /auth/1 (the code from the development
# mailer's log line), then drives it with wrk: GET /health, and POST /auth/1/.../signin with the
# right password. Prints one line per measurement and a JSON summary.
# With --enumeration it instead times failed sign-ins, alternating an address with an account
# (a wrong password) and addresses without one: their times should not tell them apart. Nine of
# each, the most the throttle allows one address in its window.
# Usage: Benchmarks/SignIn/bench_sign_in.py --nimbus PATH [--cost 16] [--duration 10] [--connections 8] [--enumeration]

import argparse
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

PASSWORD = "a benchmark password"
EMAIL = "bench@example.com"


class Server:
    def __init__(self, binary, data, cost):
        environment = dict(os.environ, NIMBUS_LOG_LEVEL="info", NIMBUS_PASSWORD_HASH_COST=str(cost))
        for name in ["NIMBUS_DATABASE_URL", "NIMBUS_PORT", "NIMBUS_HOSTNAME", "NIMBUS_PUBLIC_URL", "NIMBUS_SMTP_URL"]:
            environment.pop(name, None)
        self.process = subprocess.Popen(
            [binary, "serve", "--data", data, "--hostname", "127.0.0.1", "--port", "0"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment,
        )
        self.lines = []
        self.changed = threading.Condition()
        for stream in (self.process.stdout, self.process.stderr):
            threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream):
        for raw in iter(stream.readline, b""):
            with self.changed:
                self.lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
                self.changed.notify_all()

    def wait_for(self, pattern, seconds=60):
        deadline = time.monotonic() + seconds
        with self.changed:
            while True:
                for line in self.lines:
                    match = re.search(pattern, line)
                    if match:
                        return match
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self.process.poll() is not None:
                    raise SystemExit("the server never printed %r" % pattern)
                self.changed.wait(min(remaining, 0.5))

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(30)


def post(url, body):
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read())


def wrk(url, duration, connections, script=None):
    """Requests per second, and the count of non-2xx answers."""
    arguments = ["wrk", "-t2", "-c%d" % connections, "-d%ds" % duration]
    if script:
        arguments += ["-s", script]
    output = subprocess.run(arguments + [url], capture_output=True, text=True, check=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([0-9.]+)", output).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: ([0-9]+)", output)
    return rate, int(errors.group(1)) if errors else 0


def main():
    parser = argparse.ArgumentParser(description="Sign-ins per second at a password-hash cost.")
    parser.add_argument("--nimbus", required=True)
    parser.add_argument("--cost", type=int, default=16)
    parser.add_argument("--duration", type=int, default=10)
    parser.add_argument("--connections", type=int, default=8)
    parser.add_argument("--enumeration", action="store_true", help="time failed sign-ins: known against unknown addresses")
    options = parser.parse_args()
    work = tempfile.mkdtemp(prefix="nimbus-bench-sign-in-")
    server = Server(options.nimbus, os.path.join(work, "data"), options.cost)
    try:
        url = server.wait_for(r"nimbus\.url=(http://127\.0\.0\.1:[0-9]+).*Nimbus ready").group(1)
        container = server.wait_for(r"^export NIMBUS_CONTAINER='?([^']+)'?$").group(1)
        api_token = server.wait_for(r"^export NIMBUS_API_TOKEN='?([0-9a-f]{64})'?$").group(1)
        auth = "%s/auth/1/%s/development/%%s?ckAPIToken=%s" % (url, container, api_token)
        post(auth % "signup", {"email": EMAIL, "password": PASSWORD, "name": "Bench"})
        code = server.wait_for(r"nimbus\.address=%s subject=Your code: ([0-9]{6})" % re.escape(EMAIL)).group(1)
        post(auth % "verify", {"email": EMAIL, "code": code})
        if options.enumeration:
            timings = {"known": [], "unknown": []}
            for index in range(9):
                for kind, email in (("known", EMAIL), ("unknown", "nobody-%d@example.com" % index)):
                    request = urllib.request.Request(
                        auth % "signin", data=json.dumps({"email": email, "password": "a wrong password"}).encode(),
                        headers={"Content-Type": "application/json"}, method="POST",
                    )
                    started = time.perf_counter()
                    try:
                        urllib.request.urlopen(request).read()
                    except urllib.error.HTTPError as error:
                        error.read()
                        assert error.code == 401, error.code
                    timings[kind].append((time.perf_counter() - started) * 1000)
            for kind, values in timings.items():
                values.sort()
                print("%s address: median %.1f ms, min %.1f, max %.1f" % (kind, values[len(values) // 2], values[0], values[-1]))
            return
        script = os.path.join(work, "signin.lua")
        with open(script, "w") as lua:
            lua.write('wrk.method = "POST"\nwrk.headers["Content-Type"] = "application/json"\nwrk.body = %s\n'
                      % json.dumps(json.dumps({"email": EMAIL, "password": PASSWORD})))
        health, health_errors = wrk(url + "/health", options.duration, options.connections)
        print("health: %.0f requests/s (%d errors)" % (health, health_errors))
        sign_ins, sign_in_errors = wrk(auth % "signin", options.duration, options.connections, script)
        print("sign-in at cost %d: %.1f sign-ins/s (%d errors)" % (options.cost, sign_ins, sign_in_errors))
        hash_cost = json.loads(subprocess.run(
            [options.nimbus, "auth", "hash-cost", "--log-rounds", str(options.cost), "--count", "7", "--json"],
            capture_output=True, text=True, check=True,
        ).stdout)
        setting = hash_cost["settings"][0]
        bound = setting["hashesPerSecondPerCore"] * hash_cost["cores"]
        print("one hash: %.1f ms on one core; %d cores bound sign-ins at %.1f/s" % (setting["millisecondsPerHash"], hash_cost["cores"], bound))
        print(json.dumps({
            "cost": options.cost, "healthPerSecond": health, "signInsPerSecond": sign_ins, "signInErrors": sign_in_errors,
            "millisecondsPerHash": setting["millisecondsPerHash"], "hashBoundPerSecond": bound,
            "signInsOverHashBound": round(sign_ins / bound, 3), "signInsOverHealth": round(sign_ins / health, 5),
        }))
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
