// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0

// TypeScript declarations of nimbus.js, the JavaScript client of Nimbus.

export const VERSION: string;

/** A zone's ID as the wire takes it; a plain string is a zone name of the caller's own. */
export type ZoneIDLike = string | { zoneName: string; ownerRecordName?: string } | { zoneID: ZoneID };
export interface ZoneID {
  zoneName: string;
  ownerRecordName?: string;
}

/** A field value as the wire carries it. */
export interface FieldValue<T = unknown> {
  value: T;
  type?: string;
  isEncrypted?: boolean;
}

/** A record: the plain object the server sends and takes. */
export interface CKRecord {
  recordName?: string;
  recordType: string;
  recordChangeTag?: string;
  fields: Record<string, FieldValue | { value: Blob | Uint8Array | ArrayBuffer }>;
  zoneID?: ZoneID;
  parent?: { recordName: string } | null;
  share?: { recordName: string; zoneID?: ZoneID };
  created?: { timestamp: number; userRecordName: string };
  modified?: { timestamp: number; userRecordName: string };
  deleted?: boolean;
  [extra: string]: unknown;
}

/** A grant of support access (an extension), with the reads operators made under it. */
export interface SupportGrant {
  grantID: string;
  zoneName?: string;
  createdAt: number;
  expiresAt: number;
  revokedAt?: number;
  live: boolean;
  reads: Array<{ at: number; operator: string; what: string }>;
}

/** An asset field's value as read: its checksum, size and a download URL with `${f}`. */
export interface AssetValue {
  fileChecksum: string;
  size: number;
  downloadURL?: string;
  receipt?: string;
}

export class CKError extends Error {
  readonly serverErrorCode: string;
  readonly ckErrorCode: string;
  readonly nimbusErrorCode?: string;
  readonly reason: string;
  readonly retryAfter?: number;
  readonly redirectURL?: string;
  readonly uuid?: string;
  readonly recordName?: string;
  readonly zoneID?: ZoneID;
  readonly subscriptionID?: string;
  readonly serverRecord?: CKRecord;
  /** The HTTP status of the response that carried it (0: no response). */
  readonly status: number;
  readonly isRetryable: boolean;
}

export class RetryPolicy {
  constructor(options?: { maximumAttempts?: number; initialDelayMs?: number; maximumDelayMs?: number });
  static readonly never: RetryPolicy;
  delay(attempt: number, retryAfterSeconds: number | null): number | null;
}

/** Where a container keeps its web auth token. */
export interface TokenStore {
  get(key: string): string | null;
  set(key: string, value: string): void;
  remove(key: string): void;
}
export class MemoryTokenStore implements TokenStore {
  get(key: string): string | null;
  set(key: string, value: string): void;
  remove(key: string): void;
}

export interface ContainerConfig {
  containerIdentifier: string;
  environment?: 'development' | 'production';
  /** The server's origin; a page's own origin by default. */
  serverURL?: string;
  apiTokenAuth: { apiToken: string; persist?: boolean; webAuthToken?: string; tokenStore?: TokenStore };
  retryPolicy?: RetryPolicy;
  deviceID?: string;
  fetch?: typeof fetch;
  WebSocket?: typeof WebSocket;
}

export interface Response<K extends string, T> {
  errors: CKError[];
  hasErrors: boolean;
}
export type RecordsResponse = Response<'records', CKRecord> & { records: CKRecord[] };
export type QueryResponse = RecordsResponse & { moreComing: boolean; continuationMarker: string | null };
export type ZonesResponse = Response<'zones', unknown> & { zones: Array<{ zoneID: ZoneID; syncToken?: string; moreComing?: boolean; records?: CKRecord[] }> };
export type SubscriptionsResponse = Response<'subscriptions', unknown> & { subscriptions: Array<Record<string, unknown>> };

export interface UserIdentity {
  userRecordName: string;
  isNewUser?: boolean;
  [extra: string]: unknown;
}

export class Container {
  constructor(config: ContainerConfig);
  readonly containerIdentifier: string;
  readonly environment: string;
  readonly serverURL: string;
  readonly deviceID: string;
  readonly publicCloudDatabase: Database;
  readonly privateCloudDatabase: Database;
  readonly sharedCloudDatabase: Database;
  readonly webAuthToken: string | null;
  readonly isSignedIn: boolean;

