// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0

// The chat app, modelled on Tact, on nimbus.js. How it maps onto Nimbus (docs/chat.md):
// - a person signs up with a name alone (an anonymous account kept on this device);
// - a chat is a `Chat` record in the owner's private zone `Chats`, shared on its own (a record
//   share): messages are `Message` records whose parent is the chat, reactions `Reaction`
//   records whose parent is the message, so the share carries the whole conversation;
// - history is a query by parent, newest first, 50 at a time: no helper field;
// - people join through an invitation link (`?join=` and the link's short GUID);
// - a database subscription in the private and the shared database feeds the notification
//   stream, and any notification refreshes what is on screen;
// - a person's settings are records of their own private zone `Settings`: a `Mute` per muted
//   chat, a `ReadMarker` per chat (how far they read, on every device of theirs); the
//   subscriptions' rules read them on the server, per recipient (seed 001's notification posts):
//   nothing to the sender, reactions to the message's author only, nothing from a muted chat
//   unless it mentions you, and only a silent update for what you already read elsewhere;
// - a picture or a file is the message's `attachment` asset, with its name and type beside it;
// - a profile picture is a `Profile` record in the public database, named after its person:
//   anyone reads it, only its creator may change it.

import { configure, downloadURLOf, getDefaultContainer } from '/js/nimbus.js';

const PAGE = 50;
const ZONE = 'Chats';
const SETTINGS = 'Settings';

/** The rules every subscription of the app carries: see docs/notifications.md. */
const RULES = [
  // One's own settings, changed on another device: a quiet refresh there (the device that
  // changed them is never told of its own change).
  { name: 'my-settings', recordTypes: ['ReadMarker', 'Mute', 'Alias'], then: 'silent' },
  { name: 'not-the-sender', when: { recipientIsWriter: true }, then: 'none' },
  { name: 'reactions-to-the-author', recordTypes: ['Reaction'], when: { not: { recipientIs: '$parent.___createdBy' } }, then: 'none' },
  // Muted: no alert unless it mentions you. Silent rather than nothing, so a page with the chat
  // open still shows the message; a phone's push for it is only a background refresh.
  {
    name: 'muted-unless-mentioned',
    recordTypes: ['Message'],
    reasons: ['create'],
    when: {
      all: [
        { recipientHas: { recordType: 'Mute', zoneName: SETTINGS, filterBy: [{ fieldName: 'chat', comparator: 'EQUALS', fieldValue: { value: '$record.parent' } }] } },
        { not: { field: { of: 'record', fieldName: 'mentions', comparator: 'LIST_CONTAINS', fieldValue: { value: '$recipient' } } } },
      ],
    },
    then: 'silent',
  },
  {
    name: 'already-read',
    recordTypes: ['Message'],
    when: {
      recipientHas: {
        recordType: 'ReadMarker',
        zoneName: SETTINGS,
        filterBy: [
          { fieldName: 'chat', comparator: 'EQUALS', fieldValue: { value: '$record.parent' } },
          { fieldName: 'readThrough', comparator: 'GREATER_THAN_OR_EQUALS', fieldValue: { value: '$record.___createTime' } },
        ],
      },
    },
    then: 'silent',
  },
];
const $ = (id) => document.getElementById(id);

const state = {
  container: null,
  me: null,
  myName: '',
  chats: [],
  current: null, // {record, database, zoneID, isOwner, shareName}
  messages: [], // oldest first
  older: null, // the query response to continue from, or null
  reactions: new Map(), // message name -> [reaction records]
  mutes: new Set(), // chat record names
  readMarkers: new Map(), // chat record name -> ReadMarker record
  aliases: new Map(), // user record name -> the name this person gave them
  profiles: new Map(), // user record name -> Profile record (or null: none)
  members: [], // the open chat's participants, for mentions
  refreshing: null,
};

function status(text) {
  $('status').textContent = text;
}

function failure(error) {
  console.error(error);
  status(`Something went wrong: ${error.reason || error.message}`);
}

function chatKey(chat) {
  return `${chat.zoneID.ownerRecordName || 'mine'}/${chat.record.recordName}`;
}

