#!/usr/bin/env python3
# The chat app (`nimbus serve --apps chat`) in real headless Chromium, three people in three
# browsers (each its own profile, as three phones): Alice signs up with a name, makes a chat
# and an invitation link; Bob opens the link without an account, signs up on the landing page
# and lands in the chat; he sends a picture that Alice sees arrive without reloading; Carol
# joins by the same link and likes Bob's message, which Bob sees. The server's rules decide who
# is alerted: the like only its author; Carol, who muted the chat, only by a mention. Alice adds
# an email to her account (the code comes from the suite's SMTP server), signs in on a second
# device, and the read marker follows her from one device to the other. Alice renames the chat
# and removes Bob, whose view changes at once; she makes the chat private again, which removes
# Carol, who joined by the joinable link. Bob and Carol start a direct message, which Carol
# leaves; Alice's second chat takes requests to join, and Bob asks and is let in. Screenshots of each step go to the artefacts
# directory (one at a phone's size). Exits non-zero on any failure.
# Usage: Tests/Browser/chat_flow.py --nimbus PATH --artefacts DIR

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

from sign_in_flow import MailServer, Process

WAIT_SECONDS = 20


def png(path, width=64, height=48):
    """Writes a small striped PNG: a picture a person would send."""
    rows = b"".join(b"\x00" + bytes(v for x in range(width) for v in (x * 4 % 256, y * 5 % 256, 160)) for y in range(height))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    with open(path, "wb") as file:
        file.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def browser(width=1000, height=800):
    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=%d,%d" % (width, height)]:
        options.add_argument(argument)
    service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    return webdriver.Chrome(options=options, service=service)


class Person:
    """A person's browser, with waits that survive a page redrawing and numbered screenshots."""

    prefix = "chat"

    def __init__(self, name, artefacts, counter, width=1000, height=800):
        self.name = name
        self.driver = browser(width, height)
        self.artefacts = artefacts
        self.counter = counter

    def wait(self, condition, message):
        # The page redraws a list when something arrives: an element found a moment ago may be
        # gone, and is looked up again.
        wait = WebDriverWait(self.driver, WAIT_SECONDS, ignored_exceptions=(StaleElementReferenceException,))
        return wait.until(condition, message="%s: %s" % (self.name, message))

    def element(self, element_id):
        return self.wait(expected_conditions.visibility_of_element_located((By.ID, element_id)), "#%s visible" % element_id)

    def shot(self, label):
        self.counter[0] += 1
        path = os.path.join(self.artefacts, "%s-%02d-%s-%s.png" % (self.prefix, self.counter[0], self.name.lower(), label))
        self.driver.save_screenshot(path)
        print("%s test: screenshot %s" % (self.prefix, path), flush=True)

    def sign_up(self):
        field = self.element("name")
        field.send_keys(self.name)
        self.driver.find_element(By.CSS_SELECTOR, "#signup button").click()
        self.wait(expected_conditions.text_to_be_present_in_element((By.ID, "me"), "Signed in as %s" % self.name), "signed in")

    def message_with(self, text):
        return self.wait(
            expected_conditions.visibility_of_element_located((By.XPATH, "//li[contains(@class,'message')][.//p[text()=%s]]" % json.dumps(text))),
            "a message saying %r" % text,
        )

    def send(self, text, picture=None, keyboard=False):
        if picture:
            self.driver.find_element(By.ID, "attachment").send_keys(picture)
        if keyboard:
            # As with a keyboard alone: type, then Enter.
            self.element("text").send_keys(text + Keys.ENTER)
        else:
            self.element("text").send_keys(text)
            self.driver.find_element(By.CSS_SELECTOR, "#composer button[type=submit]").click()
        return self.message_with(text)

    def notices(self):
        return [item.text for item in self.driver.find_elements(By.CSS_SELECTOR, "#notices li")]

    def noticed(self, record_name):
        """Whether a notice on screen is about the record (notices list the records they are about)."""
        return bool(self.driver.find_elements(By.CSS_SELECTOR, "#notices li[data-records~=%s]" % json.dumps(record_name)))

    def open_members(self):
        """Opens the members panel, read afresh (closed and opened again if it was open)."""
        toggle = self.element("members-toggle")
        if toggle.get_attribute("aria-expanded") == "true":
            toggle.click()
        toggle.click()

    def chat_button(self, name):
        return self.driver.find_element(By.XPATH, "//ul[@id='chats']//button[starts-with(normalize-space(.), %s)]" % json.dumps(name))

    def quit(self):
        self.driver.quit()


