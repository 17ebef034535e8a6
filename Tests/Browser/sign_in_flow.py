#!/usr/bin/env python3
# The browser sign-in flow in a real headless Chromium: an app on one loopback port sends a
# person to Nimbus's sign-in page on another; they sign up (reading the code Nimbus mails to a
# real SMTP server on loopback, the suite's aiosmtpd one), come back to the app's callback with the
# token, and the app makes a signed-in request with it. Then the same person signs in through a
# popup that posts the token to the app's window, and a third time with an OpenID Connect
# provider (oidc_issuer.py: a consent page, then the code flow with PKCE back to Nimbus and on to
# the app). Between them, `nimbus login --browser` signs the CLI in through the same page, and an
# operator's `nimbus user delete` ends that session. Screenshots of each step go to the artefacts
# directory. Needs Debian's chromium and chromium-driver and selenium (scripts/browser-test
# installs them). Exits non-zero on any failure.
# Usage: Tests/Browser/sign_in_flow.py --nimbus PATH --artefacts DIR

import argparse
import http.server
import json
import os
import re
import shutil
import signal
import socketserver
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from oidc_issuer import Issuer
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

WAIT_SECONDS = 20
PASSWORD = "a long browser password"


class Process:
    """A child process whose output lines are kept, for waiting on what it prints."""

    def __init__(self, arguments, environment=None, stdin=subprocess.DEVNULL):
        self.process = subprocess.Popen(
            arguments, stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment,
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

    def wait_for(self, pattern, seconds=WAIT_SECONDS, after=0):
        """The first match of `pattern` in the output from line `after` on, waiting for it to come."""
        deadline = time.monotonic() + seconds
        with self.changed:
            while True:
                for line in self.lines[after:]:
                    match = re.search(pattern, line)
                    if match:
                        return match
                remaining = deadline - time.monotonic()
                if remaining <= 0 or self.process.poll() is not None:
                    raise AssertionError("never printed %r; the output ends:\n%s" % (pattern, "\n".join(self.lines[-20:])))
                self.changed.wait(min(remaining, 0.5))

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


class MailServer(Process):
    """The suite's SMTP server (aiosmtpd) on loopback; each message it receives is a JSON line."""

    def __init__(self):
        script = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "NimbusHTTPTests", "Fixtures", "smtp-test-server.py")
        super().__init__([sys.executable, script])
        self.port = int(self.wait_for(r'"event": "ready", "port": ([0-9]+)').group(1))

    def code_for(self, email):
        """The code in the next message to `email` (after those already read)."""
        start = getattr(self, "read_through", 0)
        match = self.wait_for(r'"event": "message".*"rcpt_tos": \["%s"\]' % re.escape(email), after=start)
        for index in range(start, len(self.lines)):
            if match.group(0) in self.lines[index]:
                self.read_through = index + 1
                message = json.loads(self.lines[index])
                return re.search(r"is ([0-9]{6})\.", message["body"]).group(1)
        raise AssertionError("no message to %s" % email)


class NimbusServer(Process):
    """`nimbus serve` on a fresh data directory, mailing through `smtp_url`."""

    def __init__(self, binary, data, smtp_url):
        environment = dict(os.environ, NIMBUS_LOG_LEVEL="info", NIMBUS_SMTP_URL=smtp_url)
        for name in ["NIMBUS_DATABASE_URL", "NIMBUS_PORT", "NIMBUS_HOSTNAME", "NIMBUS_PUBLIC_URL"]:
            environment.pop(name, None)
        self.data = data
        super().__init__([binary, "serve", "--data", data, "--hostname", "127.0.0.1", "--port", "0"], environment)


