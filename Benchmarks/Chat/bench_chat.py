#!/usr/bin/env python3
# From one person pressing send to the message showing on everyone else's screen, in a chat of
# 50 members: three people in real headless Chromium browsers running the chat app, the rest
# nimbus.js clients in Node doing what the app does (chat_members.mjs). Alice (in Node) sends
# the messages one at a time; each screen's time is when the message first shows, minus when
# Alice's send began, on this machine's one clock. Beside it, in the same run, the server's
# own delivery time: when each Node member's WebSocket received the notification.
# Prints JSON: p50 and p99 per kind of member, over all messages.
# Usage: Benchmarks/Chat/bench_chat.py --nimbus PATH [--members 50] [--messages 100]

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Tests", "Browser"))
from chat_flow import Person  # noqa: E402
from sign_in_flow import Process  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support import expected_conditions  # noqa: E402

# Each page notes when a message first shows, on the page's clock (the machine's).
OBSERVE = """
window.__shown = {};
new MutationObserver(() => {
  for (const item of document.querySelectorAll('li.message[data-message]')) {
    if (!(item.dataset.message in window.__shown)) window.__shown[item.dataset.message] = Date.now();
  }
}).observe(document.getElementById('messages'), {childList: true, subtree: true});
"""


def percentile(values, fraction):
    ordered = sorted(values)
    if not ordered:
        return None
    return ordered[min(len(ordered) - 1, int(round(fraction * (len(ordered) - 1))))]


def summary(values):
    return {"count": len(values), "p50 ms": percentile(values, 0.5), "p99 ms": percentile(values, 0.99), "max ms": max(values) if values else None}


class Members(Process):
    """chat_members.mjs, reading its JSON lines."""

    def events(self, kind, after=0):
        return [json.loads(line) for line in self.lines[after:] if line.startswith("{") and json.loads(line).get("event") == kind]

    def send(self, line):
        self.process.stdin.write((line + "\n").encode())
        self.process.stdin.flush()


def main():
    parser = argparse.ArgumentParser(description="Send-to-screen time in a 50-member chat.")
    parser.add_argument("--nimbus", required=True)
    parser.add_argument("--members", type=int, default=50)
    parser.add_argument("--messages", type=int, default=100)
    parser.add_argument("--browsers", type=int, default=3)
    options = parser.parse_args()
    work = tempfile.mkdtemp(prefix="nimbus-bench-chat-")
    data = os.path.join(work, "data")
    environment = dict(os.environ, NIMBUS_LOG_LEVEL="warning")
    for name in ["NIMBUS_DATABASE_URL", "NIMBUS_PORT", "NIMBUS_HOSTNAME", "NIMBUS_PUBLIC_URL"]:
        environment.pop(name, None)
    created = json.loads(subprocess.run(
        [options.nimbus, "container", "create", "iCloud.com.example.chat", "--data", data, "--json"], check=True, capture_output=True, env=environment,
    ).stdout)
    environment.update(NIMBUS_APPS_CONTAINER="iCloud.com.example.chat", NIMBUS_APPS_API_TOKEN=created["apiToken"], NIMBUS_LOG_LEVEL="info")
    server = Process([options.nimbus, "serve", "--data", data, "--hostname", "127.0.0.1", "--port", "0", "--apps", "chat"], environment)
    browsers = []
    members = None
    try:
        base = server.wait_for(r"nimbus\.url=(http://127\.0\.0\.1:[0-9]+).*Nimbus ready").group(1)
        node_members = options.members - 1 - options.browsers
        flags = ["--experimental-websocket"] if int(subprocess.run(["node", "-p", "process.versions.node.split('.')[0]"], capture_output=True, text=True).stdout) < 22 else []
        script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "chat_members.mjs")
        members = Members(
            ["node", *flags, script, base, "iCloud.com.example.chat", created["apiToken"], str(node_members), str(options.messages)],
            stdin=subprocess.PIPE,
        )
        members.wait_for(r'"event":"link"', seconds=60)
        link = members.events("link")[0]["shortGUID"]
        members.wait_for(r'"event":"ready"', seconds=300)
        for index in range(options.browsers):
            person = Person("Browser%d" % index, work, [0])
            browsers.append(person)
            person.driver.get("%s/apps/chat/?join=%s" % (base, link))
            person.sign_up()
            person.wait(expected_conditions.text_to_be_present_in_element((By.ID, "chat-title"), "Bench"), "in the chat")
            person.driver.execute_script(OBSERVE)
        members.send("go")
        for index in range(options.messages):
            name = "m%d" % index
            members.wait_for(r'"event":"sent","message":"%s",' % name, seconds=60)
            for person in browsers:
                person.wait(lambda driver: driver.execute_script("return arguments[0] in window.__shown", name), "message %s shown" % name)
            members.send("next")
        members.wait_for(r'"event":"done"', seconds=120)
        done = members.events("done")[0]
        sent_at = {entry["message"]: entry["at"] for entry in done["sent"]}
        acknowledged = [entry["acknowledged"] - entry["at"] for entry in done["sent"]]
        node_shown = [e["shown"] - sent_at[e["message"]] for e in done["seen"] if e.get("shown") and e["message"] in sent_at]
        node_notified = [e["notified"] - sent_at[e["message"]] for e in done["seen"] if e.get("notified") and e["message"] in sent_at]
        browser_shown = []
        for person in browsers:
            shown = person.driver.execute_script("return window.__shown")
            browser_shown += [shown[name] - at for name, at in sent_at.items() if name in shown]
        result = {
            "members": options.members,
            "messages": options.messages,
            "the send's own answer (records/modify)": summary(acknowledged),
            "server: notification on the WebSocket": summary(node_notified),
            "on screen: nimbus.js members in Node": summary(node_shown),
            "on screen: the app in Chromium": summary(browser_shown),
        }
        print(json.dumps(result, indent=2), flush=True)
    finally:
        for person in browsers:
            person.quit()
        if members:
            members.stop()
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
