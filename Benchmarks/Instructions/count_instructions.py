#!/usr/bin/env python3
# Instructions per request, counted by valgrind's callgrind on `nimbus serve` (a release build):
# a figure that does not move with this machine's noise, unlike requests per second. For each
# scenario the script zeroes the counters, turns collection on, sends a fixed number of
# requests one after another over one kept-alive connection, turns collection off and dumps;
# the dump's total divided by the requests is the scenario's cost. The server's background
# work in those windows (the notification dispatcher's wake-ups) is counted too: it is small
# against hundreds of requests, and the same for every scenario.
#
# Scenarios, the same requests as nimbus-load's: GET /health; an authenticated users/current
# (the API token and web auth token checked, a user read); records/modify with one record
# (two fields, as nimbus-load's save1) into the user's private zone; records/lookup of one
# record. The store is SQLite in a fresh data directory.
#
# Usage: Benchmarks/Instructions/count_instructions.py --nimbus PATH [--requests 400]
#        [--annotate save1]   (also prints callgrind_annotate's top functions for a scenario)

import argparse
import glob
import http.client
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
import urllib.parse


class Server:
    """`nimbus serve` under callgrind, collecting nothing until told to."""

    def __init__(self, binary, work):
        self.work = work
        environment = dict(os.environ, NIMBUS_LOG_LEVEL="notice")
        for name in ["NIMBUS_DATABASE_URL", "NIMBUS_PORT", "NIMBUS_HOSTNAME", "NIMBUS_PUBLIC_URL", "NIMBUS_S3_BUCKET", "NIMBUS_CONFIG_FILE"]:
            environment.pop(name, None)
        command = [
            "valgrind", "--tool=callgrind", "--collect-atstart=no", "--dump-instr=no",
            "--callgrind-out-file=" + os.path.join(work, "callgrind.out.%p"),
            binary, "serve", "--data", os.path.join(work, "data"), "--hostname", "127.0.0.1", "--port", "0",
        ]
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=environment)
        self.lines = []
        self.changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in iter(self.process.stdout.readline, b""):
            with self.changed:
                self.lines.append(raw.decode("utf-8", "replace").rstrip("\n"))
                self.changed.notify_all()

    def wait_for(self, pattern, seconds=300):
        deadline = time.monotonic() + seconds
        with self.changed:
            while True:
                for line in self.lines:
                    match = re.search(pattern, line)
                    if match:
                        return match
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self.process.poll() is not None:
                    raise SystemExit("the server never printed %r:\n%s" % (pattern, "\n".join(self.lines[-20:])))
                self.changed.wait(remaining)

    def control(self, *arguments):
        subprocess.run(["callgrind_control", *arguments, str(self.process.pid)], check=True, stdout=subprocess.DEVNULL)

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.process.kill()


def total_instructions(path):
    with open(path) as dump:
        for line in dump:
            if line.startswith("summary:") or line.startswith("totals:"):
                return int(line.split()[1])
    raise SystemExit("no total in %s" % path)


def main():
    parser = argparse.ArgumentParser(description="Instructions per request, by callgrind.")
    parser.add_argument("--nimbus", required=True)
    parser.add_argument("--requests", type=int, default=400)
    parser.add_argument("--annotate", action="append", default=[])
    options = parser.parse_args()
    work = tempfile.mkdtemp(prefix="nimbus-instructions-")
    server = Server(options.nimbus, work)
    try:
        url = server.wait_for(r"nimbus\.url=(http://127\.0\.0\.1:[0-9]+).*Nimbus ready").group(1)
        container = server.wait_for(r"^export NIMBUS_CONTAINER='?([^']+)'?$").group(1)
        api_token = server.wait_for(r"^export NIMBUS_API_TOKEN='?([0-9a-f]{64})'?$").group(1)
        web_token = server.wait_for(r"^export NIMBUS_WEB_AUTH_TOKEN='?([^']+)'?$").group(1)
        parsed = urllib.parse.urlparse(url)
        connection = http.client.HTTPConnection(parsed.hostname, parsed.port, timeout=600)
        query = "ckAPIToken=%s&ckWebAuthToken=%s" % (api_token, urllib.parse.quote(web_token, safe=""))
        database = "/database/1/%s/development" % container

        def send(method, path, body=None):
            headers = {"Content-Type": "application/json"} if body is not None else {}
            connection.request(method, path, body=body.encode() if body is not None else None, headers=headers)
            response = connection.getresponse()
            payload = response.read()
            if response.status != 200:
                raise SystemExit("%s %s answered %d: %s" % (method, path, response.status, payload[:300]))
            return payload

        counter = [0]

        def save():
            counter[0] += 1
            record = {"recordName": "n-%d" % counter[0], "recordType": "Note",
                      "fields": {"title": {"value": "load %d" % counter[0]}, "count": {"value": counter[0]}}}
            send("POST", "%s/private/records/modify?%s" % (database, query),
                 json.dumps({"zoneID": {"zoneName": "Seed"}, "operations": [{"operationType": "create", "record": record}]}))

        send("POST", "%s/private/zones/modify?%s" % (database, query),
             json.dumps({"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": "Seed"}}}]}))
        for _ in range(50):
            save()
        scenarios = [
            ("health", lambda index: send("GET", "/health")),
            ("current", lambda index: send("GET", "%s/public/users/current?%s" % (database, query))),
            ("save1", lambda index: save()),
            ("lookup", lambda index: send("POST", "%s/private/records/lookup?%s" % (database, query),
                                          json.dumps({"zoneID": {"zoneName": "Seed"}, "records": [{"recordName": "n-%d" % (1 + index % 50)}]}))),
        ]
        results = {}
        for name, request in scenarios:
            for index in range(20):  # warm the caches and the code paths first
                request(index)
            server.control("-z")
            server.control("-i", "on")
            for index in range(options.requests):
                request(index)
            server.control("-i", "off")
            before = set(glob.glob(os.path.join(work, "callgrind.out.*")))
            server.control("-d", name)
            deadline = time.monotonic() + 60
            dumps = []
            while not dumps and time.monotonic() < deadline:
                dumps = sorted(set(glob.glob(os.path.join(work, "callgrind.out.*"))) - before)
                time.sleep(0.2)
            if not dumps:
                raise SystemExit("callgrind wrote no dump for %s" % name)
            time.sleep(0.5)
            results[name] = total_instructions(dumps[-1]) / options.requests
            print("%-8s %12.0f instructions per request" % (name, results[name]), flush=True)
            if name in options.annotate:
                annotated = subprocess.run(["callgrind_annotate", "--inclusive=yes", dumps[-1]], capture_output=True, text=True).stdout
                print("\n".join(annotated.splitlines()[:60]), flush=True)
        results["save1 / current"] = round(results["save1"] / results["current"], 2)
        results["save1 / health"] = round(results["save1"] / results["health"], 2)
        results["lookup / current"] = round(results["lookup"] / results["current"], 2)
        print(json.dumps({key: round(value, 2) for key, value in results.items()}, indent=2))
        return 0
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