APP_INDEX = """<!doctype html><html><head><meta charset="utf-8"><title>Test app</title></head><body>
<h1>Test app</h1>
<p><a id="redirect" href="">Sign in</a></p>
<p><button id="popup">Sign in in a popup</button></p>
<p id="status">Signed out</p>
<script>
const NIMBUS = %(nimbus)s, CONTAINER = %(container)s, API_TOKEN = %(apiToken)s, APP = location.origin;
const state = Math.random().toString(36).slice(2);
sessionStorage.setItem("state", state);
const page = NIMBUS + "/signin/" + CONTAINER + "/development";
document.getElementById("redirect").href = page + "?callback=" + encodeURIComponent(APP + "/callback.html") + "&state=" + state;
async function show(token) {
  const response = await fetch(NIMBUS + "/database/1/" + CONTAINER + "/development/public/users/current?ckAPIToken=" + API_TOKEN + "&ckWebAuthToken=" + encodeURIComponent(token));
  const user = await response.json();
  document.getElementById("status").textContent = response.ok ? "Signed in as " + user.firstName : "Failed: " + JSON.stringify(user);
}
window.addEventListener("message", (event) => {
  if (event.origin !== NIMBUS) return;
  if (event.data.state !== state) { document.getElementById("status").textContent = "State mismatch"; return; }
  show(event.data.ckWebAuthToken);
});
document.getElementById("popup").addEventListener("click", () => {
  window.open(page + "?origin=" + encodeURIComponent(APP) + "&state=" + state, "signin", "width=480,height=720");
});
</script></body></html>"""

APP_CALLBACK = """<!doctype html><html><head><meta charset="utf-8"><title>Callback</title></head><body>
<h1>Back in the app</h1><p id="status">Checking…</p>
<script>
const NIMBUS = %(nimbus)s, CONTAINER = %(container)s, API_TOKEN = %(apiToken)s;
const query = new URLSearchParams(location.search);
if (query.get("state") !== sessionStorage.getItem("state")) {
  document.getElementById("status").textContent = "State mismatch";
} else {
  fetch(NIMBUS + "/database/1/" + CONTAINER + "/development/public/users/current?ckAPIToken=" + API_TOKEN + "&ckWebAuthToken=" + encodeURIComponent(query.get("ckWebAuthToken")))
    .then(async (response) => {
      const user = await response.json();
      document.getElementById("status").textContent = response.ok ? "Signed in as " + user.firstName : "Failed: " + JSON.stringify(user);
    });
}
</script></body></html>"""


def serve_app(directory):
    """A static file server for the app's pages on a loopback port; returns (server, url)."""

    class Handler(http.server.SimpleHTTPRequestHandler):
        def __init__(self, *arguments, **keywords):
            super().__init__(*arguments, directory=directory, **keywords)

        def log_message(self, *arguments):
            pass

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, "http://127.0.0.1:%d" % server.server_address[1]


def browser():
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1000,900"]:
        options.add_argument(argument)
    service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    return webdriver.Chrome(options=options, service=service)