def main():
    parser = argparse.ArgumentParser(description="The chat app in headless Chromium.")
    parser.add_argument("--nimbus", required=True)
    parser.add_argument("--artefacts", required=True)
    options = parser.parse_args()
    os.makedirs(options.artefacts, exist_ok=True)
    work = tempfile.mkdtemp(prefix="nimbus-chat-")
    data = os.path.join(work, "data")
    picture = os.path.join(work, "tea.png")
    notes = os.path.join(work, "notes.txt")
    png(picture)
    mail = MailServer()
    environment = dict(os.environ, NIMBUS_LOG_LEVEL="info", NIMBUS_SMTP_URL="smtp+plain://127.0.0.1:%d?from=nimbus@example.com" % mail.port)
    for name in ["NIMBUS_DATABASE_URL", "NIMBUS_PORT", "NIMBUS_HOSTNAME", "NIMBUS_PUBLIC_URL"]:
        environment.pop(name, None)
    created = json.loads(subprocess.run(
        [options.nimbus, "container", "create", "iCloud.com.example.chat", "--data", data, "--json"],
        check=True, capture_output=True, env=environment,
    ).stdout)
    environment.update(NIMBUS_APPS_CONTAINER="iCloud.com.example.chat", NIMBUS_APPS_API_TOKEN=created["apiToken"])
    server = Process([options.nimbus, "serve", "--data", data, "--hostname", "127.0.0.1", "--port", "0", "--apps", "chat"], environment)
    counter = [0]
    people = []
    try:
        base = server.wait_for(r"nimbus\.url=(http://127\.0\.0\.1:[0-9]+).*Nimbus ready").group(1)
        app = base + "/apps/chat/"

        alice = Person("Alice", options.artefacts, counter)
        people.append(alice)
        alice.driver.get(app)
        alice.element("welcome")
        alice.shot("welcome")
        alice.sign_up()
        alice.element("chat-name").send_keys("Tea")
        alice.driver.find_element(By.CSS_SELECTOR, "#new-chat button").click()
        alice.wait(expected_conditions.text_to_be_present_in_element((By.ID, "chat-title"), "Tea"), "the new chat open")
        alice.send("Hello, who wants tea?")
        alice.element("members-toggle").click()
        alice.element("invite").click()
        link = alice.element("invite-link").get_attribute("value")
        assert "?join=" in link, link
        alice.shot("invitation-link")

        # Bob has no account: the link's landing page signs him up and takes him to the chat.
        bob = Person("Bob", options.artefacts, counter)
        people.append(bob)
        bob.driver.get(link)
        bob.wait(expected_conditions.text_to_be_present_in_element((By.ID, "welcome-title"), "invited"), "the invitation landing page")
        bob.shot("invited")
        bob.sign_up()
        bob.wait(expected_conditions.text_to_be_present_in_element((By.ID, "chat-title"), "Tea"), "in the chat after signing up")
        bob.message_with("Hello, who wants tea?")
        # A profile picture, which everyone in his chats sees beside his messages.
        bob.element("account-toggle").click()
        bob.element("profile-picture").send_keys(picture)
        bob.driver.find_element(By.CSS_SELECTOR, "#profile-form button").click()
        bob.wait(expected_conditions.text_to_be_present_in_element((By.ID, "status"), "picture is saved"), "profile picture saved")
        bob.element("account-toggle").click()
        bob.send("Me! Here is my cup.", picture=picture)
        mine = "li.message.mine img:not(.avatar)"
        bob.wait(lambda driver: driver.execute_script("return document.querySelector(arguments[0])?.naturalWidth", mine) == 64, "his picture shown")
        bob.shot("picture-sent")

        # Alice sees it arrive without reloading: the notification stream.
        arrived = alice.message_with("Me! Here is my cup.")
        assert "Bob" in arrived.text, arrived.text
        theirs = "li.message:not(.mine) img:not(.avatar)"
        alice.wait(lambda driver: driver.execute_script("return document.querySelector(arguments[0])?.naturalWidth", theirs) == 64, "Bob's picture loaded")
        avatar = "li.message:not(.mine) img.avatar"
        alice.wait(lambda driver: driver.execute_script("return document.querySelector(arguments[0])?.naturalWidth", avatar) == 64, "Bob's profile picture")
        alice.shot("picture-received")

        # Carol, on a phone-sized screen, gets Bob's link second-hand: it let one person in, and
        # lets no one else. Alice publishes a joinable link (seed 000), and Carol joins by it.
        carol = Person("Carol", options.artefacts, counter, width=390, height=844)
        people.append(carol)
        carol.driver.get(link)
        carol.sign_up()
        carol.wait(expected_conditions.text_to_be_present_in_element((By.ID, "status"), "That invitation did not work"), "a used link refused")
        assert not carol.driver.find_elements(By.CSS_SELECTOR, "#chats button"), "no chat from a used link"
        alice.element("publish").click()
        joinable = alice.element("joinable-link").get_attribute("value")
        assert joinable != link and "?join=" in joinable, joinable
        carol.driver.get(joinable)
        carol.wait(expected_conditions.text_to_be_present_in_element((By.ID, "chat-title"), "Tea"), "in the chat")
        liked = carol.message_with("Me! Here is my cup.")
        liked.find_element(By.CSS_SELECTOR, "button.like").click()
        carol.wait(lambda driver: "Liked · 1" in carol.message_with("Me! Here is my cup.").text, "her like counted")
        carol.shot("phone-liked")
        bob.wait(lambda driver: "Like · 1" in bob.message_with("Me! Here is my cup.").text, "Carol's like reaches Bob")

        # The rules decide per recipient, on the server: the like alerts its author only.
        bob.wait(lambda driver: "Someone reacted to your message" in bob.notices(), "the like's notice")
        alice.wait(lambda driver: "New message" in alice.notices(), "Bob's message alerted Alice")

        # Carol mutes the chat: a message shows up on her screen without an alert, unless it
        # mentions her. A stream delivers in order, so once a later notice is on screen, an
        # earlier one that was sent is too.
        carol.element("mute").click()
        carol.wait(expected_conditions.text_to_be_present_in_element((By.ID, "mute"), "Unmute"), "muted")
        plain = bob.send("Anyone for biscuits?").get_attribute("data-message")
        carol.message_with("Anyone for biscuits?")
        alice.wait(lambda driver: alice.noticed(plain), "Alice, not muted, is alerted")
        assert not any("reacted" in text for text in alice.notices()), "the like alerted only its author: %s" % alice.notices()
        mention = bob.send("@Carol these are for you").get_attribute("data-message")
        carol.wait(lambda driver: carol.noticed(mention), "the mention alerts her")
        assert not carol.noticed(plain), "the muted chat's other message did not alert her"
        carol.shot("muted-mention")

        # Carol gives Bob a name only she sees; his own stays under it; a blank one reverts.
        carol.element("members-toggle").click()
        carol.wait(expected_conditions.element_to_be_clickable((By.CSS_SELECTOR, "#member-list button[aria-label='Rename Bob for me']")), "Bob listed").click()
        alias = carol.element("alias")
        alias.clear()
        alias.send_keys("Bobby Biscuits")
        carol.driver.find_element(By.CSS_SELECTOR, "#alias-form button").click()
        renamed = lambda driver: carol.message_with("Anyone for biscuits?").text.startswith("Bobby Biscuits\nBob\n")
        carol.wait(renamed, "Bob shown by the name Carol gave him")
        carol.shot("alias")
        assert "Bobby" not in bob.message_with("Anyone for biscuits?").text and "Bobby" not in alice.message_with("Anyone for biscuits?").text
        carol.wait(expected_conditions.element_to_be_clickable((By.CSS_SELECTOR, "#member-list button[aria-label='Rename Bob for me']")), "Bob listed").click()
        carol.element("alias").clear()
        carol.driver.find_element(By.CSS_SELECTOR, "#alias-form button").click()
        carol.wait(lambda driver: carol.message_with("Anyone for biscuits?").text.startswith("Bob\n"), "his own name back")

        # Alice adds an email to her account, and signs in with it on her phone.
        alice.element("account-toggle").click()
        alice.element("link-address").send_keys("alice@example.com")
        alice.element("link-password").send_keys("a long chat password")
        alice.driver.find_element(By.CSS_SELECTOR, "#link-email button").click()
        alice.element("link-code-value").send_keys(mail.code_for("alice@example.com"))
        alice.driver.find_element(By.CSS_SELECTOR, "#link-code button").click()
        alice.wait(expected_conditions.text_to_be_present_in_element((By.ID, "account-state"), "alice@example.com"), "the email linked")
        alice.shot("account")
        alice.element("account-toggle").click()
        phone = Person("Alice", options.artefacts, counter, width=390, height=844)
        people.append(phone)
        phone.driver.get(app)
        phone.element("welcome")
        phone.driver.find_element(By.CSS_SELECTOR, "#have-account summary").click()
        phone.element("signin-email").send_keys("alice@example.com")
        phone.element("signin-password").send_keys("a long chat password")
        phone.driver.find_element(By.CSS_SELECTOR, "#signin button").click()
        phone.wait(expected_conditions.text_to_be_present_in_element((By.ID, "me"), "Signed in as Alice"), "the same account on the phone")
        phone.wait(lambda driver: phone.chat_button("Tea"), "her chat on the phone")
        phone.element("chat-name").send_keys("Plans")
        phone.driver.find_element(By.CSS_SELECTOR, "#new-chat button").click()
        phone.wait(expected_conditions.text_to_be_present_in_element((By.ID, "chat-title"), "Plans"), "another chat open on the phone")

        # Alice closes the laptop; Bob writes; the phone shows Tea unread. Back on the laptop
        # she reads it, and the phone's unread mark goes, by the read marker alone.
        alice.driver.get("about:blank")
        bob.send("Ping")
        phone.wait(lambda driver: "unread" in phone.chat_button("Tea").text, "Tea unread on the phone")
        phone.shot("unread")
        alice.driver.get(app)
        alice.wait(lambda driver: alice.chat_button("Tea"), "the laptop's chat list")
        alice.chat_button("Tea").click()
        alice.message_with("Ping")
        phone.wait(lambda driver: "unread" not in phone.chat_button("Tea").text, "read on the laptop: not unread on the phone")
        phone.shot("read-elsewhere")

        # Alice renames the chat; everyone's title follows.
        alice.element("rename").click()
        field = alice.element("new-name")
        field.clear()
        field.send_keys("Tea time")
        alice.driver.find_element(By.CSS_SELECTOR, "#rename-form button").click()
        for person in (alice, bob, carol):
            person.wait(expected_conditions.text_to_be_present_in_element((By.ID, "chat-title"), "Tea time"), "the new name")

        # Alice removes Bob: his chat goes away at once.
        alice.open_members()
        remove = alice.wait(expected_conditions.element_to_be_clickable((By.CSS_SELECTOR, "#member-list button[aria-label='Remove Bob']")), "Bob listed")
        alice.shot("members")
        remove.click()
        bob.wait(expected_conditions.text_to_be_present_in_element((By.ID, "status"), "no longer in that chat"), "removed")
        assert not bob.driver.find_elements(By.CSS_SELECTOR, "#chats button"), "the chat is gone from Bob's list"
        bob.shot("removed")
        # Carol is still in, and still sees everything.
        carol.message_with("Hello, who wants tea?")

        # Alice makes the chat private again: whoever joined by the joinable link is out
        # (Carol); whoever was invited would stay (Nimbus's rule; CloudKit removed everyone).
        alice.element("unpublish").click()
        carol.wait(expected_conditions.text_to_be_present_in_element((By.ID, "status"), "no longer in that chat"), "out with the link")
        alice.wait(expected_conditions.text_to_be_present_in_element((By.ID, "joinable-state"), "Only the people you invite"), "private again")
        alice.wait(lambda driver: "Carol" not in driver.find_element(By.ID, "member-list").text, "Carol gone from the members")
        alice.shot("private-again")

        # Bob starts a direct message with Carol: a chat for two, and a link for one person.
        bob.element("new-dm").click()
        direct = bob.wait(lambda driver: driver.find_element(By.ID, "invite-link").get_attribute("value"), "the direct message's link")
        carol.driver.get(direct)
        carol.wait(expected_conditions.text_to_be_present_in_element((By.ID, "chat-title"), "Direct message"), "in the direct message")
        carol.send("Sorry about the tea, Bob", keyboard=True)
        bob.message_with("Sorry about the tea, Bob")
        # A file that is not a picture arrives as a link to it, by its name and size.
        with open(notes, "w") as file:
            file.write("Oolong, Assam, Darjeeling\n")
        carol.send("The list", picture=notes)
        link_to_file = bob.wait(
            expected_conditions.visibility_of_element_located((By.XPATH, "//li[contains(@class,'message')][.//p[text()='The list']]//a[@class='file']")),
            "the file's link",
        )
        assert link_to_file.text == "notes.txt (26 bytes)", link_to_file.text
        fetched = bob.driver.execute_async_script("fetch(arguments[0]).then(r => r.text()).then(arguments[1])", link_to_file.get_attribute("href"))
        assert fetched == "Oolong, Assam, Darjeeling\n", fetched
        bob.shot("direct-message")
        # Carol leaves the direct message: it is gone from her chats, and she from its members.
        bob.open_members()
        bob.wait(lambda driver: "Carol (member)" in driver.find_element(By.ID, "member-list").text, "Carol a member")
        carol.open_members()
        carol.element("leave").click()
        carol.wait(expected_conditions.text_to_be_present_in_element((By.ID, "status"), "You left"), "left")
        assert not [b for b in carol.driver.find_elements(By.CSS_SELECTOR, "#chats button") if "Direct message" in b.text]
        bob.open_members()
        bob.wait(lambda driver: "You (owner)" in driver.find_element(By.ID, "member-list").text and "Carol" not in driver.find_element(By.ID, "member-list").text, "Carol gone")

        # Alice's "Plans" takes requests to join: Bob asks by its link, and she lets him in.
        alice.chat_button("Plans").click()
        alice.wait(expected_conditions.text_to_be_present_in_element((By.ID, "chat-title"), "Plans"), "Plans open")
        alice.open_members()
        alice.element("requests-toggle").click()
        request_link = alice.element("request-link").get_attribute("value")
        bob.driver.get(request_link)
        bob.element("ask").click()
        bob.wait(expected_conditions.text_to_be_present_in_element((By.ID, "status"), "request was sent"), "asked")
        alice.open_members()
        alice.wait(expected_conditions.element_to_be_clickable((By.XPATH, "//ul[@id='request-list']//button[text()='Let them in']")), "Bob's request").click()
        bob.wait(lambda driver: bob.chat_button("Plans"), "Plans in Bob's chats once he is let in")
        bob.shot("let-in")
        print("chat test: passed", flush=True)
    except Exception:
        for person in people:
            try:
                person.shot("failure")
                logs = person.driver.get_log("browser")
                for entry in logs[-10:]:
                    print("chat test: %s console: %s" % (person.name, entry.get("message")), file=sys.stderr)
            except Exception:
                pass
        print("chat test: the server's output ends:\n%s" % "\n".join(server.lines[-30:]), file=sys.stderr)
        raise
    finally:
        for person in people:
            person.quit()
        server.stop()
        mail.stop()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
