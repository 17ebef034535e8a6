#!/usr/bin/env python3
# The console's data page over a large public database: how long the server takes to render a
# page of records of a type with 1,000,000 of them, beside its own /health in the same run.
#
# Starts `nimbus serve` (a release build) on a fresh data directory, saves the records through
# the API (`records/modify`, 200 a request, as the development user its first start prints),
# adds an operator with `nimbus operator add`, sets the password through the set-up page, and
# then asks for the data pages with the console session. Server times come from the access log
# (`duration_ms`, from the request's arrival to its answer); client times from Python's clock.
# Prints one line per measurement and a JSON summary.
# Usage: Benchmarks/Console/bench_console_data.py --nimbus PATH [--records 1000000] [--repeat 30]

import argparse
import http.client
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse


class Server:
    def __init__(self, binary, data):
        environment = dict(os.environ, NIMBUS_LOG_LEVEL="info", NIMBUS_PASSWORD_HASH_COST="10")
        for name in ["NIMBUS_DATABASE_URL", "NIMBUS_PORT", "NIMBUS_HOSTNAME", "NIMBUS_PUBLIC_URL", "NIMBUS_ACCESS_LOG"]:
            environment.pop(name, None)
        self.process = subprocess.Popen(
            [binary, "serve", "--data", data, "--hostname", "127.0.0.1", "--port", "0"],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=environment,
        )
        self.lines = []
        self.changed = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in iter(self.process.stdout.readline, b""):
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

    def durations(self, route, since):
        """Server times (ms) of the access log lines from line `since` on whose route is `route`."""
        with self.changed:
            lines = self.lines[since:]
        found = []
        for line in lines:
            if "nimbus.route=%s " % route in line:
                match = re.search(r"nimbus\.duration_ms=([0-9.]+)", line)
                if match:
                    found.append(float(match.group(1)))
        return found

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(30)


def request(connection, method, path, body=None, headers=None):
    connection.request(method, path, body=body, headers=headers or {})
    response = connection.getresponse()
    return response.status, response.getheaders(), response.read()


def main():
    parser = argparse.ArgumentParser(description="The console's data page over a large public database.")
    parser.add_argument("--nimbus", required=True)
    parser.add_argument("--records", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=30)
    options = parser.parse_args()
    work = tempfile.mkdtemp(prefix="nimbus-console-bench-")
    data = os.path.join(work, "data")
    server = Server(options.nimbus, data)
    try:
        url = server.wait_for(r"nimbus\.url=(http://127\.0\.0\.1:[0-9]+).*Nimbus ready").group(1)
        container = server.wait_for(r"export NIMBUS_CONTAINER=(\S+)").group(1)
        api_token = server.wait_for(r"export NIMBUS_API_TOKEN=(\S+)").group(1)
        web_token = server.wait_for(r"export NIMBUS_WEB_AUTH_TOKEN='([^']+)'").group(1)
        host, port = urllib.parse.urlparse(url).hostname, urllib.parse.urlparse(url).port
        database = "/database/1/%s/development/public" % container
        auth = "ckAPIToken=%s&ckWebAuthToken=%s" % (api_token, urllib.parse.quote(web_token, safe=""))

        # The records, through the API, from two connections at once.
        started = time.monotonic()
        batches = list(range(0, options.records, 200))
        failures = []

        def save(part):
            connection = http.client.HTTPConnection(host, port)
            for start in batches[part::2]:
                operations = [
                    {"operationType": "create", "record": {"recordName": "item-%07d" % index, "recordType": "Item",
                     "fields": {"title": {"value": "Item %d" % index}, "n": {"value": index}}}}
                    for index in range(start, min(start + 200, options.records))
                ]
                status, _, body = request(connection, "POST", "%s/records/modify?%s" % (database, auth),
                                          json.dumps({"operations": operations}), {"Content-Type": "application/json"})
                if status != 200 or b"serverErrorCode" in body:
                    failures.append((status, body[:200]))
                    return
        threads = [threading.Thread(target=save, args=(part,)) for part in range(2)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if failures:
            raise SystemExit("saving failed: %r" % failures[:1])
        print("saved %d records in %.1f s" % (options.records, time.monotonic() - started), flush=True)

        # An operator and a console session.
        added = json.loads(subprocess.run(
            [options.nimbus, "operator", "add", "bench@example.com", "--url", url, "--data", data, "--json"],
            check=True, capture_output=True,
        ).stdout)
        setup = urllib.parse.urlparse(added["setupLink"]).path
        connection = http.client.HTTPConnection(host, port)
        status, headers, body = request(connection, "GET", setup)
        form_cookie = re.search(r"(nimbus_console_form=[0-9a-f]+)", {key.lower(): value for key, value in headers}["set-cookie"]).group(1)
        csrf = re.search(rb'name="csrf" value="([0-9a-f]+)"', body).group(1).decode()
        status, headers, _ = request(connection, "POST", setup, "csrf=%s&password=a+benchmark+password" % csrf,
                                     {"Content-Type": "application/x-www-form-urlencoded", "Cookie": form_cookie})
        session = re.search(r"(nimbus_console=[0-9a-f]{64})", {key.lower(): value for key, value in headers}["set-cookie"]).group(1)

        data_path = "/console/containers/%s/development/data" % container
        pages = [
            ("first page", data_path + "?type=Item"),
            ("filter and sort", data_path + "?type=Item&filter=n+%%3E%%3D+%d&sort=n" % (options.records * 9 // 10)),
            ("last records, descending", data_path + "?type=Item&sort=n&descending=1"),
            ("one record", data_path + "/records/item-%07d" % (options.records * 2 // 3)),
        ]
        routes = {
            "first page": "/console/containers/{container}/{environment}/data",
            "filter and sort": "/console/containers/{container}/{environment}/data",
            "last records, descending": "/console/containers/{container}/{environment}/data",
            "one record": "/console/containers/{container}/{environment}/data/records/{record}",
        }
        results = {}
        for name, path in [("health", "/health")] + pages:
            since = len(server.lines)
            client = []
            for _ in range(options.repeat):
                begin = time.perf_counter()
                status, _, body = request(connection, "GET", path, headers={"Cookie": session})
                client.append((time.perf_counter() - begin) * 1000)
                if status != 200:
                    raise SystemExit("%s answered %d: %s" % (name, status, body[:300]))
            if name != "health" and b"<tr><td><a" not in body and name != "one record":
                raise SystemExit("%s shows no records" % name)
            route = "/health" if name == "health" else routes[name]
            deadline = time.monotonic() + 10
            server_times = server.durations(route, since)
            while len(server_times) < options.repeat and time.monotonic() < deadline:
                time.sleep(0.05)
                server_times = server.durations(route, since)
            results[name] = {
                "server_p50_ms": statistics.median(server_times),
                "server_p90_ms": sorted(server_times)[int(len(server_times) * 0.9) - 1],
                "client_p50_ms": statistics.median(client),
            }
            print("%-26s server p50 %7.2f ms  p90 %7.2f ms  client p50 %7.2f ms" % (
                name, results[name]["server_p50_ms"], results[name]["server_p90_ms"], results[name]["client_p50_ms"]), flush=True)
        # The reference: the same server's /health over the same connection, client-side (the
        # access log's time for /health is the router's alone, a few microseconds).
        health = results["health"]["client_p50_ms"]
        for name, _ in pages:
            results[name]["client_ratio_to_health"] = results[name]["client_p50_ms"] / health
        print(json.dumps({"records": options.records, "results": results}, indent=1))
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
