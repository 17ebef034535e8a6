// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0

// The Node side of the chat benchmark (bench_chat.py drives it): Alice makes a chat and its
// invitation link, N members join it as nimbus.js clients, and once the browsers have joined
// too (a line "go" on standard input) Alice sends messages one at a time. Each member does what
// the chat app does: on a notification it queries the newest messages by parent, and notes when
// each message first shows up, and when its notification arrived. Prints JSON lines.
// Usage: node chat_members.mjs URL CONTAINER API_TOKEN MEMBERS MESSAGES

import { createInterface } from 'node:readline';
import { Container } from '../../Sources/NimbusWeb/Resources/js/nimbus.js';

const [url, containerIdentifier, apiToken, memberCount, messageCount] = process.argv.slice(2);
const members = Number(memberCount);
const messages = Number(messageCount);
const say = (object) => process.stdout.write(JSON.stringify(object) + '\n');

function person() {
  return new Container({ containerIdentifier, serverURL: url, apiTokenAuth: { apiToken }, WebSocket: globalThis.WebSocket });
}

const alice = person();
await alice.signUp({ name: 'Alice' });
const db = alice.privateCloudDatabase;
await db.saveRecordZones('Chats');
const chat = (await db.saveRecords({ recordName: 'bench-chat', recordType: 'Chat', fields: { name: { value: 'Bench' } } }, { zoneID: 'Chats' })).records[0];
await db.shareRecord(chat, { zoneID: 'Chats', title: 'Bench', shareName: 'share-bench-chat' });
const link = await db.createInvitationLink({ zoneID: 'Chats', shareName: 'share-bench-chat', permission: 'READ_WRITE' });
say({ event: 'link', shortGUID: link.shortGUID });

const query = {
  recordType: 'Message',
  filterBy: [{ fieldName: 'parent', comparator: 'EQUALS', fieldValue: { value: { recordName: 'bench-chat' }, type: 'REFERENCE' } }],
  sortBy: [{ fieldName: '___createTime', ascending: false }],
};
const seen = []; // {member, message, shown, notified}

async function join(index) {
  const member = person();
  await member.signUp({ name: `Member ${index}` });
  const accepted = await member.acceptShares(link.shortGUID);
  if (accepted.hasErrors) throw accepted.errors[0];
  const zoneID = (await member.sharedCloudDatabase.fetchAllRecordZones()).zones[0].zoneID;
  await member.sharedCloudDatabase.saveSubscriptions({ subscriptionID: 'chat-shared', subscriptionType: 'database' });
  const shown = new Set();
  let running = null;
  let again = false;
  const refresh = async () => {
    do {
      again = false;
      const page = await member.sharedCloudDatabase.performQuery(query, { zoneID, resultsLimit: 50 });
      const now = Date.now();
      for (const record of page.records) {
        if (shown.has(record.recordName)) continue;
        shown.add(record.recordName);
        const entry = seen.find((e) => e.member === index && e.message === record.recordName);
        if (entry) entry.shown = now;
        else seen.push({ member: index, message: record.recordName, shown: now });
      }
    } while (again);
  };
  member.addNotificationListener((notification) => {
    const now = Date.now();
    for (const change of notification.ck?.nimbus?.changes || []) {
      const entry = seen.find((e) => e.member === index && e.message === change.rid);
      if (entry) entry.notified ??= now;
      else seen.push({ member: index, message: change.rid, notified: now });
    }
    if (running) {
      again = true;
      return;
    }
    running = refresh().finally(() => (running = null));
  });
  const stream = member.registerForNotifications();
  await new Promise((resolve) => {
    const check = () => (stream.state === 'open' ? resolve() : setTimeout(check, 20));
    check();
  });
  return member;
}

// Join a few at a time: a burst of 50 sign-ups is not what the benchmark measures.
const joined = [];
for (let start = 0; start < members; start += 8) {
  const batch = [];
  for (let index = start; index < Math.min(members, start + 8); index++) batch.push(join(index));
  joined.push(...(await Promise.all(batch)));
}
say({ event: 'ready', members: joined.length });

// Standard input's lines, one at a time, as the driver sends them.
const queued = [];
let waiting = null;
createInterface({ input: process.stdin }).on('line', (line) => {
  if (waiting) {
    const resolve = waiting;
    waiting = null;
    resolve(line.trim());
  } else queued.push(line.trim());
});
const nextLine = () => (queued.length ? Promise.resolve(queued.shift()) : new Promise((resolve) => (waiting = resolve)));
while ((await nextLine()) !== 'go');
const sent = [];
for (let index = 0; index < messages; index++) {
  const recordName = `m${index}`;
  const at = Date.now();
  const saved = await db.saveRecords({ recordName, recordType: 'Message', parent: { recordName: 'bench-chat' }, fields: { text: { value: `message ${index} at ${at}` }, senderName: { value: 'Alice' } } }, { zoneID: 'Chats' });
  if (saved.hasErrors) throw saved.errors[0];
  sent.push({ message: recordName, at, acknowledged: Date.now() });
  say({ event: 'sent', message: recordName, at });
  // The next message once every Node member shows this one (the browsers are waited for by
  // the driver), so messages do not queue behind each other.
  const deadline = Date.now() + 30000;
  while (seen.filter((e) => e.message === recordName && e.shown).length < members && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  while ((await nextLine()) !== 'next');
}
for (const member of joined) member.closeNotificationStream();
// Standard output to a pipe is written in the background: exit once the last line is out.
process.stdout.write(JSON.stringify({ event: 'done', sent, seen }) + '\n', () => process.exit(0));
