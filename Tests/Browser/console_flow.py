#!/usr/bin/env python3
# The operators' console in real headless Chromium, as an operator meets it: `nimbus serve` on
# a new data directory prints a link that creates the first administrator; she follows it,
# opens the quick-start container, makes an API token (shown once) and revokes it, disables a
# user, reads the telemetry, adds a read-only operator and reads the audit log. The read-only
# operator signs in through his own link and sees no controls, and his posts are refused; a
# post without the session's CSRF value is refused and changes nothing. Between the steps,
# plain HTTP requests check what the console did (a revoked token fails, a disabled user's
# token fails). The access log has a line per request and no secret. Screenshots of each step
# go to the artefacts directory. Exits non-zero on any failure.
# Usage: Tests/Browser/console_flow.py --nimbus PATH --artefacts DIR

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import urllib.error
import urllib.parse
import urllib.request

from selenium.common.exceptions import WebDriverException
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.select import Select
from selenium.webdriver.support.ui import WebDriverWait

from chat_flow import Person
from sign_in_flow import Process

WAIT_SECONDS = 20
ADMIN = "ada@example.com"
READER = "rui@example.com"
PASSWORD = "a console password of some length"


def new_page_loaded(driver):
    try:
        return driver.execute_script("return window.nimbusOldPage === undefined && document.readyState === 'complete'")
    except WebDriverException:
        # Asked while the old page is torn down: not loaded yet.
        return False


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *arguments):
        return None


def http(method, url, body=None, cookie=None):
    """The status and body of a request, without following redirects."""
    headers = {"Content-Type": "application/x-www-form-urlencoded"} if body is not None else {}
    if cookie:
        headers["Cookie"] = cookie
    request = urllib.request.Request(url, data=body.encode() if body is not None else None, method=method, headers=headers)
    opener = urllib.request.build_opener(NoRedirect)
    try:
        with opener.open(request, timeout=WAIT_SECONDS) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


class Operator(Person):
    prefix = "console"

    def __init__(self, name, artefacts, counter, width=1100, height=900):
        super().__init__(name, artefacts, counter, width, height)

    def heading(self, text):
        self.wait(expected_conditions.text_to_be_present_in_element((By.TAG_NAME, "h1"), text), "the page headed %r" % text)

    def fill(self, field_id, text):
        field = self.driver.find_element(By.ID, field_id)
        field.clear()
        field.send_keys(text)

    def submit(self, css="main form button[type=submit]"):
        """Submits a form and waits for the page it leads to (every form here loads a page)."""
        self.click(self.driver.find_element(By.CSS_SELECTOR, css))

    def click(self, element):
        # The old page is marked, and the wait is for a loaded page without the mark. Waiting
        # for the old page's element to go stale instead races the navigation: chromedriver
        # can answer with a generic error about a node of a document being torn down.
        self.driver.execute_script("window.nimbusOldPage = true")
        element.click()
        self.wait(new_page_loaded, "the next page")

    def cookie(self):
        value = self.driver.get_cookie("nimbus_console")["value"]
        return "nimbus_console=" + value

    def csrf(self):
        return self.driver.find_element(By.CSS_SELECTOR, "form.who input[name=csrf]").get_attribute("value")

    def text(self):
        return self.driver.find_element(By.TAG_NAME, "main").text