  setUpAuth(): Promise<UserIdentity | null>;
  whenUserSignsIn(): Promise<UserIdentity>;
  whenUserSignsOut(): Promise<void>;
  signUp(fields: { name: string } | { email: string; password: string; name?: string }): Promise<UserIdentity | { status: string; expiresAt: number }>;
  verify(fields: { email: string; code: string }): Promise<UserIdentity>;
  requestCode(fields: { email: string }): Promise<{ status: string; expiresAt: number }>;
  signIn(fields?: { email: string; password: string } | { anonymousCredential: string }): Promise<UserIdentity>;
  signInWithIDToken(fields: { provider: string; idToken: string; nonce?: string }): Promise<UserIdentity>;
  link(fields: { email: string; password?: string } | { provider: string; idToken: string; nonce?: string }): Promise<{ status: string; expiresAt?: number }>;
  confirmLink(fields: { email: string; code: string }): Promise<Record<string, unknown>>;
  signInPageURL(options?: { callback?: string; state?: string }): string;
  completeRedirectSignIn(options?: { expectedState?: string }): Promise<UserIdentity | null>;
  signOut(options?: { everywhere?: boolean }): Promise<void>;
  fetchAccount(): Promise<Record<string, unknown>>;
  updateAccount(fields: { name?: string; discoverable?: boolean }): Promise<Record<string, unknown>>;
  fetchSessions(): Promise<Array<Record<string, unknown>>>;
  deleteAccount(): Promise<{ zonesDeleted: number; sharesLeft: number }>;
  grantSupportAccess(options?: { hours?: number; zoneName?: string }): Promise<SupportGrant[]>;
  fetchSupportAccess(): Promise<SupportGrant[]>;
  revokeSupportAccess(grantID: string): Promise<SupportGrant[]>;
  fetchCurrentUser(): Promise<UserIdentity>;
  discoverUserIdentityWithEmailAddress(emailAddress: string): Promise<UserIdentity | null>;

  fetchShareMetadata(shortGUIDOrURL: string, options?: { shouldFetchRootRecord?: boolean }): Promise<Record<string, any>>;
  acceptShares(shortGUIDsOrURLs: string | string[]): Promise<Response<'shares', unknown> & { shares: Array<Record<string, any>> }>;
  requestAccess(shortGUIDOrURL: string): Promise<unknown>;

  addNotificationListener(listener: (notification: Record<string, any>) => void): void;
  removeNotificationListener(listener: (notification: Record<string, any>) => void): void;
  registerForNotifications(options?: { after?: number; onReconnect?: () => void; onStateChange?: (state: string) => void }): NotificationStream;
  closeNotificationStream(): void;
  fetchNotifications(options?: { after?: number; limit?: number }): Promise<{ notifications: Array<Record<string, any>>; lastSequence: number; moreComing: boolean }>;
}

export class NotificationStream {
  readonly lastSequence: number | null;
  readonly state: 'idle' | 'connecting' | 'open' | 'waiting' | 'closed';
  close(): void;
}

export interface SaveOptions {
  zoneID?: ZoneIDLike;
  atomic?: boolean;
  desiredKeys?: string[];
  operationType?: 'create' | 'update' | 'forceUpdate' | 'replace' | 'forceReplace';
  onUploadProgress?: (progress: { recordName: string; fieldName: string; sent: number; total: number }) => void;
}

export class Database {
  readonly container: Container;
  readonly databaseScope: 'public' | 'private' | 'shared';

  saveRecords(records: CKRecord | CKRecord[], options?: SaveOptions): Promise<RecordsResponse>;
  fetchRecords(names: string | CKRecord | Array<string | CKRecord>, options?: { zoneID?: ZoneIDLike; desiredKeys?: string[] }): Promise<RecordsResponse>;
  deleteRecords(records: string | CKRecord | Array<string | CKRecord>, options?: { zoneID?: ZoneIDLike; atomic?: boolean }): Promise<RecordsResponse>;
  performQuery(
    query: { recordType: string; filterBy?: unknown[]; sortBy?: unknown[] } | QueryResponse,
    options?: { zoneID?: ZoneIDLike; resultsLimit?: number; desiredKeys?: string[]; zoneWide?: boolean },
  ): Promise<QueryResponse>;

  saveRecordZones(zones: ZoneIDLike | ZoneIDLike[]): Promise<ZonesResponse>;
  deleteRecordZones(zones: ZoneIDLike | ZoneIDLike[]): Promise<ZonesResponse>;
  fetchRecordZones(zones: ZoneIDLike | ZoneIDLike[]): Promise<ZonesResponse>;
  fetchAllRecordZones(): Promise<ZonesResponse>;

