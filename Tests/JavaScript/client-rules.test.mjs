// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0

// The client's own rules, against scripted answers a real server does not give on demand:
// token rotation, retries only where safe, and proxies' bare statuses.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Container, RetryPolicy } from '../../Sources/NimbusWeb/Resources/js/nimbus.js';

/** A fetch that answers from a script, and records what it was asked. */
function scripted(answers) {
  const requests = [];
  const fetch = async (url, init = {}) => {
    requests.push({ url: new URL(url), init });
    const next = answers.shift();
    if (!next) throw new Error('no answer scripted');
    if (next instanceof Error) throw next;
    const { status = 200, body = {}, headers = {} } = next;
    return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status, headers });
  };
  return { fetch, requests };
}

function container(fetch, webAuthToken = 'token-1') {
  return new Container({
    containerIdentifier: 'iCloud.test',
    serverURL: 'http://nimbus.test',
    apiTokenAuth: { apiToken: 'a'.repeat(64), webAuthToken },
    retryPolicy: new RetryPolicy({ initialDelayMs: 1, maximumDelayMs: 50 }),
    fetch,
  });
}

test('a rotated token is adopted, and a late answer to an older request does not bring the old one back', async () => {
  const { fetch, requests } = scripted([
    { body: { zones: [] }, headers: { 'X-Apple-CloudKit-Web-Auth-Token': 'token-2' } },
    { body: { zones: [] } },
  ]);
  const c = container(fetch);
  await c.privateCloudDatabase.fetchAllRecordZones();
  assert.equal(c.webAuthToken, 'token-2');
  await c.privateCloudDatabase.fetchAllRecordZones();
  assert.equal(requests[1].url.searchParams.get('ckWebAuthToken'), 'token-2');
  // An answer to a request that carried token-1, arriving now, names token-3: not adopted,
  // the container already moved on from token-1.
  c.adoptRotatedToken(new Response('{}', { headers: { 'X-Apple-CloudKit-Web-Auth-Token': 'token-3' } }), 'token-1');
  assert.equal(c.webAuthToken, 'token-2');
});

test('TRY_AGAIN_LATER with retryAfter is waited out and sent again, a write included', async () => {
  const { fetch, requests } = scripted([
    { status: 503, body: { serverErrorCode: 'TRY_AGAIN_LATER', reason: 'busy', retryAfter: 0.01 } },
    { body: { records: [{ recordName: 'r', recordType: 'T', fields: {} }] } },
  ]);
  const saved = await container(fetch).privateCloudDatabase.saveRecords({ recordName: 'r', recordType: 'T', fields: {} }, { zoneID: 'Z' });
  assert.equal(saved.records[0].recordName, 'r');
  assert.equal(requests.length, 2);
});

test('a write whose answer was lost is not sent again; a read is', async () => {
  const write = scripted([new TypeError('socket hang up'), { body: { records: [] } }]);
  await assert.rejects(container(write.fetch).privateCloudDatabase.saveRecords({ recordName: 'r', recordType: 'T', fields: {} }), (error) => error.serverErrorCode === 'NETWORK_ERROR');
  assert.equal(write.requests.length, 1, 'the write may have committed: it is not sent twice');

  const read = scripted([new TypeError('socket hang up'), { body: { records: [] } }]);
  const fetched = await container(read.fetch).privateCloudDatabase.fetchRecords('r', { zoneID: 'Z' });
  assert.equal(fetched.hasErrors, false);
  assert.equal(read.requests.length, 2);
});

test("a proxy's 502 fails a write at once and retries a read; its 413 is LIMIT_EXCEEDED", async () => {
  const write = scripted([{ status: 502, body: '<html>bad gateway</html>' }]);
  await assert.rejects(container(write.fetch).privateCloudDatabase.deleteRecords('r', { zoneID: 'Z' }), (error) => error.serverErrorCode === 'TRY_AGAIN_LATER' && error.status === 502);
  assert.equal(write.requests.length, 1);
  const read = scripted([{ status: 502, body: '' }, { body: { zones: [] } }]);
  await container(read.fetch).privateCloudDatabase.fetchAllRecordZones();
  assert.equal(read.requests.length, 2);
  const large = scripted([{ status: 413, body: '' }]);
  await assert.rejects(container(large.fetch).privateCloudDatabase.saveRecords({ recordType: 'T', fields: {} }), (error) => error.serverErrorCode === 'LIMIT_EXCEEDED');
});

test('AUTHENTICATION_REQUIRED forgets the token, and tells whoever waits for the sign-out', async () => {
  const { fetch } = scripted([{ status: 421, body: { serverErrorCode: 'AUTHENTICATION_REQUIRED', reason: 'sign in', redirectURL: 'http://nimbus.test/signin/iCloud.test' } }]);
  const c = container(fetch);
  const signedOut = c.whenUserSignsOut();
  await assert.rejects(c.privateCloudDatabase.fetchAllRecordZones(), (error) => error.redirectURL.endsWith('/signin/iCloud.test'));
  await signedOut;
  assert.equal(c.isSignedIn, false);
});

test('requests carry the API token, the user token, JSON and the device ID', async () => {
  const { fetch, requests } = scripted([{ body: { records: [] } }]);
  const c = container(fetch);
  await c.publicCloudDatabase.performQuery({ recordType: 'Note' }, { resultsLimit: 5 });
  const { url, init } = requests[0];
  assert.equal(url.pathname, '/database/1/iCloud.test/development/public/records/query');
  assert.equal(url.searchParams.get('ckAPIToken'), 'a'.repeat(64));
  assert.equal(url.searchParams.get('ckWebAuthToken'), 'token-1');
  assert.equal(init.headers['Content-Type'], 'application/json');
  assert.equal(init.headers['X-Nimbus-Device-ID'], c.deviceID);
  assert.deepEqual(JSON.parse(init.body), { query: { recordType: 'Note' }, resultsLimit: 5 });
});

test('the sign-in page sends the browser back with a token: it is kept, checked against the state, and taken out of the address', async () => {
  const { fetch, requests } = scripted([{ body: { userRecordName: '_alice' } }]);
  const c = new Container({ containerIdentifier: 'iCloud.test', serverURL: 'http://nimbus.test', apiTokenAuth: { apiToken: 'a'.repeat(64) }, fetch });
  const page = c.signInPageURL({ callback: 'https://app.example.com/back', state: 's1' });
  assert.equal(page, 'http://nimbus.test/signin/iCloud.test/development?callback=https%3A%2F%2Fapp.example.com%2Fback&state=s1');

  // A browser's location and history, as the sign-in page leaves them.
  const replaced = [];
  globalThis.location = { href: 'https://app.example.com/back?ckWebAuthToken=t%2Bk&state=s1&tab=2' };
  globalThis.history = { replaceState: (_, __, url) => replaced.push(url) };
  try {
    await assert.rejects(c.completeRedirectSignIn({ expectedState: 'other' }), (error) => error.serverErrorCode === 'AUTHENTICATION_FAILED');
    assert.equal(c.isSignedIn, false, 'an answer for another page is not taken');
    const signedIn = c.whenUserSignsIn();
    const user = await c.completeRedirectSignIn({ expectedState: 's1' });
    assert.equal(user.userRecordName, '_alice');
    assert.equal((await signedIn).userRecordName, '_alice');
    assert.equal(c.webAuthToken, 't+k');
    assert.deepEqual(replaced, ['https://app.example.com/back?tab=2'], 'the token leaves the address bar');
    assert.equal(requests[0].url.searchParams.get('ckWebAuthToken'), 't+k');
  } finally {
    delete globalThis.location;
    delete globalThis.history;
  }
});