function newName(prefix) {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return prefix + '-' + Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

// MARK: Starting

async function start() {
  const config = await (await fetch('config.json')).json();
  configure({ containers: [{ ...config, serverURL: location.origin, apiTokenAuth: { apiToken: config.apiToken, persist: true } }] });
  state.container = getDefaultContainer();
  const invitation = new URLSearchParams(location.search).get('join');
  let user = await state.container.setUpAuth();
  if (!user && state.container.tokenStore.get(state.container.credentialKey)) {
    // This device's anonymous account: sign in again with its credential.
    try {
      user = await state.container.signIn();
    } catch {
      user = null;
    }
  }
  if (!user) {
    showWelcome(invitation);
    return;
  }
  await enter(invitation);
}

function showWelcome(invitation) {
  $('welcome').hidden = false;
  $('app').hidden = true;
  if (invitation) {
    $('welcome-title').textContent = 'You have been invited to a chat';
    $('welcome-text').textContent = 'Choose the name the others will see, and you are in.';
  }
  $('name').focus();
  $('signin').onsubmit = async (event) => {
    event.preventDefault();
    $('welcome-error').textContent = '';
    try {
      await state.container.signIn({ email: $('signin-email').value.trim(), password: $('signin-password').value });
      await enter(invitation);
    } catch (error) {
      $('welcome-error').textContent = error.reason || error.message;
    }
  };
  $('signup').onsubmit = async (event) => {
    event.preventDefault();
    const name = $('name').value.trim();
    if (!name) return;
    $('welcome-error').textContent = '';
    try {
      await state.container.signUp({ name });
      localStorage.setItem('chat.name', name);
      await enter(invitation);
    } catch (error) {
      $('welcome-error').textContent = error.reason || error.message;
    }
  };
}

async function enter(invitation) {
  state.me = await state.container.fetchCurrentUser();
  const account = await state.container.fetchAccount().catch(() => null);
  state.myName = account?.name || localStorage.getItem('chat.name') || state.me.firstName || 'Me';
  renderAccount(account);
  $('account-toggle').hidden = false;
  $('me').textContent = `Signed in as ${state.myName}`;
  $('welcome').hidden = true;
  $('app').hidden = false;
  await ensureSetUp();
  let opened = null;
  if (invitation) {
    opened = await join(invitation);
    history.replaceState(null, '', location.pathname);
  }
  await refreshChats();
  if (opened) {
    const chat = state.chats.find((c) => c.record.recordName === opened);
    if (chat) await openChat(chat);
  } else if (state.chats.length > 0) {
    await openChat(state.chats[0]);
  }
  state.container.addNotificationListener((notification) => {
    notice(notification);
    scheduleRefresh();
  });
  state.container.registerForNotifications({ onReconnect: () => scheduleRefresh() });
  wireControls();
}

/** The zone of one's own chats, and a subscription to each database (saving one is idempotent). */
async function ensureSetUp() {
  const privateDB = state.container.privateCloudDatabase;
  const zones = await privateDB.fetchRecordZones([ZONE, SETTINGS]);
  const missing = zones.errors.map((error) => error.zoneID?.zoneName).filter(Boolean);
  if (missing.length > 0) await privateDB.saveRecordZones(missing);
  const notificationInfo = { alertBody: 'New in a chat', shouldSendContentAvailable: true };
  await privateDB.saveSubscriptions({ subscriptionID: 'chat-private', subscriptionType: 'database', notificationInfo, rules: RULES });
  await state.container.sharedCloudDatabase.saveSubscriptions({ subscriptionID: 'chat-shared', subscriptionType: 'database', notificationInfo, rules: RULES });
}

async function join(shortGUID) {
  try {
    const accepted = await state.container.acceptShares(shortGUID);
    if (accepted.hasErrors) throw accepted.errors[0];
    const share = accepted.shares[0];
    status('You joined the chat.');
    return share.rootRecordName || share.rootRecord?.recordName || null;
  } catch (error) {
    status(`That invitation did not work: ${error.reason || error.message}`);
    // A chat that takes requests says so (ACCESS_DENIED, "ask its owner"): offer to ask.
    if (error.serverErrorCode === 'ACCESS_DENIED' && /ask/i.test(error.reason || '')) {
      $('ask-area').hidden = false;
      $('ask').onclick = () =>
        state.container
          .requestAccess(shortGUID)
          .then(() => {
            $('ask-area').hidden = true;
            status("Your request was sent to the chat's owner: the chat appears here once they let you in.");
          })
          .catch(failure);
    }
    return null;
  }
}

// MARK: Chats

async function refreshChats() {
  const chats = [];
  const privateDB = state.container.privateCloudDatabase;
  const mine = await privateDB.performQuery({ recordType: 'Chat', sortBy: [{ fieldName: '___createTime', ascending: false }] }, { zoneID: ZONE, resultsLimit: 200 });
  for (const record of mine.records) chats.push({ record, database: privateDB, zoneID: { zoneName: ZONE }, isOwner: true });
  const sharedDB = state.container.sharedCloudDatabase;
  const zones = await sharedDB.fetchAllRecordZones();
  for (const zone of zones.zones) {
    const found = await sharedDB.performQuery({ recordType: 'Chat' }, { zoneID: zone.zoneID, resultsLimit: 200 });
    for (const record of found.records) chats.push({ record, database: sharedDB, zoneID: zone.zoneID, isOwner: false });
  }
  await Promise.all(chats.map(async (chat) => (chat.newest = await newestMessageTime(chat))));
  state.chats = chats;
  await loadSettings();
  renderChats();
  if (state.current && !chats.some((c) => chatKey(c) === chatKey(state.current))) {
    state.current = null;
    $('conversation').hidden = true;
    status('You are no longer in that chat.');
  } else if (state.current) {
    state.current = chats.find((c) => chatKey(c) === chatKey(state.current));
    $('chat-title').textContent = chatName(state.current);
  }
}

/** When the chat's newest message was written (0 for none). */
async function newestMessageTime(chat) {
  const page = await chat.database.performQuery(messageQuery(chat), { zoneID: chat.zoneID, resultsLimit: 1, desiredKeys: ['senderName'] });
  return page.records[0]?.created?.timestamp ?? 0;
}

function isUnread(chat) {
  const readThrough = state.readMarkers.get(chat.record.recordName)?.fields.readThrough?.value ?? 0;
  return chat.newest > readThrough && !(state.current && chatKey(chat) === chatKey(state.current));
}

/** This person's mutes and read markers, from their own private database. */
async function loadSettings() {
  const privateDB = state.container.privateCloudDatabase;
  const mutes = await privateDB.performQuery({ recordType: 'Mute' }, { zoneID: SETTINGS, resultsLimit: 200 });
  state.mutes = new Set(mutes.records.map((r) => r.fields.chat?.value));
  const markers = await privateDB.performQuery({ recordType: 'ReadMarker' }, { zoneID: SETTINGS, resultsLimit: 200 });
  state.readMarkers = new Map(markers.records.map((r) => [r.fields.chat?.value, r]));
  const aliases = await privateDB.performQuery({ recordType: 'Alias' }, { zoneID: SETTINGS, resultsLimit: 200 });
  state.aliases = new Map(aliases.records.map((r) => [r.fields.person?.value, r.fields.alias?.value]));
}

function chatName(chat) {
  return chat.record.fields.name?.value || 'Chat';
}

function renderChats() {
  const list = $('chats');
  list.replaceChildren();
  for (const chat of state.chats) {
    const item = document.createElement('li');
    const button = document.createElement('button');
    button.type = 'button';
    const notes = [];
    if (!chat.isOwner) notes.push('joined');
    if (state.mutes.has(chat.record.recordName)) notes.push('muted');
    if (isUnread(chat)) notes.push('unread');
    button.textContent = chatName(chat) + (notes.length ? ` (${notes.join(', ')})` : '');
    button.dataset.chat = chat.record.recordName;
    if (state.current && chatKey(chat) === chatKey(state.current)) button.setAttribute('aria-current', 'true');
    button.onclick = () => openChat(chat).catch(failure);
    item.append(button);
    list.append(item);
  }
}

async function createChat(name) {
  const db = state.container.privateCloudDatabase;
  const recordName = newName('chat');
  const saved = await db.saveRecords({ recordName, recordType: 'Chat', fields: { name: { value: name } } }, { zoneID: ZONE });
  if (saved.hasErrors) throw saved.errors[0];
  await db.shareRecord(saved.records[0], { zoneID: ZONE, title: name, shareName: `share-${recordName}` });
  await refreshChats();
  const chat = state.chats.find((c) => c.isOwner && c.record.recordName === recordName);
  await openChat(chat);
  status(`Created "${name}". Invite people under Members.`);
}

// MARK: A conversation

async function openChat(chat) {
  state.current = chat;
  state.messages = [];
  state.older = null;
  state.reactions = new Map();
  // Profiles are read again with each chat opened: someone may have a new picture.
  state.profiles = new Map();
  $('conversation').hidden = false;
  $('members').hidden = true;
  $('members-toggle').setAttribute('aria-expanded', 'false');
  $('invite-link').hidden = true;
  $('chat-title').textContent = chatName(chat);
  $('leave').hidden = chat.isOwner;
  $('invite-area').hidden = !chat.isOwner;
  renderMute();
  renderChats();
  await loadNewest();
  loadMembers().catch(failure);
}

function messageQuery(chat) {
  return {
    recordType: 'Message',
    filterBy: [{ fieldName: 'parent', comparator: 'EQUALS', fieldValue: { value: { recordName: chat.record.recordName }, type: 'REFERENCE' } }],
    sortBy: [{ fieldName: '___createTime', ascending: false }],
  };
}

async function loadNewest() {
  const chat = state.current;
  const page = await chat.database.performQuery(messageQuery(chat), { zoneID: chat.zoneID, resultsLimit: PAGE });
  if (state.current !== chat) return;
  // Keep older pages already loaded; the newest page replaces what it covers.
  const newest = page.records.slice().reverse();
  const names = new Set(newest.map((m) => m.recordName));
  const oldest = newest[0]?.created?.timestamp ?? Infinity;
  const kept = state.messages.filter((m) => !names.has(m.recordName) && (m.created?.timestamp ?? 0) < oldest);
  state.messages = [...kept, ...newest];
  if (kept.length === 0) state.older = page.moreComing ? page : null;
  await Promise.all([loadReactions(newest), loadProfiles(newest)]);
  renderMessages();
  await markRead();
}

async function loadOlder() {
  const chat = state.current;
  if (!state.older) return;
  const page = await chat.database.performQuery(state.older);
  if (state.current !== chat) return;
  const older = page.records.slice().reverse();
  state.messages = [...older, ...state.messages];
  state.older = page.moreComing ? page : null;
  await Promise.all([loadReactions(older), loadProfiles(older)]);
  renderMessages();
}

/** The profiles of the messages' writers not yet known (a missing one is remembered as none). */
async function loadProfiles(messages) {
  const wanted = [...new Set(messages.map((m) => m.created?.userRecordName).filter((id) => id && !state.profiles.has(id)))];
  if (wanted.length === 0) return;
  const found = await state.container.publicCloudDatabase.fetchRecords(wanted.map((id) => `profile-${id}`));
  for (const id of wanted) state.profiles.set(id, null);
  for (const record of found.records) state.profiles.set(record.recordName.slice('profile-'.length), record);
}

async function saveProfilePicture(file) {
  const id = state.me.userRecordName;
  const db = state.container.publicCloudDatabase;
  const current = (await db.fetchRecords(`profile-${id}`)).records[0];
  const record = current
    ? { ...current, fields: { ...current.fields, picture: { value: file } } }
    : { recordName: `profile-${id}`, recordType: 'Profile', fields: { name: { value: state.myName }, picture: { value: file } } };
  const saved = await db.saveRecords(record);
  if (saved.hasErrors) throw saved.errors[0];
  state.profiles.set(id, saved.records[0]);
  renderMessages();
  status('Your picture is saved.');
}

async function loadReactions(messages) {
  if (messages.length === 0) return;
  const chat = state.current;
  const query = {
    recordType: 'Reaction',
    filterBy: [{ fieldName: 'parent', comparator: 'IN', fieldValue: { value: messages.map((m) => ({ recordName: m.recordName })), type: 'REFERENCE_LIST' } }],
  };
  let page = await chat.database.performQuery(query, { zoneID: chat.zoneID, resultsLimit: 200 });
  for (const message of messages) state.reactions.set(message.recordName, []);
  for (;;) {
    for (const reaction of page.records) {
      const parent = reaction.parent?.recordName;
      if (state.reactions.has(parent)) state.reactions.get(parent).push(reaction);
    }
    if (!page.moreComing) break;
    page = await chat.database.performQuery(page);
  }
}

function renderMessages() {
  const list = $('messages');
  list.replaceChildren();
  for (const message of state.messages) list.append(renderMessage(message));
  $('older').hidden = !state.older;
  const history = list.parentElement;
  history.scrollTop = history.scrollHeight;
}

function formatSize(bytes) {
  if (bytes >= 1e6) return `${(bytes / 1e6).toFixed(1)} MB`;
  if (bytes >= 1e3) return `${Math.round(bytes / 1e3)} KB`;
  return `${bytes} bytes`;
}

function renderMessage(message) {
  const item = document.createElement('li');
  const mine = message.created?.userRecordName === state.me.userRecordName;
  item.className = 'message' + (mine ? ' mine' : '');
  item.dataset.message = message.recordName;
  const profile = state.profiles.get(message.created?.userRecordName);
  if (profile?.fields.picture?.value?.downloadURL) {
    const avatar = document.createElement('img');
    avatar.className = 'avatar';
    avatar.src = downloadURLOf(profile.fields.picture, 'avatar');
    avatar.alt = '';
    item.append(avatar);
  }
  const sender = document.createElement('span');
  sender.className = 'sender';
  const original = message.fields.senderName?.value || 'Someone';
  const alias = mine ? null : state.aliases.get(message.created?.userRecordName);
  sender.textContent = mine ? 'You' : alias || original;
  item.append(sender);
  if (alias) {
    // The name they chose, under the one only this person sees.
    const real = document.createElement('span');
    real.className = 'original-name';
    real.textContent = original;
    item.append(real);
  }
  if (message.fields.text?.value) {
    const text = document.createElement('p');
    text.className = 'text';
    text.textContent = message.fields.text.value;
    item.append(text);
  }
  const attachment = message.fields.attachment;
  if (attachment?.value?.downloadURL) {
    const name = message.fields.attachmentName?.value || 'file';
    if ((message.fields.attachmentType?.value || '').startsWith('image/')) {
      const image = document.createElement('img');
      image.src = downloadURLOf(attachment, name);
      image.alt = `Picture from ${sender.textContent}: ${name}`;
      item.append(image);
    } else {
      const link = document.createElement('a');
      link.className = 'file';
      link.href = downloadURLOf(attachment, name);
      link.download = name;
      link.textContent = `${name} (${formatSize(attachment.value.size)})`;
      item.append(link);
    }
  }
  const reactions = state.reactions.get(message.recordName) || [];
  const likes = reactions.filter((r) => r.fields.emoji?.value === '👍');
  const mineLike = likes.find((r) => r.created?.userRecordName === state.me.userRecordName);
  const row = document.createElement('div');
  row.className = 'reactions';
  const like = document.createElement('button');
  like.type = 'button';
  like.className = 'like';
  like.setAttribute('aria-pressed', mineLike ? 'true' : 'false');
  // In words, not an emoji alone: readable where no emoji font is installed.
  like.textContent = `${mineLike ? 'Liked' : 'Like'} · ${likes.length}`;
  like.setAttribute('aria-label', `${mineLike ? 'Unlike' : 'Like'} (${likes.length} ${likes.length === 1 ? 'like' : 'likes'})`);
  like.onclick = () => toggleLike(message, mineLike).catch(failure);
  row.append(like);
  item.append(row);
  return item;
}

async function send() {
  const chat = state.current;
  const text = $('text').value.trim();
  const file = $('attachment').files[0];
  if (!text && !file) return;
  const fields = { senderName: { value: state.myName } };
  if (text) fields.text = { value: text };
  // Whom a mention names is looked up in the members as they are now (people join any time).
  if (text.includes('@')) await loadMembers();
  const mentions = text ? mentionsIn(text) : [];
  if (mentions.length > 0) fields.mentions = { value: mentions, type: 'STRING_LIST' };
  if (file) {
    fields.attachment = { value: file };
    fields.attachmentName = { value: file.name || 'file' };
    fields.attachmentType = { value: file.type || 'application/octet-stream' };
  }
  const progress = $('upload-progress');
  progress.hidden = !file;
  progress.value = 0;
  const saved = await chat.database.saveRecords(
    { recordName: newName('msg'), recordType: 'Message', parent: { recordName: chat.record.recordName }, fields },
    { zoneID: chat.zoneID, onUploadProgress: ({ sent, total }) => (progress.value = total ? sent / total : 1) },
  );
  progress.hidden = true;
  if (saved.hasErrors) throw saved.errors[0];
  $('text').value = '';
  $('attachment').value = '';
  await loadNewest();
}

async function toggleLike(message, mine) {
  const chat = state.current;
  if (mine) {
    const deleted = await chat.database.deleteRecords(mine, { zoneID: chat.zoneID });
    if (deleted.hasErrors) throw deleted.errors[0];
  } else {
    const saved = await chat.database.saveRecords(
      { recordName: newName('like'), recordType: 'Reaction', parent: { recordName: message.recordName }, fields: { emoji: { value: '👍' } } },
      { zoneID: chat.zoneID },
    );
    if (saved.hasErrors) throw saved.errors[0];
  }
  await loadNewest();
}

async function rename(name) {
  const chat = state.current;
  if (!name) return;
  const saved = await chat.database.saveRecords({ ...chat.record, fields: { ...chat.record.fields, name: { value: name } } }, { zoneID: chat.zoneID });
  if (saved.hasErrors) throw saved.errors[0];
  $('rename-form').hidden = true;
  await refreshChats();
  status(`The chat is now called "${name}".`);
}

// MARK: Muting, read markers, mentions

function renderMute() {
  const muted = state.mutes.has(state.current.record.recordName);
  $('mute').textContent = muted ? 'Unmute' : 'Mute';
  $('mute').setAttribute('aria-pressed', String(muted));
}

async function toggleMute() {
  const chat = state.current;
  const privateDB = state.container.privateCloudDatabase;
  const recordName = `mute-${chat.record.recordName}`;
  if (state.mutes.has(chat.record.recordName)) {
    await privateDB.deleteRecords(recordName, { zoneID: SETTINGS });
    state.mutes.delete(chat.record.recordName);
    status(`"${chatName(chat)}" is no longer muted.`);
  } else {
    const saved = await privateDB.saveRecords({ recordName, recordType: 'Mute', fields: { chat: { value: chat.record.recordName } } }, { zoneID: SETTINGS, operationType: 'forceReplace' });
    if (saved.hasErrors) throw saved.errors[0];
    state.mutes.add(chat.record.recordName);
    status(`"${chatName(chat)}" is muted: you hear of it only when someone mentions you.`);
  }
  renderMute();
  renderChats();
}

/** Moves this person's read marker to the newest message shown (on every device of theirs). */
async function markRead() {
  const chat = state.current;
  const newest = state.messages.at(-1)?.created?.timestamp;
  if (!chat || newest == null) return;
  const current = state.readMarkers.get(chat.record.recordName);
  if ((current?.fields.readThrough?.value ?? 0) >= newest) return;
  const saved = await state.container.privateCloudDatabase.saveRecords(
    { recordName: `read-${chat.record.recordName}`, recordType: 'ReadMarker', fields: { chat: { value: chat.record.recordName }, readThrough: { value: newest, type: 'TIMESTAMP' } } },
    { zoneID: SETTINGS, operationType: 'forceReplace' },
  );
  if (!saved.hasErrors) state.readMarkers.set(chat.record.recordName, saved.records[0]);
  renderChats();
}

// MARK: The account

function renderAccount(account) {
  const linked = account?.email || (account?.providers || []).includes('email');
  const email = account?.email || localStorage.getItem('chat.email');
  $('account-state').textContent = linked
    ? `This account signs in with ${email || 'its email'} and its password on your other devices.`
    : 'Add an email and a password; a code mailed to you proves the address.';
  $('link-email').hidden = !!linked;
  $('link-code').hidden = true;
}

async function linkEmail() {
  await state.container.link({ email: $('link-address').value.trim(), password: $('link-password').value });
  $('link-email').hidden = true;
  $('link-code').hidden = false;
  $('link-code-value').focus();
  status('A code is on its way to that address.');
}

async function confirmLink() {
  const email = $('link-address').value.trim();
  await state.container.confirmLink({ email, code: $('link-code-value').value.trim() });
  localStorage.setItem('chat.email', email);
  renderAccount(await state.container.fetchAccount());
  status('Done: sign in with this email on your other devices.');
}

/** The user record names of the members a text mentions (`@Name`). */
function mentionsIn(text) {
  const mentioned = new Set();
  for (const match of text.matchAll(/@([\p{L}\p{N}_.-]+)/gu)) {
    const wanted = match[1].toLowerCase();
    for (const member of state.members) {
      const first = participantName(member).split(/\s+/)[0].toLowerCase();
      const id = member.userIdentity?.userRecordName;
      if (id && first === wanted && id !== state.me.userRecordName) mentioned.add(id);
    }
  }
  return [...mentioned];
}

async function loadMembers() {
  const share = await currentShare();
  state.members = share?.participants || [];
}

/**
 * A visible notification: a line on screen for the person. Silent ones (a message already
 * read on another device) only refresh; the rules decided both on the server.
 */
function notice(notification) {
  if (notification.ck?.nimbus?.decision !== 'visible') return;
  const kinds = new Set((notification.ck.nimbus.changes || []).map((change) => change.rt));
  const item = document.createElement('li');
  item.textContent = kinds.has('Message') ? 'New message' : kinds.has('Reaction') ? 'Someone reacted to your message' : 'A chat changed';
  item.dataset.records = (notification.ck.nimbus.changes || []).map((change) => change.rid).join(' ');
  $('notices').prepend(item);
}

// MARK: Members

async function currentShare() {
  const chat = state.current;
  const shareName = chat.record.share?.recordName;
  if (!shareName) return null;
  const found = await chat.database.fetchRecords(shareName, { zoneID: chat.zoneID });
  return found.records[0] || null;
}

function participantName(participant) {
  const identity = participant.userIdentity || {};
  const components = identity.nameComponents || {};
  return [components.givenName, components.familyName].filter(Boolean).join(' ') || identity.lookupInfo?.emailAddress || identity.userRecordName || 'Someone';
}

async function showMembers() {
  const share = await currentShare();
  renderJoinable(share);
  await showRequests();
  const list = $('member-list');
  list.replaceChildren();
  for (const participant of share?.participants || []) {
    const item = document.createElement('li');
    const isMe = participant.userIdentity?.userRecordName === state.me.userRecordName;
    const role =
      participant.type === 'OWNER' ? 'owner' : participant.acceptanceStatus !== 'ACCEPTED' ? 'invited' : participant.type === 'PUBLIC_USER' ? 'joined by link' : 'member';
    const id = participant.userIdentity?.userRecordName;
    const alias = isMe ? null : state.aliases.get(id);
    item.textContent = `${isMe ? 'You' : alias ? `${alias} (${participantName(participant)})` : participantName(participant)} (${role})`;
    if (!isMe && id) {
      const rename = document.createElement('button');
      rename.type = 'button';
      rename.textContent = 'Rename for me';
      rename.setAttribute('aria-label', `Rename ${participantName(participant)} for me`);
      rename.onclick = () => askAlias(id, alias || participantName(participant));
      item.append(' ', rename);
    }
    if (state.current.isOwner && participant.type !== 'OWNER') {
      const remove = document.createElement('button');
      remove.type = 'button';
      remove.textContent = 'Remove';
      remove.setAttribute('aria-label', `Remove ${participantName(participant)}`);
      remove.onclick = () => removeMember(share, participant).catch(failure);
      item.append(' ', remove);
    }
    list.append(item);
  }
}

function askAlias(userRecordName, current) {
  $('alias-form').hidden = false;
  $('alias-form').dataset.person = userRecordName;
  $('alias').value = current;
  $('alias').focus();
}

/** Saves the name only this person sees for someone; a blank one goes back to theirs. */
async function saveAlias(userRecordName, alias) {
  const privateDB = state.container.privateCloudDatabase;
  const recordName = `alias-${userRecordName}`;
  if (alias) {
    const saved = await privateDB.saveRecords(
      { recordName, recordType: 'Alias', fields: { person: { value: userRecordName }, alias: { value: alias } } },
      { zoneID: SETTINGS, operationType: 'forceReplace' },
    );
    if (saved.hasErrors) throw saved.errors[0];
    state.aliases.set(userRecordName, alias);
  } else {
    await privateDB.deleteRecords(recordName, { zoneID: SETTINGS });
    state.aliases.delete(userRecordName);
  }
  $('alias-form').hidden = true;
  renderMessages();
  await showMembers();
}

async function removeMember(share, participant) {
  await state.current.database.updateShare(share, { participants: share.participants.filter((p) => p !== participant) });
  status(`${participantName(participant)} was removed.`);
  await showMembers();
}

function joinURL(shortGUID) {
  return `${location.origin}${location.pathname}?join=${encodeURIComponent(shortGUID)}`;
}

/** A link that lets one person in, once: they join as a member, as one invited by name. */
async function invite() {
  const chat = state.current;
  const link = await chat.database.createInvitationLink({ zoneID: chat.zoneID, shareName: chat.record.share.recordName, permission: 'READ_WRITE', singleUse: true });
  const field = $('invite-link');
  field.value = joinURL(link.shortGUID);
  field.hidden = false;
  field.select();
  status('Send this link to one person: it lets one person in.');
  return field.value;
}

/** The joinable state of the open chat's share (seed 000: "publishing a link"). */
function renderJoinable(share) {
  if (!state.current?.isOwner || !share) return;
  const joinable = share.publicPermission && share.publicPermission !== 'NONE';
  $('joinable-state').textContent = joinable ? 'Anyone with the joinable link can join.' : 'Only the people you invite can join.';
  $('publish').hidden = joinable;
  $('rotate').hidden = !joinable;
  $('unpublish').hidden = !joinable;
  $('joinable-link').hidden = !joinable;
  if (joinable) $('joinable-link').value = joinURL(share.shortGUID);
  const asking = !!share.requestsEnabled;
  $('requests-toggle').setAttribute('aria-pressed', String(asking));
  $('requests-toggle').textContent = asking ? 'Stop taking requests to join' : 'Let people ask to join';
  $('request-link').hidden = !asking || joinable;
  if (asking) $('request-link').value = joinURL(share.shortGUID);
}

/** Whether people who have the chat's link may ask to join (the owner decides). */
async function toggleRequests() {
  const share = await currentShare();
  await state.current.database.updateShare(share, { requestsEnabled: !share.requestsEnabled });
  await showMembers();
}

/** The pending requests to join, each with Approve and Deny. */
async function showRequests() {
  const chat = state.current;
  const list = $('request-list');
  list.replaceChildren();
  if (!chat?.isOwner) return;
  const requests = await chat.database.fetchAccessRequests({ zoneID: chat.zoneID, shareName: chat.record.share.recordName });
  for (const request of requests.filter((r) => r.status === 'PENDING')) {
    const item = document.createElement('li');
    item.textContent = `Someone asks to join (${new Date(request.requestedAt).toLocaleTimeString()}) `;
    for (const [label, approve] of [
      ['Let them in', true],
      ['Refuse', false],
    ]) {
      const button = document.createElement('button');
      button.type = 'button';
      button.textContent = label;
      button.onclick = () => answerRequest(request.userRecordName, approve).catch(failure);
      item.append(button, ' ');
    }
    list.append(item);
  }
}

async function answerRequest(userRecordName, approve) {
  const chat = state.current;
  const target = { zoneID: chat.zoneID, shareName: chat.record.share.recordName, userRecordName };
  if (approve) await chat.database.approveAccessRequest({ ...target, permission: 'READ_WRITE' });
  else await chat.database.denyAccessRequest(target);
  status(approve ? 'They are in.' : 'Refused: they cannot ask again.');
  await showMembers();
}

/**
 * Makes the chat joinable (the share's public permission), or private again. Going private
 * removes those who joined by the link and keeps those who were invited: Nimbus's rule, where
 * CloudKit removed everyone (docs/sharing.md).
 */
async function setJoinable(joinable) {
  const share = await currentShare();
  await state.current.database.updateShare(share, { publicPermission: joinable ? 'READ_WRITE' : 'NONE' });
  status(joinable ? 'Anyone with the joinable link can join now.' : 'Private again: those who joined by the link are out; invited members stay.');
  await showMembers();
}

/** A new joinable link; the old one stops working, and nobody who joined is removed. */
async function rotateJoinable() {
  const chat = state.current;
  await chat.database.rotateMainLink({ zoneID: chat.zoneID, shareName: chat.record.share.recordName });
  status('The old joinable link no longer works.');
  await showMembers();
}

/** Tact's "New direct message": a chat for two, and a link for the one other person. */
async function newDirectMessage() {
  await createChat('Direct message');
  $('members').hidden = false;
  $('members-toggle').setAttribute('aria-expanded', 'true');
  await showMembers();
  await invite();
  status('Send this link to the person you want to talk to.');
}

async function leave() {
  const chat = state.current;
  await state.container.sharedCloudDatabase.leaveShare({ recordName: chat.record.share.recordName, zoneID: chat.zoneID });
  state.current = null;
  $('conversation').hidden = true;
  await refreshChats();
  status(`You left "${chatName(chat)}".`);
}

// MARK: Live updates

/** Refreshes the chat list and the open conversation, one refresh at a time. */
function scheduleRefresh() {
  if (state.refreshing) {
    state.refreshing.again = true;
    return;
  }
  const run = { again: false };
  state.refreshing = run;
  (async () => {
    do {
      run.again = false;
      await refreshChats();
      if (state.current) await loadNewest();
    } while (run.again);
  })()
    .catch(failure)
    .finally(() => (state.refreshing = null));
}

function wireControls() {
  $('new-chat').onsubmit = (event) => {
    event.preventDefault();
    const name = $('chat-name').value.trim();
    if (!name) return;
    $('chat-name').value = '';
    createChat(name).catch(failure);
  };
  $('composer').onsubmit = (event) => {
    event.preventDefault();
    send().catch(failure);
  };
  $('older').onclick = () => loadOlder().catch(failure);
  $('rename').onclick = () => {
    $('rename-form').hidden = false;
    $('new-name').value = chatName(state.current);
    $('new-name').focus();
  };
  $('rename-form').onsubmit = (event) => {
    event.preventDefault();
    rename($('new-name').value.trim()).catch(failure);
  };
  $('members-toggle').onclick = () => {
    const members = $('members');
    members.hidden = !members.hidden;
    $('members-toggle').setAttribute('aria-expanded', String(!members.hidden));
    if (!members.hidden) showMembers().catch(failure);
  };
  $('invite').onclick = () => invite().catch(failure);
  $('publish').onclick = () => setJoinable(true).catch(failure);
  $('unpublish').onclick = () => setJoinable(false).catch(failure);
  $('rotate').onclick = () => rotateJoinable().catch(failure);
  $('new-dm').onclick = () => newDirectMessage().catch(failure);
  $('requests-toggle').onclick = () => toggleRequests().catch(failure);
  $('mute').onclick = () => toggleMute().catch(failure);
  $('alias-form').onsubmit = (event) => {
    event.preventDefault();
    saveAlias($('alias-form').dataset.person, $('alias').value.trim()).catch(failure);
  };
  $('account-toggle').onclick = () => {
    const panel = $('account');
    panel.hidden = !panel.hidden;
    $('account-toggle').setAttribute('aria-expanded', String(!panel.hidden));
  };
  $('profile-form').onsubmit = (event) => {
    event.preventDefault();
    const file = $('profile-picture').files[0];
    if (file) saveProfilePicture(file).catch(failure);
  };
  $('link-email').onsubmit = (event) => {
    event.preventDefault();
    linkEmail().catch(failure);
  };
  $('link-code').onsubmit = (event) => {
    event.preventDefault();
    confirmLink().catch(failure);
  };
  $('leave').onclick = () => leave().catch(failure);
}

start().catch(failure);
