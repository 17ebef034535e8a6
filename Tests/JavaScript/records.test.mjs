// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0

// nimbus.js against a real `nimbus serve`: sign-up, zones, records, queries and change feeds.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Container, CKError, configure, getDefaultContainer } from '../../Sources/NimbusWeb/Resources/js/nimbus.js';
import { useServer } from './server.mjs';

const fixture = useServer({ before, after, Container });

/** A new person on a new device: an anonymous account, signed in. */
async function newPerson(name) {
  const container = await fixture.newPerson(name);
  assert.ok(container.isSignedIn, 'a sign-up with only a name signs in');
  return container;
}

test('configure and getDefaultContainer give the container, with its three databases', async () => {
  configure({ containers: [{ containerIdentifier: fixture.server.container, environment: 'development', serverURL: fixture.server.url, apiTokenAuth: { apiToken: fixture.server.apiToken } }] });
  const container = getDefaultContainer();
  assert.equal(container.containerIdentifier, fixture.server.container);
  assert.equal(container.publicCloudDatabase.databaseScope, 'public');
  assert.equal(container.privateCloudDatabase.databaseScope, 'private');
  assert.equal(container.sharedCloudDatabase.databaseScope, 'shared');
  assert.equal(await container.setUpAuth(), null, 'nobody is signed in yet');
});

test('records are saved, fetched, updated with their change tag, and deleted', async () => {
  const alice = await newPerson('Alice');
  const db = alice.privateCloudDatabase;
  const zones = await db.saveRecordZones(['Notes']);
  assert.equal(zones.hasErrors, false);
  assert.equal(zones.zones[0].zoneID.zoneName, 'Notes');

  const saved = await db.saveRecords([{ recordName: 'n1', recordType: 'Note', fields: { title: { value: 'Tea' }, count: { value: 3 } } }], { zoneID: 'Notes' });
  assert.equal(saved.hasErrors, false);
  const note = saved.records[0];
  assert.ok(note.recordChangeTag);

  const fetched = await db.fetchRecords(['n1', 'missing'], { zoneID: 'Notes' });
  assert.equal(fetched.records.length, 1);
  assert.equal(fetched.records[0].fields.title.value, 'Tea');
  assert.equal(fetched.hasErrors, true);
  assert.ok(fetched.errors[0] instanceof CKError);
  assert.equal(fetched.errors[0].ckErrorCode, 'NOT_FOUND');
  assert.equal(fetched.errors[0].recordName, 'missing');

  const updated = await db.saveRecords({ ...note, fields: { title: { value: 'Coffee' } } }, { zoneID: 'Notes' });
  assert.equal(updated.hasErrors, false);
  assert.notEqual(updated.records[0].recordChangeTag, note.recordChangeTag);

  // A save from the old copy is a conflict, and carries the record as the server holds it.
  const stale = await db.saveRecords({ ...note, fields: { title: { value: 'Water' } } }, { zoneID: 'Notes' });
  assert.equal(stale.hasErrors, true);
  assert.equal(stale.errors[0].serverErrorCode, 'CONFLICT');
  assert.equal(stale.errors[0].serverRecord?.fields.title.value, 'Coffee');

  const deleted = await db.deleteRecords(updated.records[0], { zoneID: 'Notes' });
  assert.equal(deleted.hasErrors, false);
  assert.equal((await db.fetchRecords('n1', { zoneID: 'Notes' })).errors[0].serverErrorCode, 'NOT_FOUND');
});

test('a query pages through results with the response as its cursor', async () => {
  const bob = await newPerson('Bob');
  const db = bob.privateCloudDatabase;
  await db.saveRecordZones('Inbox');
  const records = Array.from({ length: 7 }, (_, i) => ({ recordName: `m${i}`, recordType: 'Message', fields: { n: { value: i } } }));
  assert.equal((await db.saveRecords(records, { zoneID: 'Inbox' })).hasErrors, false);
  const query = { recordType: 'Message', sortBy: [{ fieldName: 'n', ascending: false }] };
  let page = await db.performQuery(query, { zoneID: 'Inbox', resultsLimit: 3 });
  const seen = page.records.map((r) => r.fields.n.value);
  while (page.moreComing) {
    page = await db.performQuery(page);
    seen.push(...page.records.map((r) => r.fields.n.value));
  }
  assert.deepEqual(seen, [6, 5, 4, 3, 2, 1, 0]);
  const filtered = await db.performQuery({ recordType: 'Message', filterBy: [{ fieldName: 'n', comparator: 'GREATER_THAN_OR_EQUALS', fieldValue: { value: 5 } }] }, { zoneID: 'Inbox' });
  assert.deepEqual(filtered.records.map((r) => r.recordName).sort(), ['m5', 'm6']);
});

