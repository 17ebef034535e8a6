#!/usr/bin/env python3
# Asset throughput against the raw disk, measured in the same run on the same file system:
# uploads (encryption, the flush and the rename included) against writing the same bytes to a
# file and flushing it; downloads (decryption included) against reading that file back. Also a
# 100 KB picture's upload-and-save time, and the server's memory while twenty 50 MB uploads run
# at once.
#
# Starts `nimbus serve` (a release build) on a fresh data directory, uses the development
# container and user its first start prints, and talks to it over HTTP with Python's own client.
# Prints one line per measurement and a JSON summary.
# Usage: Benchmarks/Assets/bench_assets.py --nimbus PATH [--repeat 5]

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

MB = 1_000_000


class Server:
    def __init__(self, binary, data):
        environment = dict(os.environ, NIMBUS_LOG_LEVEL="info", NIMBUS_ASSET_MAX_BYTES=str(60 * MB))
        for name in ["NIMBUS_DATABASE_URL", "NIMBUS_PORT", "NIMBUS_HOSTNAME", "NIMBUS_PUBLIC_URL", "NIMBUS_S3_BUCKET"]:
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

    def rss_mb(self):
        with open("/proc/%d/status" % self.process.pid) as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(30)


class Client:
    def __init__(self, url, container, api_token, web_token):
        parsed = urllib.parse.urlparse(url)
        self.host, self.port = parsed.hostname, parsed.port
        self.base = "/database/1/%s/development/private/" % container
        self.query = "?ckAPIToken=%s&ckWebAuthToken=%s" % (api_token, urllib.parse.quote(web_token, safe=""))
        self.local = threading.local()

    def request(self, method, path, body=b"", headers=None):
        # One kept-alive connection per thread, as clients keep theirs (URLSession, fetch):
        # a new connection per request would time TCP's handshake and the server's new
        # channel with every upload, which the raw write it is compared with does not pay.
        connection = getattr(self.local, "connection", None)
        if connection is None:
            connection = self.local.connection = http.client.HTTPConnection(self.host, self.port, timeout=300)
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        data = response.read()
        if response.status >= 300:
            raise SystemExit("%s %s answered %d: %s" % (method, path, response.status, data[:300]))
        return data

    def operation(self, name, body):
        return json.loads(self.request("POST", self.base + name + self.query, json.dumps(body).encode(), {"Content-Type": "application/json"}))

    def upload_path(self, record):
        answer = self.operation("assets/upload", {"tokens": [{"recordName": record, "recordType": "Photo", "fieldName": "image"}]})
        return urllib.parse.urlparse(answer["tokens"][0]["url"]).path

    def upload(self, path, data):
        answer = json.loads(self.request("POST", path, data, {"Content-Type": "image/jpeg", "Content-Length": str(len(data))}))
        return answer["singleFile"]

    def save(self, record, single_file):
        answer = self.operation("records/modify", {"operations": [{"operationType": "create", "record": {
            "recordName": record, "recordType": "Photo", "fields": {"image": {"value": single_file}}}}]})
        return answer["records"][0]

    def download(self, record):
        saved = record["fields"]["image"]["value"]
        path = urllib.parse.urlparse(saved["downloadURL"]).path.replace("$%7Bf%7D", "f").replace("${f}", "f")
        return self.request("GET", path)


def raw_disk(directory, data):
    """Seconds to write `data` to a new file and flush it, and to read it back."""
    path = os.path.join(directory, "raw-disk-probe")
    start = time.perf_counter()
    with open(path, "wb") as file:
        file.write(data)
        file.flush()
        os.fsync(file.fileno())
    descriptor = os.open(directory, os.O_RDONLY)
    os.fsync(descriptor)
    os.close(descriptor)
    written = time.perf_counter() - start
    start = time.perf_counter()
    with open(path, "rb") as file:
        while file.read(1 << 20):
            pass
    read = time.perf_counter() - start
    os.unlink(path)
    return written, read


