// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0

// A `nimbus serve` of the build under test, on a fresh data directory and a free port of
// 127.0.0.1, for the JavaScript client's tests; `stop()` ends it.

import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { once } from 'node:events';

const binary = process.env.NIMBUS_BINARY || new URL('../../.build/debug/nimbus', import.meta.url).pathname;

export async function startServer({ environment = {}, args = [] } = {}) {
  const data = mkdtempSync(join(tmpdir(), 'nimbus-js-'));
  const env = { ...process.env, NIMBUS_LOG_LEVEL: 'info', ...environment };
  for (const name of ['NIMBUS_DATABASE_URL', 'NIMBUS_PORT', 'NIMBUS_HOSTNAME', 'NIMBUS_PUBLIC_URL', 'NIMBUS_APPS']) {
    if (!(name in environment)) delete env[name];
  }
  // The PostgreSQL pass runs the server on the suite's database, in a schema of its own.
  if (process.env.NIMBUS_TEST_DATABASE && !environment.NIMBUS_DATABASE_URL) {
    const base = process.env.NIMBUS_TEST_DATABASE;
    env.NIMBUS_DATABASE_URL = `${base}${base.includes('?') ? '&' : '?'}schema=js_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
  }
  const child = spawn(binary, ['serve', '--data', data, '--hostname', '127.0.0.1', '--port', '0', ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  const ready = new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const line = stderr.split('\n').find((text) => text.includes('Nimbus ready'));
      const match = line?.match(/http:\/\/127\.0\.0\.1:[0-9]+/);
      if (match) resolve(match[0]);
    });
    child.on('exit', (code) => reject(new Error(`nimbus serve exited with ${code}: ${stderr}`)));
  });
  const url = await ready;
  // The first start prints the quick-start container's tokens on standard output.
  const exported = (name) => stdout.match(new RegExp(`export ${name}=(\\S+)`))?.[1]?.replace(/^'|'$/g, '');
  for (let i = 0; i < 100 && !exported('NIMBUS_API_TOKEN'); i++) await once(child.stdout, 'data');
  return {
    url,
    container: exported('NIMBUS_CONTAINER'),
    apiToken: exported('NIMBUS_API_TOKEN'),
    get stderr() {
      return stderr;
    },
    async stop() {
      if (child.exitCode == null) {
        child.kill('SIGTERM');
        await once(child, 'exit');
      }
      rmSync(data, { recursive: true, force: true });
    },
  };
}

/**
 * Starts a server before the file's tests and stops it after them. Returns the running
 * server's fields (once started) and `newPerson(name)`: a new device of a new person, an
 * anonymous account signed in.
 */
export function useServer({ before, after, Container }) {
  const fixture = {
    server: null,
    async newPerson(name) {
      const { server } = fixture;
      const container = new Container({ containerIdentifier: server.container, serverURL: server.url, apiTokenAuth: { apiToken: server.apiToken } });
      await container.signUp({ name });
      return container;
    },
  };
  before(async () => {
    fixture.server = await startServer();
  });
  after(async () => {
    await fixture.server?.stop();
  });
  return fixture;
}