  fetchDatabaseChanges(syncToken?: string, options?: { resultsLimit?: number }): Promise<{ zones: Array<{ zoneID: ZoneID; deleted?: boolean }>; syncToken: string; moreComing: boolean }>;
  fetchRecordZoneChanges(
    requests: ZoneIDLike | { zoneID: ZoneIDLike; syncToken?: string; desiredKeys?: string[]; resultsLimit?: number } | Array<{ zoneID: ZoneIDLike; syncToken?: string }>,
  ): Promise<ZonesResponse>;
  fetchAllRecordZoneChanges(zoneID: ZoneIDLike, syncToken?: string, options?: { desiredKeys?: string[]; resultsLimit?: number }): Promise<{ records: CKRecord[]; deleted: string[]; syncToken: string }>;

  saveSubscriptions(subscriptions: Record<string, unknown> | Array<Record<string, unknown>>): Promise<SubscriptionsResponse>;
  deleteSubscriptions(ids: string | string[]): Promise<SubscriptionsResponse>;
  fetchSubscriptions(ids: string | string[]): Promise<SubscriptionsResponse>;
  fetchAllSubscriptions(): Promise<SubscriptionsResponse>;

  shareRecord(
    record: CKRecord | string | null,
    options?: { zoneID?: ZoneIDLike; title?: string; publicPermission?: 'NONE' | 'READ_ONLY' | 'READ_WRITE'; participants?: Array<Record<string, unknown>>; requestsEnabled?: boolean; shareName?: string },
  ): Promise<CKRecord & { shortGUID: string; participants: Array<Record<string, any>>; publicPermission: string }>;
  shareZone(zoneID: ZoneIDLike, options?: { title?: string; publicPermission?: 'NONE' | 'READ_ONLY' | 'READ_WRITE'; participants?: Array<Record<string, unknown>>; requestsEnabled?: boolean }): Promise<CKRecord & { shortGUID: string }>;
  updateShare(share: CKRecord, changes?: { participants?: Array<Record<string, unknown>>; publicPermission?: string; requestsEnabled?: boolean; title?: string }): Promise<CKRecord>;
  leaveShare(share: CKRecord): Promise<unknown>;
  createInvitationLink(options: { zoneID: ZoneIDLike; shareName?: string; permission?: 'READ_ONLY' | 'READ_WRITE'; expiresAt?: number; singleUse?: boolean }): Promise<Record<string, any>>;
  fetchInvitationLinks(options: { zoneID: ZoneIDLike; shareName?: string }): Promise<Array<Record<string, any>>>;
  revokeInvitationLink(shortGUIDOrURL: string): Promise<Record<string, any>>;
  rotateMainLink(options: { zoneID: ZoneIDLike; shareName?: string }): Promise<{ shortGUID: string; url: string }>;
  fetchAccessRequests(options: { zoneID: ZoneIDLike; shareName?: string }): Promise<Array<Record<string, any>>>;
  approveAccessRequest(options: { zoneID: ZoneIDLike; shareName?: string; userRecordName: string; permission?: 'READ_ONLY' | 'READ_WRITE' }): Promise<Array<Record<string, any>>>;
  denyAccessRequest(options: { zoneID: ZoneIDLike; shareName?: string; userRecordName: string }): Promise<Array<Record<string, any>>>;

  uploadAsset(
    bytes: Blob | Uint8Array | ArrayBuffer,
    target: { recordType: string; recordName: string; fieldName: string; zoneID?: ZoneIDLike; onProgress?: (sent: number, total: number) => void },
  ): Promise<AssetValue>;
  downloadAsset(asset: AssetValue | FieldValue<AssetValue>, options?: { fileName?: string }): Promise<Blob>;
}

export function downloadURLOf(asset: AssetValue | FieldValue<AssetValue>, fileName?: string): string;
export function configure(config: { containers: ContainerConfig[] }): { getDefaultContainer: typeof getDefaultContainer; getContainer: typeof getContainer };
export function getDefaultContainer(): Container;
export function getContainer(containerIdentifier: string, environment?: string): Container;

declare const nimbus: {
  VERSION: string;
  configure: typeof configure;
  getDefaultContainer: typeof getDefaultContainer;
  getContainer: typeof getContainer;
  Container: typeof Container;
  Database: typeof Database;
  CKError: typeof CKError;
  RetryPolicy: typeof RetryPolicy;
  MemoryTokenStore: typeof MemoryTokenStore;
  NotificationStream: typeof NotificationStream;
  downloadURLOf: typeof downloadURLOf;
};
export default nimbus;
