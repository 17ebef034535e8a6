// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0

/**
 * nimbus.js: the JavaScript client of Nimbus, for browsers and Node 20 or later.
 *
 * One ES module, no dependencies, no build step. Its names and shapes are CloudKit JS's where
 * CloudKit JS has them (`configure`, `getDefaultContainer`, `privateCloudDatabase`,
 * `saveRecords`, responses with `records` and `hasErrors`), and the CloudKit Web Services wire
 * format everywhere else: a record is the plain object the server sends and takes.
 *
 * @module nimbus
 */

/** The version of this client. */
export const VERSION = '1.0.0';

const AUTH_HEADER = 'x-apple-cloudkit-web-auth-token';
const DEVICE_HEADER = 'X-Nimbus-Device-ID';

/**
 * An error the server (or the client, for a request it could not send) reported, with
 * CloudKit's codes: `serverErrorCode` and its CloudKit JS name `ckErrorCode` are the same.
 */
export class CKError extends Error {
  constructor(fields) {
    super(fields.reason || fields.serverErrorCode || 'unknown error');
    this.name = 'CKError';
    /** CloudKit's code, such as `NOT_FOUND`, `CONFLICT`, `AUTHENTICATION_REQUIRED`. */
    this.serverErrorCode = fields.serverErrorCode || 'INTERNAL_ERROR';
    /** The finer code Nimbus adds to some errors (`CHANGE_TOKEN_EXPIRED`, `LIMIT_EXCEEDED`). */
    this.nimbusErrorCode = fields.nimbusErrorCode;
    /** What went wrong, in words. */
    this.reason = fields.reason || '';
    /** Seconds to wait before trying again, when the server said. */
    this.retryAfter = fields.retryAfter;
    /** Where to sign in, on `AUTHENTICATION_REQUIRED`. */
    this.redirectURL = fields.redirectURL;
    /** The server's ID of the failed request. */
    this.uuid = fields.uuid;
    /** The record, zone or subscription a per-item error is about. */
    this.recordName = fields.recordName;
    this.zoneID = fields.zoneID;
    this.subscriptionID = fields.subscriptionID;
    /** The record as the server holds it, on `CONFLICT` and `EXISTS`. */
    this.serverRecord = fields.serverRecord;
    /** The HTTP status of the response that carried it (0: no response). */
    this.status = fields.status ?? 0;
    /** Whether a proxy in front of the server answered (no CloudKit error in the body). */
    this.fromProxy = !!fields.fromProxy;
  }

  /** CloudKit JS's name for `serverErrorCode`. */
  get ckErrorCode() {
    return this.serverErrorCode;
  }

  /** Whether a later attempt may succeed (the server did not do the work). */
  get isRetryable() {
    return this.serverErrorCode === 'TRY_AGAIN_LATER' || this.serverErrorCode === 'THROTTLED';
  }
}

/** Turns a per-item error dictionary of a response into a `CKError`. */
function itemError(item) {
  return new CKError({ ...item, zoneID: item.zoneID });
}

/** Whether a response item is an error dictionary rather than a record, zone or subscription. */
function isItemError(item) {
  return item && typeof item === 'object' && typeof item.serverErrorCode === 'string';
}

/**
 * When to send a request again: only what the server says it did not do, and a write only
 * when the server said when (`retryAfter`); reads are also sent again after a lost answer.
 */
export class RetryPolicy {
  constructor({ maximumAttempts = 5, initialDelayMs = 250, maximumDelayMs = 60000 } = {}) {
    this.maximumAttempts = Math.max(1, maximumAttempts);
    this.initialDelayMs = initialDelayMs;
    this.maximumDelayMs = maximumDelayMs;
  }

  /** The wait in milliseconds before attempt `attempt + 1`, or `null` to give up. */
  delay(attempt, retryAfterSeconds) {
    if (attempt >= this.maximumAttempts) return null;
    if (retryAfterSeconds != null) {
      const wait = retryAfterSeconds * 1000;
      return wait <= this.maximumDelayMs ? wait : null;
    }
    const exponential = this.initialDelayMs * 2 ** Math.min(attempt - 1, 16);
    return Math.min(exponential * (0.5 + Math.random() / 2), this.maximumDelayMs);
  }
}

/** Sends each request once. */
RetryPolicy.never = new RetryPolicy({ maximumAttempts: 1 });

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Where a container keeps its web auth token between page loads: `localStorage` in a browser
 * (`persist: true`), memory otherwise. Any object with `get(key)`, `set(key, value)` and
 * `remove(key)` will do, for instance one backed by a file in Node.
 */
export class MemoryTokenStore {
  constructor() {
    this.values = new Map();
  }
  get(key) {
    return this.values.get(key) ?? null;
  }
  set(key, value) {
    this.values.set(key, value);
  }
  remove(key) {
    this.values.delete(key);
  }
}

/** `localStorage`, when there is one. */
class LocalStorageTokenStore {
  get(key) {
    return globalThis.localStorage.getItem(key);
  }
  set(key, value) {
    globalThis.localStorage.setItem(key, value);
  }
  remove(key) {
    globalThis.localStorage.removeItem(key);
  }
}

function defaultTokenStore(persist) {
  if (persist && typeof globalThis.localStorage !== 'undefined') return new LocalStorageTokenStore();
  return new MemoryTokenStore();
}