def main():
    parser = argparse.ArgumentParser(description="Asset throughput against the raw disk.")
    parser.add_argument("--nimbus", required=True)
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()
    work = tempfile.mkdtemp(prefix="nimbus-bench-assets-")
    server = Server(options.nimbus, os.path.join(work, "data"))
    summary = {}
    try:
        url = server.wait_for(r"nimbus\.url=(http://127\.0\.0\.1:[0-9]+).*Nimbus ready").group(1)
        container = server.wait_for(r"^export NIMBUS_CONTAINER='?([^']+)'?$").group(1)
        api_token = server.wait_for(r"^export NIMBUS_API_TOKEN='?([0-9a-f]{64})'?$").group(1)
        web_token = server.wait_for(r"^export NIMBUS_WEB_AUTH_TOKEN='?([^']+)'?$").group(1)
        client = Client(url, container, api_token, web_token)
        data_dir = os.path.join(work, "data")
        for size in [1 * MB, 50 * MB]:
            data = os.urandom(size)
            raw_write, raw_read, uploads, downloads = [], [], [], []
            for index in range(options.repeat):
                written, read = raw_disk(data_dir, data)
                raw_write.append(written)
                raw_read.append(read)
                record = "r%d-%d" % (size, index)
                path = client.upload_path(record)
                start = time.perf_counter()
                single = client.upload(path, data)
                uploads.append(time.perf_counter() - start)
                saved = client.save(record, single)
                start = time.perf_counter()
                body = client.download(saved)
                downloads.append(time.perf_counter() - start)
                assert body == data, "the download differs from the upload"
            label = "%d MB" % (size // MB)
            rates = {
                "raw write MB/s": size / MB / statistics.median(raw_write),
                "upload MB/s": size / MB / statistics.median(uploads),
                "raw read MB/s": size / MB / statistics.median(raw_read),
                "download MB/s": size / MB / statistics.median(downloads),
            }
            rates["upload / raw write"] = rates["upload MB/s"] / rates["raw write MB/s"]
            rates["download / raw read"] = rates["download MB/s"] / rates["raw read MB/s"]
            summary[label] = {key: round(value, 3) for key, value in rates.items()}
            print("%s: %s" % (label, json.dumps(summary[label])), flush=True)

        picture = os.urandom(100_000)
        times = []
        for index in range(50):
            start = time.perf_counter()
            record = "picture-%d" % index
            client.save(record, client.upload(client.upload_path(record), picture))
            times.append(time.perf_counter() - start)
        summary["100 KB upload and save p50 ms"] = round(statistics.median(times) * 1000, 2)
        print("100 KB picture, upload and save: p50 %.2f ms" % summary["100 KB upload and save p50 ms"], flush=True)

        big = os.urandom(50 * MB)
        paths = [client.upload_path("concurrent-%d" % index) for index in range(20)]
        before = server.rss_mb()
        peak = [before]
        done = threading.Event()

        def sample():
            while not done.is_set():
                peak[0] = max(peak[0], server.rss_mb())
                time.sleep(0.02)

        sampler = threading.Thread(target=sample)
        sampler.start()
        uploaded = []

        def upload(path):
            try:
                uploaded.append(client.upload(path, big)["size"])
            except SystemExit as failure:
                print("a concurrent upload failed: %s" % failure, file=sys.stderr)

        threads = [threading.Thread(target=upload, args=(path,)) for path in paths]
        start = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - start
        done.set()
        sampler.join()
        if len(uploaded) != 20 or any(size != len(big) for size in uploaded):
            raise SystemExit("only %d of the 20 concurrent uploads succeeded" % len(uploaded))
        summary["20 x 50 MB concurrent uploads"] = {
            "seconds": round(elapsed, 2), "MB/s": round(20 * len(big) / MB / elapsed, 1), "rss before MB": round(before, 1), "rss peak MB": round(peak[0], 1),
            "rss growth MB": round(peak[0] - before, 1),
        }
        print("20 concurrent 50 MB uploads: %s" % json.dumps(summary["20 x 50 MB concurrent uploads"]), flush=True)
        print(json.dumps(summary, indent=2))
        return 0
    finally:
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