def main():
    parser = argparse.ArgumentParser(description="The console in headless Chromium.")
    parser.add_argument("--nimbus", required=True)
    parser.add_argument("--artefacts", required=True)
    options = parser.parse_args()
    os.makedirs(options.artefacts, exist_ok=True)
    work = tempfile.mkdtemp(prefix="nimbus-console-")
    environment = dict(os.environ, NIMBUS_LOG_LEVEL="info")
    for name in ["NIMBUS_DATABASE_URL", "NIMBUS_PORT", "NIMBUS_HOSTNAME", "NIMBUS_PUBLIC_URL"]:
        environment.pop(name, None)
    server = Process([options.nimbus, "serve", "--data", os.path.join(work, "data"), "--hostname", "127.0.0.1", "--port", "0"], environment)
    counter = [0]
    operators = []
    secrets = []
    try:
        base = server.wait_for(r"nimbus\.url=(http://127\.0\.0\.1:[0-9]+).*Nimbus ready").group(1)
        setup_link = server.wait_for(r"(http://127\.0\.0\.1:[0-9]+/console/setup/[0-9a-f]{64})").group(1)
        container = server.wait_for(r"export NIMBUS_CONTAINER=(\S+)").group(1)
        api_token = server.wait_for(r"export NIMBUS_API_TOKEN=(\S+)").group(1)
        web_token = server.wait_for(r"export NIMBUS_WEB_AUTH_TOKEN='([^']+)'").group(1)
        secrets += [setup_link.rsplit("/", 1)[1], api_token, web_token]
        database = "%s/database/1/%s/development/public" % (base, container)

        def current_user(token):
            return http("GET", "%s/users/current?ckAPIToken=%s&ckWebAuthToken=%s" % (database, token, urllib.parse.quote(web_token)))[0]

        assert current_user(api_token) == 200, "the quick-start user cannot read users/current"
        # Two public records for the data browser, one referring to the other.
        notes = json.dumps({"operations": [
            {"operationType": "create", "record": {"recordName": "tea", "recordType": "Note",
             "fields": {"title": {"value": "Tea"}, "count": {"value": 3}}}},
            {"operationType": "create", "record": {"recordName": "coffee", "recordType": "Note",
             "fields": {"title": {"value": "Coffee"}, "count": {"value": 7}, "where": {"value": {"latitude": 52.52, "longitude": 13.405}},
                        "after": {"value": {"recordName": "tea", "action": "NONE"}}}}}]})
        saved = urllib.request.urlopen(urllib.request.Request(
            "%s/records/modify?ckAPIToken=%s&ckWebAuthToken=%s" % (database, api_token, urllib.parse.quote(web_token)),
            data=notes.encode(), method="POST", headers={"Content-Type": "application/json"}), timeout=WAIT_SECONDS)
        assert saved.status == 200

        # The root leads to the console, and the console to sign-in.
        ada = Operator("Ada", options.artefacts, counter)
        operators.append(ada)
        ada.driver.get(base + "/")
        ada.heading("Sign in to the console")
        assert ada.driver.current_url == base + "/console/sign-in", ada.driver.current_url
        ada.shot("sign-in")

        # The first administrator, from the link the first start printed.
        ada.driver.get(setup_link)
        ada.heading("Create the first administrator")
        ada.fill("email", ADMIN)
        ada.fill("password", "too short")
        ada.driver.execute_script("document.getElementById('password').removeAttribute('minlength')")
        ada.submit()
        ada.wait(expected_conditions.text_to_be_present_in_element((By.CSS_SELECTOR, ".problem"), "at least 12 characters"), "a short password refused")
        ada.shot("short-password")
        ada.fill("password", PASSWORD)
        ada.submit()
        ada.heading("Containers")
        ada.shot("overview")
        status, _ = http("GET", setup_link)
        assert status == 404, "a used set-up link still opens (%d)" % status

        # The quick-start container: its API token, then a new one shown once.
        ada.click(ada.driver.find_element(By.LINK_TEXT, container))
        ada.heading(container)
        assert len(ada.driver.find_elements(By.CSS_SELECTOR, "section[aria-labelledby=tokens] tbody tr")) == 1
        ada.submit("section[aria-labelledby=tokens] > form button")
        new_token = ada.element("new-token").text
        secrets.append(new_token)
        assert re.fullmatch(r"[0-9a-f]{64}", new_token), new_token
        assert current_user(new_token) == 200, "the new API token does not work"
        ada.shot("new-api-token")
        rows = ada.driver.find_elements(By.CSS_SELECTOR, "section[aria-labelledby=tokens] tbody tr")
        assert len(rows) == 2, "two tokens expected, saw %d" % len(rows)

        # Revoking it: requests with it fail at once; the first token still works.
        # Tokens are listed oldest first: the new one is the last.
        ada.click(rows[-1].find_element(By.TAG_NAME, "button"))
        ada.wait(expected_conditions.text_to_be_present_in_element((By.CSS_SELECTOR, ".notice"), "revoked"), "the revocation notice")
        assert current_user(new_token) == 401, "a revoked API token still works"
        refused = http("GET", "%s/users/current?ckAPIToken=%s" % (database, new_token))
        refused_uuid = json.loads(refused[1])["uuid"]
        assert current_user(api_token) == 200, "revoking one token broke the other"
        ada.shot("token-revoked")

        # Support access: nothing of the quick-start user's private data without their grant;
        # under it, their zones and records, and every page a read they can list.
        private = "%s/database/1/%s/development/private" % (base, container)

        def as_user(operation, body):
            request = urllib.request.Request(
                "%s/%s?ckAPIToken=%s&ckWebAuthToken=%s" % (private, operation, api_token, urllib.parse.quote(web_token)),
                data=json.dumps(body).encode(), method="POST", headers={"Content-Type": "application/json"})
            with urllib.request.urlopen(request, timeout=WAIT_SECONDS) as answer:
                return json.loads(answer.read())

        as_user("zones/modify", {"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": "Diary"}}}]})
        as_user("records/modify", {"zoneID": {"zoneName": "Diary"}, "operations": [{"operationType": "create", "record": {
            "recordName": "monday", "recordType": "Entry", "fields": {"text": {"value": "The printer is jammed again"}}}}]})
        row = next(row for row in ada.driver.find_elements(By.CSS_SELECTOR, "section[aria-labelledby=users] tbody tr") if "Quick Start" in row.text)
        ada.click(row.find_element(By.TAG_NAME, "a"))
        assert "Read their data" not in ada.text() and "ask them to grant support access" in ada.text(), ada.text()
        user_page = ada.driver.current_url
        ada.driver.get(user_page + "/data")
        ada.heading("Cannot do that")
        assert "has not granted support access" in ada.text() and "Diary" not in ada.text(), ada.text()
        ada.shot("support-refused")
        grants = as_user("users/support/grant", {"hours": 2})["grants"]
        assert grants[0]["live"] and grants[0]["reads"] == [], grants
        ada.driver.get(user_page)
        ada.click(ada.driver.find_element(By.LINK_TEXT, "Read their data"))
        ada.heading("Data under a support grant")
        assert "No subscriptions." in ada.text() and "Latest notifications" in ada.text(), ada.text()
        ada.shot("support-overview")
        ada.click(ada.driver.find_element(By.LINK_TEXT, "Diary"))
        ada.wait(expected_conditions.text_to_be_present_in_element((By.CSS_SELECTOR, "main table"), "The printer is jammed again"), "the record under the grant")
        ada.shot("support-records")
        reads = as_user("users/support/list", {})["grants"][0]["reads"]
        assert [read["operator"] for read in reads] == [ADMIN, ADMIN], reads
        assert reads[0]["what"] == "the records of zone Diary (private database)", reads
        ada.click(ada.driver.find_element(By.LINK_TEXT, container))

        # Disabling the quick-start user ends their session.
        row = next(row for row in ada.driver.find_elements(By.CSS_SELECTOR, "section[aria-labelledby=users] tbody tr") if "Quick Start" in row.text)
        ada.click(row.find_element(By.CSS_SELECTOR, "button.danger"))
        ada.wait(expected_conditions.text_to_be_present_in_element((By.CSS_SELECTOR, ".notice"), "disabled"), "the disabled notice")
        assert current_user(api_token) != 200, "a disabled user's token still works"
        ada.shot("user-disabled")

        # The sign-in settings: anonymous accounts off, a longer shortest password.
        ada.driver.find_element(By.CSS_SELECTOR, "input[name=anonymous]").click()
        ada.fill("minimumPasswordLength", "10")
        ada.submit("section[aria-labelledby=sign-in] form button[type=submit]")
        ada.wait(expected_conditions.text_to_be_present_in_element((By.CSS_SELECTOR, ".notice"), "sign-in settings are saved"), "the sign-in notice")
        assert not ada.driver.find_element(By.CSS_SELECTOR, "input[name=anonymous]").is_selected()
        assert ada.driver.find_element(By.ID, "minimumPasswordLength").get_attribute("value") == "10"
        ada.driver.execute_script("document.getElementById('sign-in').scrollIntoView()")
        ada.shot("sign-in-settings")

        # A post without the session's CSRF value changes nothing.
        tokens_before = len(ada.driver.find_elements(By.CSS_SELECTOR, "section[aria-labelledby=tokens] tbody tr"))
        status, _ = http("POST", "%s/console/containers/%s/development/api-tokens" % (base, container), body="", cookie=ada.cookie())
        assert status == 403, "a post without CSRF answered %d" % status
        status, _ = http("POST", "%s/console/containers/%s/development/api-tokens" % (base, container), body="csrf=0123", cookie=ada.cookie())
        assert status == 403, "a post with a wrong CSRF value answered %d" % status
        ada.driver.refresh()
        assert len(ada.driver.find_elements(By.CSS_SELECTOR, "section[aria-labelledby=tokens] tbody tr")) == tokens_before

        # The public data: a query in the filter language, then a record with its typed fields.
        ada.click(ada.driver.find_element(By.LINK_TEXT, "Browse and query the public data"))
        ada.heading("Public data")
        Select(ada.driver.find_element(By.ID, "type")).select_by_visible_text("Note")
        ada.fill("filter", "count > 5")
        ada.fill("sort", "count")
        ada.submit("form.query button[type=submit]")
        ada.wait(expected_conditions.visibility_of_element_located((By.LINK_TEXT, "coffee")), "the query's result")
        assert not ada.driver.find_elements(By.LINK_TEXT, "tea"), "the filter let through a record it excludes"
        ada.shot("data-query")
        ada.click(ada.driver.find_element(By.LINK_TEXT, "coffee"))
        ada.heading("coffee")
        fields = ada.text()
        assert "ref → tea" in fields and "52.52, 13.405" in fields and '"Coffee"' in fields, fields
        ada.shot("data-record")
        ada.click(ada.driver.find_element(By.LINK_TEXT, "ref → tea"))
        ada.heading("tea")
        # An administrator edits the record's text, then deletes it after a confirmation.
        ada.fill("field-title", "Green tea")
        ada.submit("section[aria-labelledby=edit] form button[type=submit]")
        ada.wait(expected_conditions.text_to_be_present_in_element((By.CSS_SELECTOR, ".notice"), "saved"), "the saved notice")
        assert '"Green tea"' in ada.text(), ada.text()
        ada.shot("record-edited")
        ada.click(ada.driver.find_element(By.PARTIAL_LINK_TEXT, "Delete this record"))
        ada.heading("Delete tea?")
        ada.shot("record-delete-confirm")
        ada.submit("main form button.danger")
        ada.wait(expected_conditions.text_to_be_present_in_element((By.CSS_SELECTOR, ".notice"), "deleted"), "the deleted notice")

        # The schema: what deploying to production would add, then deployed.
        ada.click(ada.driver.find_element(By.LINK_TEXT, container))
        ada.click(ada.driver.find_element(By.LINK_TEXT, "Schema and deployment"))
        ada.heading("Schema")
        assert "+ record type Note" in ada.text(), ada.text()
        ada.shot("schema")
        ada.submit("section[aria-labelledby=deploy] form button")
        ada.wait(expected_conditions.text_to_be_present_in_element((By.CSS_SELECTOR, ".notice"), "deployed"), "the deployment notice")
        assert "Production has everything development has." in ada.text()

        # The refused request's log lines, found by the UUID its client got.
        ada.click(ada.driver.find_element(By.LINK_TEXT, "Requests"))
        ada.heading("Requests")
        ada.fill("id", refused_uuid)
        ada.submit()
        ada.wait(expected_conditions.text_to_be_present_in_element((By.CSS_SELECTOR, "main table"), "nimbus.status=401"), "the request's lines")
        ada.shot("request-lines")

        # Telemetry: the requests above, by operation.
        ada.click(ada.driver.find_element(By.LINK_TEXT, "Telemetry"))
        ada.heading("Telemetry")
        table = ada.driver.find_element(By.CSS_SELECTOR, "main table").text
        assert "users/current" in table, table
        assert "AUTHENTICATION_FAILED" in table, "the failed requests' code is missing: " + table
        assert len(ada.driver.find_elements(By.CSS_SELECTOR, "svg rect.requests")) >= 1, "no request bars"
        assert "Storage by container" in ada.text() and container in ada.text(), ada.text()
        ada.shot("telemetry")

        # A read-only operator.
        ada.click(ada.driver.find_element(By.LINK_TEXT, "Operators"))
        ada.heading("Operators")
        ada.fill("new-email", READER)
        ada.submit("main form button[type=submit]")
        reader_link = ada.element("new-link").text
        secrets.append(reader_link.rsplit("/", 1)[1])
        assert reader_link.startswith(base + "/console/setup/"), reader_link
        ada.shot("operator-added")

        rui = Operator("Rui", options.artefacts, counter, width=390, height=844)
        operators.append(rui)
        rui.driver.get(reader_link)
        rui.heading("Choose your password")
        assert READER in rui.text()
        rui.fill("password", PASSWORD + " too")
        rui.submit()
        rui.heading("Containers")
        rui.click(rui.driver.find_element(By.LINK_TEXT, container))
        rui.heading(container)
        assert not rui.driver.find_elements(By.CSS_SELECTOR, "main form[method=post]"), "a read-only operator sees forms that change things"
        rui.shot("read-only-phone")
        status, page = http("POST", "%s/console/containers/%s/development/api-tokens" % (base, container),
                            body="csrf=" + rui.csrf(), cookie=rui.cookie())
        assert status == 403 and "read-only" in page, "a read-only operator's post answered %d" % status

        # Deleting the quick-start user, after a page that says what goes.
        ada.click(ada.driver.find_element(By.LINK_TEXT, "Containers"))
        ada.click(ada.driver.find_element(By.LINK_TEXT, container))
        row = next(row for row in ada.driver.find_elements(By.CSS_SELECTOR, "section[aria-labelledby=users] tbody tr") if "Quick Start" in row.text)
        ada.click(row.find_element(By.TAG_NAME, "a"))
        ada.click(ada.driver.find_element(By.PARTIAL_LINK_TEXT, "Delete this user"))
        ada.heading("Delete Quick Start?")
        figures = ada.driver.find_element(By.CSS_SELECTOR, "dl.figures").text
        assert "Zones\n1" in figures and "Records\n1" in figures, figures
        ada.shot("user-delete-confirm")
        ada.submit("main form button.danger")
        ada.wait(expected_conditions.text_to_be_present_in_element((By.CSS_SELECTOR, ".notice"), "The user is deleted"), "the deleted notice")
        assert "Quick Start" not in ada.driver.find_element(By.CSS_SELECTOR, "section[aria-labelledby=users]").text

        # The audit log names every change and who made it.
        ada.click(ada.driver.find_element(By.LINK_TEXT, "Audit log"))
        ada.heading("Audit log")
        audit = ada.text()
        for action in ["operator.set-password", "api-token.create", "api-token.revoke", "user.disable", "operator.add", "sign-in.configure",
                       "record.edit", "record.delete", "support.read", "user.delete"]:
            assert action in audit, "the audit log lacks %s:\n%s" % (action, audit)
        assert READER in audit and ADMIN in audit
        ada.shot("audit")

        # Signing out ends the session: its cookie no longer opens the console.
        old_cookie = ada.cookie()
        ada.click(ada.driver.find_element(By.CSS_SELECTOR, "form.who button"))
        ada.heading("Sign in to the console")
        status, _ = http("GET", base + "/console", cookie=old_cookie)
        assert status == 303, "a signed-out session still opens the console (%d)" % status

        # A wrong password and an unknown address get the same answer.
        answers = []
        for email in [ADMIN, "nobody@example.com"]:
            ada.fill("email", email)
            ada.fill("password", "not the password at all")
            ada.submit()
            ada.wait(expected_conditions.visibility_of_element_located((By.CSS_SELECTOR, ".problem")), "the refusal")
            answers.append(ada.driver.find_element(By.CSS_SELECTOR, ".problem").text)
        assert answers[0] == answers[1], answers
        ada.shot("wrong-password")
        ada.fill("email", ADMIN)
        ada.fill("password", PASSWORD)
        ada.submit()
        ada.heading("Containers")
        ada.click(ada.driver.find_element(By.LINK_TEXT, "Audit log"))
        ada.heading("Audit log")
        assert "operator.sign-in" in ada.text(), "the sign-in is not in the audit log"

        # One access log line per request, with its route and no secret.
        requests = [line for line in server.lines if " request " in line or line.endswith(" request")]
        assert len(requests) >= 20, "too few access log lines: %d" % len(requests)
        assert any("nimbus.route=/console/setup/{link}" in line for line in requests), "no access log line names the set-up route"
        for line in server.lines:
            if "export NIMBUS_" in line or "/console/setup/" in line and "nimbus.route=" not in line:
                continue
            for secret in secrets:
                assert secret not in line, "a secret is in the server's output: %s" % line
        print("console test: passed", flush=True)
    except BaseException as error:
        print("console test: FAILED: %r" % (error,), file=sys.stderr)
        for person in operators:
            try:
                person.shot("failure")
                print("console test: %s was at %s" % (person.name, person.driver.current_url), file=sys.stderr)
            except Exception:
                pass
        print("console test: the server's output ends:\n%s" % "\n".join(server.lines[-30:]), file=sys.stderr)
        raise
    finally:
        for person in operators:
            person.driver.quit()
        server.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
