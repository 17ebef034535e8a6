// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0

// nimbus.js against a real `nimbus serve`: a person grants support access, lists it, ends it.

import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Container } from '../../Sources/NimbusWeb/Resources/js/nimbus.js';
import { useServer } from './server.mjs';

const fixture = useServer({ before, after, Container });

test('a person grants support access to one zone, sees it live with no reads yet, and ends it', async () => {
  const alice = await fixture.newPerson('Alice');
  await alice.privateCloudDatabase.saveRecordZones(['Notes']);
  const granted = await alice.grantSupportAccess({ hours: 2, zoneName: 'Notes' });
  assert.equal(granted.length, 1);
  assert.equal(granted[0].zoneName, 'Notes');
  assert.equal(granted[0].live, true);
  assert.equal(granted[0].expiresAt - granted[0].createdAt, 2 * 3600 * 1000);
  assert.deepEqual((await alice.fetchSupportAccess())[0].reads, []);

  const after = await alice.revokeSupportAccess(granted[0].grantID);
  assert.equal(after[0].live, false);
  assert.ok(after[0].revokedAt >= after[0].createdAt);
  await assert.rejects(alice.revokeSupportAccess(granted[0].grantID), (error) => error.serverErrorCode === 'NOT_FOUND');
});

test('a grant of a zone the person does not have, or of too many hours, is refused', async () => {
  const bob = await fixture.newPerson('Bob');
  await assert.rejects(bob.grantSupportAccess({ zoneName: 'Nowhere' }), (error) => error.serverErrorCode === 'ZONE_NOT_FOUND');
  await assert.rejects(bob.grantSupportAccess({ hours: 1000 }), (error) => error.serverErrorCode === 'BAD_REQUEST');
  assert.deepEqual(await bob.fetchSupportAccess(), []);
});