function randomID() {
  const bytes = new Uint8Array(16);
  globalThis.crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** A zone ID as the wire takes it: a name, or `{zoneName, ownerRecordName}`. */
function zoneIDOf(zone) {
  if (zone == null) return undefined;
  if (typeof zone === 'string') return { zoneName: zone };
  if (zone.zoneID) return zone.zoneID;
  return zone;
}

function asArray(value) {
  if (value == null) return [];
  return Array.isArray(value) ? value : [value];
}

function isBlobLike(value) {
  return (
    (typeof Blob !== 'undefined' && value instanceof Blob) ||
    value instanceof Uint8Array ||
    value instanceof ArrayBuffer
  );
}

/**
 * One container environment: its databases, its users' sign-in, its notifications.
 * Made by `configure`; `getDefaultContainer()` and `getContainer(id)` return it.
 */
export class Container {
  constructor(config) {
    if (!config || !config.containerIdentifier) throw new TypeError('a container needs a containerIdentifier');
    const auth = config.apiTokenAuth || {};
    if (!auth.apiToken) throw new TypeError('a container needs apiTokenAuth.apiToken');
    this.containerIdentifier = config.containerIdentifier;
    this.environment = config.environment || 'development';
    this.serverURL = (config.serverURL || (globalThis.location ? globalThis.location.origin : '')).replace(/\/+$/, '');
    if (!this.serverURL) throw new TypeError('a container needs a serverURL outside a browser');
    this.apiToken = auth.apiToken;
    this.tokenStore = auth.tokenStore || defaultTokenStore(auth.persist);
    this.tokenKey = `nimbus.webAuthToken.${this.containerIdentifier}.${this.environment}`;
    this.credentialKey = `nimbus.anonymousCredential.${this.containerIdentifier}.${this.environment}`;
    if (auth.webAuthToken) this.tokenStore.set(this.tokenKey, auth.webAuthToken);
    this.retryPolicy = config.retryPolicy || new RetryPolicy();
    this.fetch = config.fetch || globalThis.fetch.bind(globalThis);
    this.WebSocket = config.WebSocket || globalThis.WebSocket;
    /** Names this device, so its own changes are not notified back to it. */
    this.deviceID = config.deviceID || randomID();
    this.signInListeners = new Set();
    this.signOutListeners = new Set();
    this.notificationListeners = new Set();
    this.notificationStream = null;
    this.publicCloudDatabase = new Database(this, 'public');
    this.privateCloudDatabase = new Database(this, 'private');
    this.sharedCloudDatabase = new Database(this, 'shared');
  }

  /** The web auth token of the signed-in user, or `null`. */
  get webAuthToken() {
    return this.tokenStore.get(this.tokenKey);
  }

  /** Whether a user is signed in (as far as this device knows). */
  get isSignedIn() {
    return this.webAuthToken != null;
  }

  /** `/database/1/{container}/{environment}` */
  get containerPath() {
    return `/database/1/${encodeURIComponent(this.containerIdentifier)}/${this.environment}`;
  }

  /** The URL of a path with the container's tokens. */
  url(path, { withUser = true, query = {} } = {}) {
    const params = new URLSearchParams({ ckAPIToken: this.apiToken });
    const token = this.webAuthToken;
    if (withUser && token) params.set('ckWebAuthToken', token);
    for (const [name, value] of Object.entries(query)) if (value != null) params.set(name, String(value));
    return `${this.serverURL}${path}?${params}`;
  }

  /**
   * Sends a JSON request and returns the parsed answer; a CloudKit error becomes a thrown
   * `CKError`. `idempotent` says whether sending it twice is harmless (reads).
   */
  async request(path, body, { idempotent = false, method } = {}) {
    let attempt = 0;
    for (;;) {
      attempt += 1;
      const sentToken = this.webAuthToken;
      let response;
      try {
        response = await this.fetch(this.url(path), {
          method: method || (body === undefined ? 'GET' : 'POST'),
          headers: body === undefined ? { [DEVICE_HEADER]: this.deviceID } : { 'Content-Type': 'application/json', [DEVICE_HEADER]: this.deviceID },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (cause) {
        const lost = new CKError({ serverErrorCode: 'NETWORK_ERROR', reason: `no response from the server: ${cause.message}` });
        const wait = idempotent ? this.retryPolicy.delay(attempt, null) : null;
        if (wait == null) throw lost;
        await sleep(wait);
        continue;
      }
      this.adoptRotatedToken(response, sentToken);
      const text = await response.text();
      let json = null;
      try {
        json = text ? JSON.parse(text) : {};
      } catch {
        json = null;
      }
      if (response.ok) {
        if (json == null) throw new CKError({ serverErrorCode: 'INTERNAL_ERROR', reason: 'the answer is not JSON', status: response.status });
        return json;
      }
      const error = this.errorOf(response, json);
      if (error.serverErrorCode === 'AUTHENTICATION_REQUIRED' && sentToken) this.forgetUser();
      const wait = this.waitBeforeRetry(error, attempt, idempotent);
      if (wait == null) throw error;
      await sleep(wait);
    }
  }

  errorOf(response, json) {
    if (json && typeof json.serverErrorCode === 'string') return new CKError({ ...json, status: response.status });
    const retryAfter = Number(response.headers.get('retry-after')) || undefined;
    if (response.status === 413) return new CKError({ serverErrorCode: 'LIMIT_EXCEEDED', reason: 'the request is larger than a proxy accepts', status: 413 });
    if (response.status === 429) return new CKError({ serverErrorCode: 'THROTTLED', reason: 'HTTP 429 from a proxy', retryAfter, status: 429, fromProxy: true });
    if (response.status >= 502 && response.status <= 504) {
      return new CKError({ serverErrorCode: 'TRY_AGAIN_LATER', reason: `HTTP ${response.status} from a proxy`, retryAfter, status: response.status, fromProxy: true });
    }
    return new CKError({ serverErrorCode: 'INTERNAL_ERROR', reason: `HTTP ${response.status} without a CloudKit error`, status: response.status });
  }

  /** The wait before sending again, or `null`: see `RetryPolicy`. */
  waitBeforeRetry(error, attempt, idempotent) {
    if (!error.isRetryable) return null;
    // A proxy's 502-504 may hide work the server did: only a read goes again.
    const unsure = error.fromProxy && error.status >= 502;
    if (unsure) return idempotent ? this.retryPolicy.delay(attempt, error.retryAfter ?? null) : null;
    // The server (or a proxy's 429) did not do the work: with a retryAfter anything goes again.
    if (error.retryAfter != null) return this.retryPolicy.delay(attempt, error.retryAfter);
    return idempotent ? this.retryPolicy.delay(attempt, null) : null;
  }

  /**
   * Takes the fresh token a response names (the server rotates tokens past half their life),
   * unless another response already replaced the token that request carried.
   */
  adoptRotatedToken(response, sentToken) {
    const rotated = response.headers.get(AUTH_HEADER);
    if (!rotated || !sentToken || rotated === sentToken) return;
    if (this.webAuthToken !== sentToken) return;
    this.tokenStore.set(this.tokenKey, rotated);
  }

  // MARK: Signing in

  /** `POST /auth/1/{container}/{environment}/{action}` */
  async auth(action, body = {}) {
    const path = `/auth/1/${encodeURIComponent(this.containerIdentifier)}/${this.environment}/${action}`;
    return this.request(path, body);
  }

  /** Keeps the session an answer started, and tells the sign-in listeners. */
  async adoptSession(answer) {
    if (answer.anonymousCredential) this.tokenStore.set(this.credentialKey, answer.anonymousCredential);
    this.tokenStore.set(this.tokenKey, answer.ckWebAuthToken);
    const identity = { userRecordName: answer.userRecordName, isNewUser: !!answer.isNewUser };
    for (const listener of this.signInListeners) listener(identity);
    return identity;
  }

  /**
   * Signs up. With only `{name}`: an anonymous account on this device (Tact's way), signed in at
   * once. With `{email, password, name}`: a code is mailed; `verify` it to finish.
   */
  async signUp(fields) {
    const answer = await this.auth('signup', fields);
    return answer.ckWebAuthToken ? this.adoptSession(answer) : answer;
  }

  /** Finishes a sign-up, or a sign-in by emailed code, with the code. */
  async verify({ email, code }) {
    return this.adoptSession(await this.auth('verify', { email, code }));
  }

  /** Mails a one-time sign-in code. */
  async requestCode({ email }) {
    return this.auth('code', { email });
  }

  /**
   * Signs in with `{email, password}`, or with this device's anonymous account (no argument,
   * or `{anonymousCredential}`).
   */
  async signIn(fields) {
    const body = fields || { anonymousCredential: this.tokenStore.get(this.credentialKey) };
    if (!body.email && !body.anonymousCredential) throw new CKError({ serverErrorCode: 'AUTHENTICATION_REQUIRED', reason: 'nobody signed up on this device' });
    return this.adoptSession(await this.auth('signin', body));
  }

  /** Exchanges a provider's ID token (`{provider, idToken, nonce}`). */
  async signInWithIDToken(fields) {
    return this.adoptSession(await this.auth('token', fields));
  }

  /**
   * Adds a way to sign in to the signed-in account: an ID token (`{provider, idToken, nonce}`)
   * at once, or an email (`{email, password}`), which mails a code to `confirmLink` with.
   */
  async link(fields) {
    return this.auth('link', fields);
  }

  /** Finishes linking an email with the code mailed to it; the account then signs in with it. */
  async confirmLink({ email, code }) {
    const answer = await this.auth('verify', { email, code });
    if (answer.ckWebAuthToken) await this.adoptSession(answer);
    return answer;
  }

  /** The signed-in person's account: name, email, discoverability, ways to sign in. */
  async fetchAccount() {
    const answer = await this.auth('account', {});
    return answer.account ?? answer;
  }

  /** Changes the signed-in person's name or discoverability. */
  async updateAccount(fields) {
    const answer = await this.auth('account', fields);
    return answer.account ?? answer;
  }

  /**
   * The URL of the container's sign-in page: it signs the person in (or up) and sends the
   * browser to `callback` with `ckWebAuthToken` and `state` in the query.
   */
  signInPageURL({ callback, state } = {}) {
    const params = new URLSearchParams({ callback: callback || globalThis.location.href.split('?')[0] });
    if (state) params.set('state', state);
    return `${this.serverURL}/signin/${encodeURIComponent(this.containerIdentifier)}/${this.environment}?${params}`;
  }

  /**
   * Finishes the redirect flow on the page the sign-in page sent the browser back to: keeps
   * the token, takes it out of the address bar, and returns the user (or `null`).
   */
  async completeRedirectSignIn({ expectedState } = {}) {
    const url = new URL(globalThis.location.href);
    const token = url.searchParams.get('ckWebAuthToken');
    if (!token) return null;
    if (expectedState != null && url.searchParams.get('state') !== expectedState) {
      throw new CKError({ serverErrorCode: 'AUTHENTICATION_FAILED', reason: 'the sign-in answer is not for this page (state differs)' });
    }
    url.searchParams.delete('ckWebAuthToken');
    url.searchParams.delete('state');
    globalThis.history?.replaceState(null, '', url.toString());
    this.tokenStore.set(this.tokenKey, token);
    const user = await this.fetchCurrentUser();
    for (const listener of this.signInListeners) listener(user);
    return user;
  }

  /**
   * CloudKit JS's start: finishes a redirect sign-in if this page is one, and returns the
   * signed-in user, or `null` when nobody is.
   */
  async setUpAuth() {
    if (globalThis.location && new URL(globalThis.location.href).searchParams.has('ckWebAuthToken')) {
      return this.completeRedirectSignIn();
    }
    if (!this.isSignedIn) return null;
    try {
      return await this.fetchCurrentUser();
    } catch (error) {
      if (error.serverErrorCode === 'AUTHENTICATION_REQUIRED' || error.serverErrorCode === 'AUTHENTICATION_FAILED') return null;
      throw error;
    }
  }

  /** Resolves with the user at their next sign-in. */
  whenUserSignsIn() {
    return new Promise((resolve) => {
      const listener = (user) => {
        this.signInListeners.delete(listener);
        resolve(user);
      };
      this.signInListeners.add(listener);
    });
  }

  /** Resolves at the next sign-out (or when the server no longer takes the token). */
  whenUserSignsOut() {
    return new Promise((resolve) => {
      const listener = () => {
        this.signOutListeners.delete(listener);
        resolve();
      };
      this.signOutListeners.add(listener);
    });
  }

  forgetUser() {
    this.tokenStore.remove(this.tokenKey);
    this.closeNotificationStream();
    for (const listener of this.signOutListeners) listener();
  }

  /** Ends this device's session (or, with `{everywhere: true}`, every session of the user). */
  async signOut({ everywhere = false } = {}) {
    if (this.isSignedIn) {
      try {
        if (everywhere) await this.auth('sessions', { all: true });
        else await this.auth('signout', {});
      } catch (error) {
        if (error.serverErrorCode !== 'AUTHENTICATION_REQUIRED' && error.serverErrorCode !== 'AUTHENTICATION_FAILED') throw error;
      }
    }
    this.forgetUser();
  }

  /** The signed-in person's sessions (devices), and which one is this. */
  async fetchSessions() {
    return (await this.auth('sessions', {})).sessions;
  }

  /** Deletes the signed-in person's account and everything of theirs, then forgets them here. */
  async deleteAccount() {
    const answer = await this.auth('delete', { confirm: true });
    this.tokenStore.remove(this.credentialKey);
    this.forgetUser();
    return answer;
  }

  /** `users/current`: the signed-in user's record name (and name). */
  async fetchCurrentUser() {
    return this.request(`${this.containerPath}/public/users/current`, undefined, { idempotent: true });
  }

  /** Finds users who let others find them, by email address. */
  async discoverUserIdentityWithEmailAddress(emailAddress) {
    const answer = await this.request(`${this.containerPath}/public/users/lookup/email`, { users: [{ emailAddress }] }, { idempotent: true });
    return answer.users?.[0] ?? null;
  }

  // MARK: Support access (an extension)

  /**
   * Lets the server's operators read the signed-in person's data in the console for `hours`
   * (1 to 168; 24 by default), all of it or one zone of their private database. Every read is
   * recorded: `fetchSupportAccess()` lists them. Answers with the person's grants, newest first.
   */
  async grantSupportAccess({ hours, zoneName } = {}) {
    return (await this.request(`${this.containerPath}/private/users/support/grant`, { hours, zoneName })).grants;
  }

  /** The signed-in person's support grants, newest first, each with the reads made under it. */
  async fetchSupportAccess() {
    return (await this.request(`${this.containerPath}/private/users/support/list`, {}, { idempotent: true })).grants;
  }

  /** Ends a support grant: operators' reads under it stop at once. */
  async revokeSupportAccess(grantID) {
    return (await this.request(`${this.containerPath}/private/users/support/revoke`, { grantID })).grants;
  }

  // MARK: Sharing outside a database

  /** What a share URL's short GUID is to the caller (`records/resolve`), without joining it. */
  async fetchShareMetadata(shortGUID, { shouldFetchRootRecord = true } = {}) {
    const answer = await this.request(`${this.containerPath}/shared/records/resolve`, { shortGUIDs: [{ value: shortGUIDOf(shortGUID), shouldFetchRootRecord }] }, { idempotent: true });
    const result = answer.results?.[0] ?? answer.shares?.[0] ?? answer;
    if (isItemError(result)) throw itemError(result);
    return result;
  }

  /** Joins the shares of these short GUIDs (`records/accept`). */
  async acceptShares(shortGUIDs) {
    const answer = await this.request(`${this.containerPath}/shared/records/accept`, { shortGUIDs: asArray(shortGUIDs).map((g) => ({ value: shortGUIDOf(g) })) });
    return responseOf(answer.results ?? answer.shares ?? [], 'shares');
  }

  /** Asks the owner of a share that takes requests to let the caller join. */
  async requestAccess(shortGUID) {
    return this.request(`${this.containerPath}/shared/requests/create`, { shortGUID: shortGUIDOf(shortGUID) });
  }

  // MARK: Notifications

  /** Calls `listener(notification)` for each notification of the signed-in user's stream. */
  addNotificationListener(listener) {
    this.notificationListeners.add(listener);
  }

  removeNotificationListener(listener) {
    this.notificationListeners.delete(listener);
  }

  /**
   * Opens the notification stream (a WebSocket) and keeps it open: after a drop it reconnects
   * and the server replays what followed the last sequence this device saw, as far as the
   * inbox (seven days) still holds it. `onReconnect` runs once a reconnection is open: fetch
   * the change feeds then, which is cheap when nothing was missed and complete when it was.
   * @param {{after?: number, onReconnect?: Function, onStateChange?: Function}} options
   */
  registerForNotifications(options = {}) {
    if (this.notificationStream) return this.notificationStream;
    this.notificationStream = new NotificationStream(this, options);
    this.notificationStream.start();
    return this.notificationStream;
  }

  closeNotificationStream() {
    this.notificationStream?.close();
    this.notificationStream = null;
  }

  /** The inbox after `after` (an extension): `{notifications, lastSequence, moreComing}`. */
  async fetchNotifications({ after = 0, limit } = {}) {
    return this.request(`${this.containerPath}/notifications/inbox`, { after, limit }, { idempotent: true });
  }
}

/** A short GUID from itself or from a share URL (`.../share/{shortGUID}`). */
function shortGUIDOf(value) {
  const text = String(value);
  const match = text.match(/\/share\/([^/?#]+)/);
  return match ? decodeURIComponent(match[1]) : text;
}

/** A CloudKit JS response: the good items under `key`, the failed ones as `errors`. */
function responseOf(items, key) {
  const good = [];
  const errors = [];
  for (const item of items || []) (isItemError(item) ? errors : good).push(isItemError(item) ? itemError(item) : item);
  return { [key]: good, errors, hasErrors: errors.length > 0 };
}

/**
 * The notification stream of the signed-in user: one WebSocket, reopened after drops from the
 * last sequence seen.
 */
export class NotificationStream {
  constructor(container, { after, onReconnect, onStateChange, maximumDelayMs = 30000 } = {}) {
    this.container = container;
    this.lastSequence = after ?? null;
    this.onReconnect = onReconnect;
    this.opened = false;
    this.onStateChange = onStateChange;
    this.maximumDelayMs = maximumDelayMs;
    this.socket = null;
    this.closed = false;
    this.failures = 0;
    this.state = 'idle';
  }

  setState(state) {
    this.state = state;
    this.onStateChange?.(state);
  }

  start() {
    if (this.closed) return;
    const container = this.container;
    const query = { deviceID: container.deviceID };
    if (this.lastSequence != null) query.after = this.lastSequence;
    const url = container.url(`${container.containerPath}/notifications/ws`, { query }).replace(/^http/, 'ws');
    this.setState('connecting');
    const socket = new container.WebSocket(url);
    this.socket = socket;
    socket.onopen = () => {
      this.failures = 0;
      this.setState('open');
      if (this.opened) this.onReconnect?.();
      this.opened = true;
    };
    socket.onmessage = (event) => this.receive(event.data);
    // A failed handshake ends in `error` alone with some clients (Node 20's stays CONNECTING,
    // with no `close`): either event ends this socket, once.
    const ended = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      try {
        socket.close();
      } catch {}
      if (this.closed) return;
      this.setState('waiting');
      this.failures += 1;
      const wait = Math.min(250 * 2 ** Math.min(this.failures - 1, 10), this.maximumDelayMs) * (0.5 + Math.random() / 2);
      this.timer = setTimeout(() => this.start(), wait);
    };
    socket.onclose = ended;
    socket.onerror = ended;
  }

  receive(data) {
    let message;
    try {
      message = JSON.parse(typeof data === 'string' ? data : new TextDecoder().decode(data));
    } catch {
      return;
    }
    const sequence = message.sequence;
    if (typeof sequence === 'number') this.lastSequence = Math.max(this.lastSequence ?? 0, sequence);
    for (const listener of this.container.notificationListeners) listener(message);
  }

  close() {
    this.closed = true;
    clearTimeout(this.timer);
    const socket = this.socket;
    this.socket = null;
    socket?.close();
    this.setState('closed');
  }
}

/**
 * One database of a container: public, private or shared.
 */
export class Database {
  constructor(container, scope) {
    this.container = container;
    /** `public`, `private` or `shared`. */
    this.databaseScope = scope;
  }

  path(operation) {
    return `${this.container.containerPath}/${this.databaseScope}/${operation}`;
  }

  async post(operation, body, options) {
    return this.container.request(this.path(operation), body, options);
  }

  // MARK: Records

  /**
   * Saves records (one or an array). A record with a `recordChangeTag` is updated (a
   * `CONFLICT` if someone saved it since), one without is created; `options.operationType`
   * (`forceUpdate`, `replace`, `forceReplace`) chooses otherwise. A field whose value is a
   * `Blob`, `File` or `Uint8Array` is uploaded first as an asset (`options.onUploadProgress`).
   * @returns {Promise<{records: object[], errors: CKError[], hasErrors: boolean}>}
   */
  async saveRecords(records, options = {}) {
    const list = asArray(records);
    const prepared = [];
    for (const record of list) prepared.push(await this.uploadAssetFields(record, options));
    const body = {
      operations: prepared.map((record) => ({
        operationType: options.operationType || (record.recordChangeTag ? 'update' : 'create'),
        record,
        ...(options.desiredKeys ? { desiredKeys: options.desiredKeys } : {}),
      })),
    };
    if (options.zoneID) body.zoneID = zoneIDOf(options.zoneID);
    if (options.atomic != null) body.atomic = options.atomic;
    const answer = await this.post('records/modify', body);
    return responseOf(answer.records, 'records');
  }

  /** Fetches records by name (or by record objects), in order; absent ones are `NOT_FOUND` errors. */
  async fetchRecords(recordNames, options = {}) {
    const body = {
      records: asArray(recordNames).map((item) => ({ recordName: typeof item === 'string' ? item : item.recordName })),
    };
    if (options.zoneID) body.zoneID = zoneIDOf(options.zoneID);
    if (options.desiredKeys) body.desiredKeys = options.desiredKeys;
    const answer = await this.post('records/lookup', body, { idempotent: true });
    return responseOf(answer.records, 'records');
  }

  /**
   * Deletes records (names or record objects). A record with a `recordChangeTag` is deleted
   * only if nobody changed it since; a name alone is deleted whatever it holds.
   */
  async deleteRecords(records, options = {}) {
    const body = {
      operations: asArray(records).map((item) => {
        const record = typeof item === 'string' ? { recordName: item } : { recordName: item.recordName, recordChangeTag: item.recordChangeTag };
        return { operationType: record.recordChangeTag ? 'delete' : 'forceDelete', record };
      }),
    };
    if (options.zoneID) body.zoneID = zoneIDOf(options.zoneID);
    if (options.atomic != null) body.atomic = options.atomic;
    const answer = await this.post('records/modify', body);
    return responseOf(answer.records, 'records');
  }

  /**
   * Runs a query: `{recordType, filterBy, sortBy}` in CloudKit's shape. Pass the response back
   * (`performQuery(response)`) for the next page while `response.moreComing`.
   */
  async performQuery(queryOrResponse, options = {}) {
    const previous = queryOrResponse && queryOrResponse.continuationMarker !== undefined && queryOrResponse.query ? queryOrResponse : null;
    const query = previous ? previous.query : queryOrResponse;
    const settings = previous ? previous.options : options;
    const body = { query };
    if (settings.zoneID) body.zoneID = zoneIDOf(settings.zoneID);
    if (settings.resultsLimit) body.resultsLimit = settings.resultsLimit;
    if (settings.desiredKeys) body.desiredKeys = settings.desiredKeys;
    if (settings.zoneWide) body.zoneWide = true;
    if (previous) body.continuationMarker = previous.continuationMarker;
    const answer = await this.post('records/query', body, { idempotent: true });
    const response = responseOf(answer.records, 'records');
    response.continuationMarker = answer.continuationMarker ?? null;
    response.moreComing = !!answer.continuationMarker;
    response.query = query;
    response.options = settings;
    return response;
  }

  // MARK: Zones

  /** Creates zones (names or `{zoneName}`). */
  async saveRecordZones(zones) {
    const answer = await this.post('zones/modify', { operations: asArray(zones).map((zone) => ({ operationType: 'create', zone: { zoneID: zoneIDOf(zone) } })) });
    return responseOf(answer.zones, 'zones');
  }

  /** Deletes zones with everything in them. */
  async deleteRecordZones(zones) {
    const answer = await this.post('zones/modify', { operations: asArray(zones).map((zone) => ({ operationType: 'delete', zone: { zoneID: zoneIDOf(zone) } })) });
    return responseOf(answer.zones, 'zones');
  }

  /** Fetches zones by ID. */
  async fetchRecordZones(zones) {
    const answer = await this.post('zones/lookup', { zones: asArray(zones).map((zone) => ({ zoneID: zoneIDOf(zone) })) }, { idempotent: true });
    return responseOf(answer.zones, 'zones');
  }

  /** Every zone of the database. */
  async fetchAllRecordZones() {
    const answer = await this.post('zones/list', undefined, { idempotent: true });
    return responseOf(answer.zones, 'zones');
  }

  // MARK: Change feeds

  /**
   * The zones that changed since `syncToken` (none: all): `{zones, syncToken, moreComing}`.
   * Keep the answer's `syncToken` for the next call.
   */
  async fetchDatabaseChanges(syncToken, options = {}) {
    const body = {};
    if (syncToken) body.syncToken = syncToken;
    if (options.resultsLimit) body.resultsLimit = options.resultsLimit;
    const answer = await this.post('changes/database', body, { idempotent: true });
    return { zones: answer.zones || [], syncToken: answer.syncToken, moreComing: !!answer.moreComing };
  }

  /**
   * The record changes of zones since their tokens: `[{zoneID, syncToken, desiredKeys,
   * resultsLimit}]` (or one such object). Each zone of the answer has `records` (deleted ones
   * with `deleted: true`), a `syncToken` and `moreComing`.
   */
  async fetchRecordZoneChanges(zoneRequests) {
    const zones = asArray(zoneRequests).map((request) => {
      const zone = { zoneID: zoneIDOf(request.zoneID ?? request) };
      for (const key of ['syncToken', 'desiredKeys', 'resultsLimit', 'recordFields']) if (request[key] != null) zone[key] = request[key];
      return zone;
    });
    const answer = await this.post('changes/zone', { zones }, { idempotent: true });
    return responseOf(answer.zones, 'zones');
  }

  /**
   * Every change of one zone since `syncToken`, following `moreComing` to the end; returns
   * `{records, deleted, syncToken}` (records saved, names deleted, the token to keep).
   */
  async fetchAllRecordZoneChanges(zoneID, syncToken, options = {}) {
    const records = new Map();
    const deleted = new Set();
    let token = syncToken;
    for (;;) {
      const response = await this.fetchRecordZoneChanges({ zoneID, syncToken: token, ...options });
      if (response.hasErrors) throw response.errors[0];
      const zone = response.zones[0];
      for (const record of zone.records || []) {
        if (record.deleted) {
          records.delete(record.recordName);
          deleted.add(record.recordName);
        } else {
          deleted.delete(record.recordName);
          records.set(record.recordName, record);
        }
      }
      token = zone.syncToken;
      if (!zone.moreComing) break;
    }
    return { records: [...records.values()], deleted: [...deleted], syncToken: token };
  }

  // MARK: Subscriptions

  /** Saves subscriptions (`{subscriptionID, subscriptionType, query, zoneID, firesOn, rules, notificationInfo}`). */
  async saveSubscriptions(subscriptions) {
    const answer = await this.post('subscriptions/modify', { operations: asArray(subscriptions).map((subscription) => ({ operationType: 'create', subscription })) });
    return responseOf(answer.subscriptions, 'subscriptions');
  }

  /** Deletes subscriptions by ID. */
  async deleteSubscriptions(subscriptionIDs) {
    const answer = await this.post('subscriptions/modify', {
      operations: asArray(subscriptionIDs).map((id) => ({ operationType: 'delete', subscription: { subscriptionID: typeof id === 'string' ? id : id.subscriptionID } })),
    });
    return responseOf(answer.subscriptions, 'subscriptions');
  }

  /** Fetches subscriptions by ID. */
  async fetchSubscriptions(subscriptionIDs) {
    const answer = await this.post('subscriptions/lookup', { subscriptions: asArray(subscriptionIDs).map((subscriptionID) => ({ subscriptionID })) }, { idempotent: true });
    return responseOf(answer.subscriptions, 'subscriptions');
  }

  /** Every subscription of the caller in this database. */
  async fetchAllSubscriptions() {
    const answer = await this.post('subscriptions/list', undefined, { idempotent: true });
    return responseOf(answer.subscriptions, 'subscriptions');
  }

  // MARK: Sharing

  /**
   * Shares a record (saved, in a custom zone of the private database) or a whole zone
   * (`{zoneID}` without a record): creates the share, or returns the one that exists.
   * `participants` are `{emailAddress | userRecordName, permission}`; `publicPermission` is
   * `NONE` (default), `READ_ONLY` or `READ_WRITE`.
   */
  async shareRecord(record, { zoneID, title, publicPermission = 'NONE', participants = [], requestsEnabled, shareName } = {}) {
    const zone = zoneIDOf(zoneID ?? record?.zoneID);
    const share = {
      recordName: shareName || (record ? `share-${randomID()}` : 'cloudkit.zoneshare'),
      recordType: 'cloudkit.share',
      fields: title ? { 'cloudkit.title': { value: title } } : {},
      publicPermission,
      participants: participants.map(participantOf),
    };
    if (record) share.forRecord = { recordName: record.recordName ?? record };
    if (requestsEnabled != null) share.requestsEnabled = requestsEnabled;
    const answer = await this.post('records/modify', { zoneID: zone, operations: [{ operationType: 'create', record: share }] });
    const result = answer.records?.[0];
    if (isItemError(result)) {
      if (result.serverErrorCode === 'EXISTS' && result.serverRecord) return result.serverRecord;
      throw itemError(result);
    }
    return result;
  }

  /** Shares a whole zone: see `shareRecord`. */
  async shareZone(zoneID, options = {}) {
    return this.shareRecord(null, { ...options, zoneID });
  }

  /**
   * Saves a share's new participant list and settings (the list is the whole list: those left
   * out are removed). `share` is the share record as read, with its `recordChangeTag`.
   */
  async updateShare(share, changes = {}) {
    const record = {
      recordName: share.recordName,
      recordType: 'cloudkit.share',
      recordChangeTag: share.recordChangeTag,
      fields: share.fields || {},
      publicPermission: changes.publicPermission ?? share.publicPermission,
      participants: (changes.participants ?? share.participants ?? []).filter((p) => p.type !== 'OWNER').map(participantOf),
    };
    if (changes.requestsEnabled != null || share.requestsEnabled != null) record.requestsEnabled = changes.requestsEnabled ?? share.requestsEnabled;
    if (changes.title != null) record.fields = { ...record.fields, 'cloudkit.title': { value: changes.title } };
    const zone = zoneIDOf(share.zoneID);
    const answer = await this.post('records/modify', { zoneID: zone, operations: [{ operationType: 'update', record }] });
    const result = answer.records?.[0];
    if (isItemError(result)) throw itemError(result);
    return result;
  }

  /** Leaves a share the caller joined (shared database): removes the caller's participation. */
  async leaveShare(share) {
    const answer = await this.post('records/modify', {
      zoneID: zoneIDOf(share.zoneID),
      operations: [{ operationType: 'forceDelete', record: { recordName: share.recordName } }],
    });
    const result = answer.records?.[0];
    if (isItemError(result)) throw itemError(result);
    return result;
  }

  /** Makes an extra invitation link: `{zoneID, shareName, permission, expiresAt, singleUse}`. */
  async createInvitationLink(options) {
    const answer = await this.post('links/create', { ...options, zoneID: zoneIDOf(options.zoneID) });
    return answer.links[0];
  }

  /** The extra links of a share, oldest first. */
  async fetchInvitationLinks({ zoneID, shareName }) {
    return (await this.post('links/list', { zoneID: zoneIDOf(zoneID), shareName }, { idempotent: true })).links;
  }

  /** Revokes an extra link. */
  async revokeInvitationLink(shortGUID) {
    return (await this.post('links/revoke', { shortGUID: shortGUIDOf(shortGUID) })).links[0];
  }

  /** Gives a share a new main link; the old one stops working. */
  async rotateMainLink({ zoneID, shareName }) {
    return this.post('links/rotate', { zoneID: zoneIDOf(zoneID), shareName });
  }

  /** The pending requests to join a share (owner or administrator). */
  async fetchAccessRequests({ zoneID, shareName }) {
    return (await this.post('requests/list', { zoneID: zoneIDOf(zoneID), shareName }, { idempotent: true })).requests;
  }

  /** Lets a requester join, with `permission` (`READ_ONLY` or `READ_WRITE`). */
  async approveAccessRequest({ zoneID, shareName, userRecordName, permission = 'READ_WRITE' }) {
    return (await this.post('requests/approve', { zoneID: zoneIDOf(zoneID), shareName, userRecordName, permission })).requests;
  }

  /** Refuses a requester; they cannot ask again. */
  async denyAccessRequest({ zoneID, shareName, userRecordName }) {
    return (await this.post('requests/deny', { zoneID: zoneIDOf(zoneID), shareName, userRecordName })).requests;
  }

  // MARK: Assets

  /**
   * Uploads bytes (`Blob`, `File`, `Uint8Array` or `ArrayBuffer`) for a record's field and
   * returns the dictionary to put in that field (`{value: dictionary}`), valid for 12 hours.
   * `onProgress(sent, total)` reports the upload in a browser (and at its end in Node).
   */
  async uploadAsset(bytes, { recordType, recordName, fieldName, zoneID, onProgress } = {}) {
    if (!recordType || !recordName || !fieldName) throw new TypeError('an asset needs the recordType, recordName and fieldName it is for');
    const body = { tokens: [{ recordType, recordName, fieldName }] };
    if (zoneID) body.zoneID = zoneIDOf(zoneID);
    const answer = await this.post('assets/upload', body);
    const token = answer.tokens?.[0];
    if (!token || isItemError(token)) throw token ? itemError(token) : new CKError({ serverErrorCode: 'INTERNAL_ERROR', reason: 'no upload URL' });
    const blob = bytes instanceof Blob ? bytes : new Blob([bytes]);
    const text = await sendBytes(token.url, blob, onProgress, this.container.fetch);
    const json = JSON.parse(text);
    if (isItemError(json)) throw itemError(json);
    return json.singleFile;
  }

  /** Uploads the fields of a record whose values are bytes, and returns the record to save. */
  async uploadAssetFields(record, options) {
    const fields = record.fields || {};
    let copy = null;
    for (const [name, field] of Object.entries(fields)) {
      const value = field && typeof field === 'object' && 'value' in field ? field.value : field;
      if (!isBlobLike(value)) continue;
      if (!record.recordName) throw new TypeError('a record with an asset needs a recordName before it is saved');
      const uploaded = await this.uploadAsset(value, {
        recordType: record.recordType,
        recordName: record.recordName,
        fieldName: name,
        zoneID: options.zoneID ?? record.zoneID,
        onProgress: options.onUploadProgress && ((sent, total) => options.onUploadProgress({ recordName: record.recordName, fieldName: name, sent, total })),
      });
      copy = copy || { ...record, fields: { ...fields } };
      copy.fields[name] = { value: uploaded };
    }
    return copy || record;
  }

  /** The bytes of an asset field as read (`record.fields.photo.value`), as a `Blob`. */
  async downloadAsset(asset, { fileName = 'file' } = {}) {
    const url = downloadURLOf(asset, fileName);
    const response = await this.container.fetch(url);
    if (!response.ok) {
      let json = null;
      try {
        json = await response.json();
      } catch {}
      throw this.container.errorOf(response, json);
    }
    return response.blob();
  }
}

/** An asset's download URL with its `${f}` placeholder filled. */
export function downloadURLOf(asset, fileName = 'file') {
  const url = asset?.downloadURL ?? asset?.value?.downloadURL;
  if (!url) throw new TypeError('the asset has no downloadURL (was it read back from the server?)');
  return url.replace('${f}', encodeURIComponent(fileName));
}

function participantOf(participant) {
  if (participant.userIdentity) return participant;
  const lookupInfo = {};
  for (const key of ['emailAddress', 'phoneNumber', 'userRecordName']) if (participant[key]) lookupInfo[key] = participant[key];
  return { type: 'USER', permission: participant.permission || 'READ_WRITE', userIdentity: { lookupInfo } };
}

/** POSTs bytes with upload progress: `XMLHttpRequest` where there is one, `fetch` otherwise. */
function sendBytes(url, blob, onProgress, fetchFunction) {
  const headers = { 'Content-Type': blob.type || 'application/octet-stream' };
  // A File's name goes with it, so downloads offer it back.
  if (blob.name) headers['Content-Disposition'] = `attachment; filename="${blob.name.replace(/["\\\r\n]/g, '_')}"`;
  if (typeof XMLHttpRequest !== 'undefined') {
    return new Promise((resolve, reject) => {
      const request = new XMLHttpRequest();
      request.open('POST', url);
      for (const [name, value] of Object.entries(headers)) request.setRequestHeader(name, value);
      if (onProgress) request.upload.onprogress = (event) => onProgress(event.loaded, event.total || blob.size);
      request.onload = () => resolve(request.responseText);
      request.onerror = () => reject(new CKError({ serverErrorCode: 'NETWORK_ERROR', reason: 'the upload failed' }));
      request.send(blob);
    });
  }
  return fetchFunction(url, { method: 'POST', headers, body: blob }).then(async (response) => {
    onProgress?.(blob.size, blob.size);
    return response.text();
  });
}

const containers = new Map();
let defaultContainer = null;

/**
 * Configures the containers to use (CloudKit JS's `configure`):
 * `{containers: [{containerIdentifier, environment, serverURL, apiTokenAuth: {apiToken,
 * persist, webAuthToken}}]}`. The first is the default.
 */
export function configure(config) {
  const list = config?.containers;
  if (!Array.isArray(list) || list.length === 0) throw new TypeError('configure takes {containers: [...]}');
  containers.clear();
  defaultContainer = null;
  for (const item of list) {
    const container = new Container(item);
    containers.set(`${container.containerIdentifier}/${container.environment}`, container);
    defaultContainer = defaultContainer || container;
  }
  return { getDefaultContainer, getContainer };
}

/** The first configured container. */
export function getDefaultContainer() {
  if (!defaultContainer) throw new CKError({ serverErrorCode: 'BAD_REQUEST', reason: 'call configure first' });
  return defaultContainer;
}

/** A configured container by identifier (and environment, when both are configured). */
export function getContainer(containerIdentifier, environment) {
  for (const container of containers.values()) {
    if (container.containerIdentifier === containerIdentifier && (!environment || container.environment === environment)) return container;
  }
  throw new CKError({ serverErrorCode: 'BAD_REQUEST', reason: `container ${containerIdentifier} is not configured` });
}

export default { VERSION, configure, getDefaultContainer, getContainer, Container, Database, CKError, RetryPolicy, MemoryTokenStore, NotificationStream, downloadURLOf };
