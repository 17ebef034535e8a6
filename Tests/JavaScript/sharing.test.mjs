// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0

// nimbus.js against a real `nimbus serve`: a chat shared by link, notifications over the
// WebSocket (resumed after a drop), and a picture as an asset.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Container } from '../../Sources/NimbusWeb/Resources/js/nimbus.js';
import { useServer } from './server.mjs';

const fixture = useServer({ before, after, Container });
const newPerson = (name) => fixture.newPerson(name);

/** Resolves with the next notification the container's stream delivers that `matches`. */
function nextNotification(container, matches = () => true) {
  return new Promise((resolve) => {
    const listener = (notification) => {
      if (!matches(notification)) return;
      container.removeNotificationListener(listener);
      resolve(notification);
    };
    container.addNotificationListener(listener);
  });
}

/** Resolves once the stream's state is `state`. */
function streamState(stream, state) {
  if (stream.state === state) return Promise.resolve();
  return new Promise((resolve) => {
    const previous = stream.onStateChange;
    stream.onStateChange = (now) => {
      previous?.(now);
      if (now === state) {
        stream.onStateChange = previous;
        resolve();
      }
    };
  });
}

test('a chat shared by link: the friend joins, reads and writes; the owner removes them', async () => {
  const alice = await newPerson('Alice');
  const bob = await newPerson('Bob');
  const db = alice.privateCloudDatabase;
  await db.saveRecordZones('Chat-1');
  await db.saveRecords({ recordName: 'hello', recordType: 'Message', fields: { text: { value: 'Hi Bob' } } }, { zoneID: 'Chat-1' });
  const share = await db.shareZone('Chat-1', { title: 'Tea' });
  assert.ok(share.shortGUID);
  const link = await db.createInvitationLink({ zoneID: 'Chat-1', permission: 'READ_WRITE' });
  assert.match(link.url, /\/share\//);

  const metadata = await bob.fetchShareMetadata(link.url);
  assert.equal(metadata.share.fields['cloudkit.title'].value, 'Tea');
  const accepted = await bob.acceptShares(link.url);
  assert.equal(accepted.hasErrors, false);

  const zones = await bob.sharedCloudDatabase.fetchAllRecordZones();
  const zoneID = zones.zones.find((zone) => zone.zoneID.zoneName === 'Chat-1').zoneID;
  assert.ok(zoneID.ownerRecordName, 'a shared zone names its owner');
  const messages = await bob.sharedCloudDatabase.fetchRecords('hello', { zoneID });
  assert.equal(messages.records[0].fields.text.value, 'Hi Bob');
  const reply = await bob.sharedCloudDatabase.saveRecords({ recordName: 'reply', recordType: 'Message', fields: { text: { value: 'Hi Alice' } } }, { zoneID });
  assert.equal(reply.hasErrors, false);
  assert.equal((await db.fetchRecords('reply', { zoneID: 'Chat-1' })).records[0].fields.text.value, 'Hi Alice');

  // The owner saves the share without Bob: he is out at once.
  const current = (await db.fetchRecords(share.recordName, { zoneID: 'Chat-1' })).records[0];
  const bobUser = await bob.fetchCurrentUser();
  assert.ok(current.participants.some((p) => p.userIdentity?.userRecordName === bobUser.userRecordName));
  await db.updateShare(current, { participants: current.participants.filter((p) => p.userIdentity?.userRecordName !== bobUser.userRecordName) });
  await assert.rejects(bob.sharedCloudDatabase.fetchRecords('hello', { zoneID }), (error) => error.serverErrorCode === 'ZONE_NOT_FOUND');
});

test('notifications arrive over the WebSocket, and after a drop the stream resumes where it was', async () => {
  const carol = await newPerson('Carol');
  const phone = new Container({ containerIdentifier: fixture.server.container, serverURL: fixture.server.url, apiTokenAuth: { apiToken: fixture.server.apiToken, webAuthToken: carol.webAuthToken } });
  const db = carol.privateCloudDatabase;
  await db.saveRecordZones('Notes');
  const subscribed = await db.saveSubscriptions({ subscriptionID: 'notes', subscriptionType: 'zone', zoneID: { zoneName: 'Notes' } });
  assert.equal(subscribed.hasErrors, false);

  let reconnects = 0;
  const stream = phone.registerForNotifications({ onReconnect: () => (reconnects += 1) });
  await streamState(stream, 'open');
  const first = nextNotification(phone);
  await db.saveRecords({ recordName: 'n1', recordType: 'Note', fields: {} }, { zoneID: 'Notes' });
  const notification = await first;
  assert.equal(notification.ck?.fet?.sid, 'notes');
  const seen = stream.lastSequence;
  assert.equal(seen, notification.sequence);

  // The connection drops; a change is made meanwhile; the stream reopens after the last
  // sequence it saw, and the server replays the change.
  stream.socket.close();
  await streamState(stream, 'waiting');
  await db.saveRecords({ recordName: 'n2', recordType: 'Note', fields: {} }, { zoneID: 'Notes' });
  const replayed = await nextNotification(phone);
  assert.equal(replayed.sequence, seen + 1);
  assert.equal(reconnects, 1, 'the app is told to catch up through the change feeds');
  phone.closeNotificationStream();
});

test('a picture is uploaded with progress, saved in a record, and downloaded by a participant', async () => {
  const dan = await newPerson('Dan');
  const erin = await newPerson('Erin');
  const db = dan.privateCloudDatabase;
  await db.saveRecordZones('Photos');
  const bytes = new Uint8Array(300_000).map((_, i) => (i * 7) % 256);
  const progress = [];
  const saved = await db.saveRecords(
    { recordName: 'p1', recordType: 'Photo', fields: { image: { value: new Blob([bytes], { type: 'image/png' }) } } },
    { zoneID: 'Photos', onUploadProgress: (p) => progress.push(p) },
  );
  assert.equal(saved.hasErrors, false, JSON.stringify(saved.errors));
  assert.ok(progress.length > 0 && progress.at(-1).sent === bytes.length);
  const asset = saved.records[0].fields.image.value;
  assert.equal(asset.size, bytes.length);
  assert.ok(asset.downloadURL.includes('${f}'));
  const downloaded = new Uint8Array(await (await db.downloadAsset(asset, { fileName: 'p.png' })).arrayBuffer());
  assert.deepEqual(downloaded, bytes);

  // Shared with Erin, who reads the record and downloads the picture.
  await db.shareZone('Photos', { participants: [{ userRecordName: (await erin.fetchCurrentUser()).userRecordName, permission: 'READ_ONLY' }] });
  const share = (await db.fetchRecords('cloudkit.zoneshare', { zoneID: 'Photos' })).records[0];
  await erin.acceptShares(share.shortGUID);
  const zoneID = (await erin.sharedCloudDatabase.fetchAllRecordZones()).zones[0].zoneID;
  const seen = (await erin.sharedCloudDatabase.fetchRecords('p1', { zoneID })).records[0];
  const theirs = new Uint8Array(await (await erin.sharedCloudDatabase.downloadAsset(seen.fields.image)).arrayBuffer());
  assert.deepEqual(theirs, bytes);
  // A read-only participant may not upload into the zone: the zone is not found for them.
  await assert.rejects(
    erin.sharedCloudDatabase.uploadAsset(bytes, { recordType: 'Photo', recordName: 'p2', fieldName: 'image', zoneID }),
    (error) => error.serverErrorCode === 'ZONE_NOT_FOUND',
  );
});

test('a participant leaves; a stranger asks to join a chat that takes requests, and is let in', async () => {
  const owner = await newPerson('Olive');
  const guest = await newPerson('Gus');
  const asker = await newPerson('Ada');
  const db = owner.privateCloudDatabase;
  await db.saveRecordZones('Club');
  const root = (await db.saveRecords({ recordName: 'club', recordType: 'Chat', fields: {} }, { zoneID: 'Club' })).records[0];
  const share = await db.shareRecord(root, { zoneID: 'Club', shareName: 'share-club', requestsEnabled: true });
  assert.equal(share.requestsEnabled, true);

  // Gus joins by a single-use link, then leaves: the chat is gone from his shared database.
  const link = await db.createInvitationLink({ zoneID: 'Club', shareName: 'share-club', permission: 'READ_WRITE', singleUse: true });
  await guest.acceptShares(link.url);
  const zoneID = (await guest.sharedCloudDatabase.fetchAllRecordZones()).zones[0].zoneID;
  assert.equal((await guest.sharedCloudDatabase.fetchRecords('club', { zoneID })).records.length, 1);
  await guest.sharedCloudDatabase.leaveShare({ recordName: 'share-club', zoneID });
  await assert.rejects(guest.sharedCloudDatabase.fetchRecords('club', { zoneID }), (error) => error.serverErrorCode === 'ZONE_NOT_FOUND');
  // The used single-use link lets no one else in.
  await assert.rejects(asker.acceptShares(link.url).then((r) => (r.hasErrors ? Promise.reject(r.errors[0]) : r)), (error) => error.serverErrorCode === 'ACCESS_DENIED');

  // Ada has the chat's own link; it takes requests: she asks, and the owner lets her in.
  await assert.rejects(asker.fetchShareMetadata(share.shortGUID), (error) => error.serverErrorCode === 'ACCESS_DENIED');
  await asker.requestAccess(share.shortGUID);
  const requests = await db.fetchAccessRequests({ zoneID: 'Club', shareName: 'share-club' });
  const adaID = (await asker.fetchCurrentUser()).userRecordName;
  assert.deepEqual(requests.map((r) => [r.userRecordName, r.status]), [[adaID, 'PENDING']]);
  await db.approveAccessRequest({ zoneID: 'Club', shareName: 'share-club', userRecordName: adaID, permission: 'READ_ONLY' });
  const adaZone = (await asker.sharedCloudDatabase.fetchAllRecordZones()).zones[0].zoneID;
  assert.equal((await asker.sharedCloudDatabase.fetchRecords('club', { zoneID: adaZone })).records.length, 1);
});