test('change feeds: a zone token brings back only what changed since, deletions included', async () => {
  const carol = await newPerson('Carol');
  const db = carol.privateCloudDatabase;
  await db.saveRecordZones('Feed');
  await db.saveRecords([{ recordName: 'a', recordType: 'Item', fields: {} }, { recordName: 'b', recordType: 'Item', fields: {} }], { zoneID: 'Feed' });
  const first = await db.fetchAllRecordZoneChanges('Feed');
  assert.deepEqual(first.records.map((r) => r.recordName).sort(), ['a', 'b']);
  const changes = await db.fetchDatabaseChanges();
  assert.ok(changes.zones.some((zone) => zone.zoneID.zoneName === 'Feed'));

  await db.saveRecords({ recordName: 'c', recordType: 'Item', fields: {} }, { zoneID: 'Feed' });
  await db.deleteRecords('a', { zoneID: 'Feed' });
  const next = await db.fetchAllRecordZoneChanges('Feed', first.syncToken);
  assert.deepEqual(next.records.map((r) => r.recordName), ['c']);
  assert.deepEqual(next.deleted, ['a']);
  const nothing = await db.fetchAllRecordZoneChanges('Feed', next.syncToken);
  assert.equal(nothing.records.length + nothing.deleted.length, 0);
});

test('errors come as CKError with CloudKit codes; a request without a user gets where to sign in', async () => {
  const anonymous = new Container({ containerIdentifier: fixture.server.container, serverURL: fixture.server.url, apiTokenAuth: { apiToken: fixture.server.apiToken } });
  await assert.rejects(anonymous.privateCloudDatabase.fetchAllRecordZones(), (error) => {
    assert.ok(error instanceof CKError);
    assert.equal(error.ckErrorCode, 'AUTHENTICATION_REQUIRED');
    assert.match(error.redirectURL, /\/signin\//);
    return true;
  });
  const dave = await newPerson('Dave');
  // A zone that does not exist fails the whole request, as in CloudKit.
  await assert.rejects(
    dave.privateCloudDatabase.saveRecords({ recordName: 'x', recordType: 'T', fields: {} }, { zoneID: 'NoSuchZone' }),
    (error) => error.serverErrorCode === 'ZONE_NOT_FOUND' && error.status === 404,
  );
  const wrongToken = new Container({ containerIdentifier: fixture.server.container, serverURL: fixture.server.url, apiTokenAuth: { apiToken: '0'.repeat(64) } });
  await assert.rejects(wrongToken.publicCloudDatabase.performQuery({ recordType: 'T' }), (error) => error.serverErrorCode === 'AUTHENTICATION_FAILED');
});

test('the anonymous account signs in again on the same device, and signing out ends the session', async () => {
  const erin = await newPerson('Erin');
  const first = erin.webAuthToken;
  const user = await erin.fetchCurrentUser();
  await erin.signOut();
  assert.equal(erin.isSignedIn, false);
  // The ended session's token no longer works.
  const old = new Container({ containerIdentifier: fixture.server.container, serverURL: fixture.server.url, apiTokenAuth: { apiToken: fixture.server.apiToken, webAuthToken: first } });
  await assert.rejects(old.fetchCurrentUser(), (error) => ['AUTHENTICATION_FAILED', 'AUTHENTICATION_REQUIRED'].includes(error.serverErrorCode));
  const again = await erin.signIn();
  assert.equal(again.userRecordName, user.userRecordName);
  assert.notEqual(erin.webAuthToken, first);
});