def main():
    parser = argparse.ArgumentParser(description="The browser sign-in flow in headless Chromium.")
    parser.add_argument("--nimbus", required=True, help="the nimbus executable")
    parser.add_argument("--artefacts", required=True, help="where screenshots go")
    options = parser.parse_args()
    os.makedirs(options.artefacts, exist_ok=True)
    work = tempfile.mkdtemp(prefix="nimbus-browser-")
    mail = MailServer()
    server = NimbusServer(options.nimbus, os.path.join(work, "data"), "smtp+plain://127.0.0.1:%d?from=nimbus@example.com" % mail.port)
    app_server = None
    driver = None
    step = [0]

    def shot(name):
        step[0] += 1
        path = os.path.join(options.artefacts, "%02d-%s.png" % (step[0], name))
        driver.save_screenshot(path)
        print("browser test: screenshot %s" % path)

    try:
        nimbus = server.wait_for(r"nimbus\.url=(http://127\.0\.0\.1:[0-9]+).*Nimbus ready").group(1)
        container = server.wait_for(r"^export NIMBUS_CONTAINER='?([^']+)'?$").group(1)
        api_token = server.wait_for(r"^export NIMBUS_API_TOKEN='?([0-9a-f]{64})'?$").group(1)
        app_dir = os.path.join(work, "app")
        os.makedirs(app_dir)
        app_server, app = serve_app(app_dir)
        values = {"nimbus": json.dumps(nimbus), "container": json.dumps(container), "apiToken": json.dumps(api_token)}
        with open(os.path.join(app_dir, "index.html"), "w") as page:
            page.write(APP_INDEX % values)
        with open(os.path.join(app_dir, "callback.html"), "w") as page:
            page.write(APP_CALLBACK % values)
        # The operator registers the app's callback URL, as a production app would need.
        subprocess.run(
            [options.nimbus, "auth", "callback", "add", app + "/callback.html", "--container", container, "--data", server.data],
            check=True, stdout=subprocess.DEVNULL,
        )

        driver = browser()
        wait = WebDriverWait(driver, WAIT_SECONDS)
        driver.get(app + "/index.html")
        driver.find_element(By.ID, "redirect").click()
        wait.until(expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "form.signup")))
        shot("sign-in-page")

        signup = driver.find_element(By.CSS_SELECTOR, "form.signup")
        signup.find_element(By.NAME, "name").send_keys("Bea")
        signup.find_element(By.NAME, "email").send_keys("bea@example.com")
        signup.find_element(By.NAME, "password").send_keys(PASSWORD)
        signup.find_element(By.CSS_SELECTOR, "button").click()
        wait.until(expected_conditions.presence_of_element_located((By.NAME, "code")))
        shot("code-form")

        driver.find_element(By.NAME, "code").send_keys(mail.code_for("bea@example.com"))
        driver.find_element(By.CSS_SELECTOR, "form.verify button").click()
        wait.until(expected_conditions.text_to_be_present_in_element((By.ID, "status"), "Signed in as Bea"))
        assert driver.current_url.startswith(app + "/callback.html?ckWebAuthToken="), driver.current_url
        shot("back-in-the-app")

        # The popup flow: the page posts the token to the app's window.
        driver.get(app + "/index.html")
        app_window = driver.current_window_handle
        driver.find_element(By.ID, "popup").click()
        wait.until(lambda d: len(d.window_handles) == 2)
        driver.switch_to.window([handle for handle in driver.window_handles if handle != app_window][0])
        wait.until(expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "form.signin")))
        signin = driver.find_element(By.CSS_SELECTOR, "form.signin")
        signin.find_element(By.NAME, "email").send_keys("bea@example.com")
        signin.find_element(By.NAME, "password").send_keys("not the password")
        signin.find_element(By.CSS_SELECTOR, "button").click()
        wait.until(expected_conditions.text_to_be_present_in_element((By.CSS_SELECTOR, ".message"), "email or password is wrong"))
        shot("wrong-password")
        signin = driver.find_element(By.CSS_SELECTOR, "form.signin")
        signin.find_element(By.NAME, "password").send_keys(PASSWORD)
        signin.find_element(By.CSS_SELECTOR, "button").click()
        wait.until(lambda d: len(d.window_handles) == 1)
        driver.switch_to.window(app_window)
        wait.until(expected_conditions.text_to_be_present_in_element((By.ID, "status"), "Signed in as Bea"))
        shot("popup-signed-in")

        # nimbus login --browser: the page sends the session to the CLI's one-time loopback listener.
        profile = os.path.join(work, "profile.json")
        login = Process([options.nimbus, "login", "--browser", "--no-open", "--url", nimbus, "--container", container,
                         "--api-token", api_token, "--profile", profile, "--json"])
        page = login.wait_for(r"Sign in on this page: (\S+)").group(1)
        callback = urllib.parse.parse_qs(urllib.parse.urlparse(page).query)["callback"][0]
        assert re.match(r"^http://127\.0\.0\.1:[0-9]+/callback$", callback), callback
        # Another page on the machine cannot hand the CLI a session: without the login's state, a 400.
        try:
            urllib.request.urlopen(callback + "?ckWebAuthToken=forged&state=guessed", timeout=WAIT_SECONDS)
            raise AssertionError("the listener took a redirect without the login's state")
        except urllib.error.HTTPError as refused:
            assert refused.code == 400, refused.code
        driver.get(page)
        signin = wait.until(expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "form.signin")))
        signin.find_element(By.NAME, "email").send_keys("bea@example.com")
        signin.find_element(By.NAME, "password").send_keys(PASSWORD)
        signin.find_element(By.CSS_SELECTOR, "button").click()
        wait.until(expected_conditions.text_to_be_present_in_element((By.ID, "status"), "Signed in. You can close this page"))
        shot("cli-login-done")
        status = login.process.wait(WAIT_SECONDS)
        assert status == 0, "nimbus login exited with %d: %s" % (status, "\n".join(login.lines))
        signed_in = json.loads(login.wait_for(r"^(\{.*\})$").group(1))
        zones = subprocess.run([options.nimbus, "zone", "list", "--profile", profile], capture_output=True, text=True)
        assert zones.returncode == 0, "zone list failed: " + zones.stderr
        # The operator deletes the user; the CLI's session ends with the account.
        subprocess.run(
            [options.nimbus, "user", "delete", signed_in["userRecordName"], "--container", container, "--data", server.data, "--yes"],
            check=True, stdout=subprocess.DEVNULL,
        )
        # The server caches tokens for a few seconds (docs/accounts.md, Sessions): the deletion,
        # made by another process, reaches it within that time.
        deadline = time.monotonic() + WAIT_SECONDS
        while True:
            zones = subprocess.run([options.nimbus, "zone", "list", "--profile", profile], capture_output=True, text=True)
            if zones.returncode != 0 or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        assert zones.returncode != 0 and "AUTHENTICATION" in zones.stderr, "the deleted user's session still works: " + zones.stdout

        # A provider: the page's button, the provider's consent page, and back to the app.
        issuer = Issuer("web-client", "browser-secret", "pat-at-acme", "Pat")
        try:
            secret_file = os.path.join(work, "client-secret")
            with open(secret_file, "w") as secret:
                secret.write("browser-secret")
            subprocess.run(
                [options.nimbus, "auth", "provider", "add", "--container", container, "--name", "acme", "--issuer", issuer.url,
                 "--client-id", "web-client", "--client-secret-file", secret_file, "--data", server.data],
                check=True, stdout=subprocess.DEVNULL,
            )
            driver.get(app + "/index.html")
            driver.find_element(By.ID, "redirect").click()
            wait.until(expected_conditions.presence_of_element_located((By.CSS_SELECTOR, "form.provider button")))
            shot("provider-button")
            driver.find_element(By.CSS_SELECTOR, "form.provider button").click()
            wait.until(expected_conditions.presence_of_element_located((By.ID, "approve")))
            assert driver.current_url.startswith(issuer.url + "/authorize?"), driver.current_url
            assert "code_verifier" not in driver.current_url
            shot("provider-consent")
            driver.find_element(By.ID, "approve").click()
            wait.until(expected_conditions.text_to_be_present_in_element((By.ID, "status"), "Signed in as Pat"))
            assert driver.current_url.startswith(app + "/callback.html?ckWebAuthToken="), driver.current_url
            shot("provider-signed-in")
        finally:
            issuer.stop()
        print("browser test: passed")
        return 0
    except Exception as error:
        print("browser test: FAILED: %s" % error, file=sys.stderr)
        if driver is not None:
            try:
                shot("failure")
                print("browser test: the page was %s" % driver.current_url, file=sys.stderr)
            except Exception:
                pass
        print("browser test: the server's output ends:\n" + "\n".join(server.lines[-30:]), file=sys.stderr)
        return 1
    finally:
        if driver is not None:
            driver.quit()
        if app_server is not None:
            app_server.shutdown()
        server.stop()
        mail.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
