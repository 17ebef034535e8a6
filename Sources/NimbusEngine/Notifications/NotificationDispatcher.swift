//===----------------------------------------------------------------------===//
// This source file is part of the Nimbus open source project
// Copyright (c) 2026 the Nimbus project authors
// SPDX-License-Identifier: Apache-2.0
//===----------------------------------------------------------------------===//

public import Logging
public import NimbusModel
public import NimbusStore
import Synchronization

/// Turns the outbox's committed writes into inbox entries, after commit and off the writer's
/// path, then hands them to the hub.
///
/// Each pass takes a batch of rows out of the outbox and, in the same transaction, writes
/// their entries: a crash before its commit is durable leaves the rows for the next pass (or
/// another instance), a crash after leaves the entries in the inboxes. A pass that wrote
/// entries waits for its commit to be durable; one that wrote none may not, and is then
/// undone by a crash, which leaves its rows to be taken again. Nothing is lost; a recipient
/// may see an entry twice only through a reconnect's overlap, with the same notification ID.
public final class NotificationDispatcher: Sendable {
    /// Outbox rows claimed per transaction.
    static let batchSize = 20

    let store: any NotificationStore
    let signal: ChangeSignal
    /// Where new entries go once written.
    public let hub: NotificationHub
    let makeID: @Sendable () -> String
    /// This instance's name in announcements, to tell its own from others'.
    let instanceID: String
    let pollInterval: Duration
    let batchDelay: Duration
    /// The clock its polls and delays are measured on.
    let clock: any NimbusClock
    let logger: Logger
    /// Failed attempts of events that failed on their own.
    private let failures = Mutex<[EventKey: Int]>([:])

    /// Creates a dispatcher.
    /// - Parameters:
    ///   - store: The outbox and inboxes.
    ///   - signal: Fired by writers after commit (``DatabaseService/changeSignal``).
    ///   - hub: Where entries go after they are written.
    ///   - makeID: Makes notification IDs.
    ///   - pollInterval: How often to look for rows nobody signalled (left by a crash, or by
    ///     another instance that stopped).
    ///   - batchDelay: How long to wait after a writer's signal before dispatching, so a burst
    ///     of writes is handled in fewer transactions; zero by default.
    ///   - clock: The clock its polls and delays are measured on.
    ///   - logger: For failed passes.
    public init(
        store: any NotificationStore,
        signal: ChangeSignal,
        hub: NotificationHub,
        makeID: @escaping @Sendable () -> String,
        pollInterval: Duration = .seconds(2),
        batchDelay: Duration = .zero,
        clock: any NimbusClock,
        logger: Logger
    ) {
        self.store = store
        self.signal = signal
        self.hub = hub
        self.makeID = makeID
        self.instanceID = makeID()
        self.pollInterval = pollInterval
        self.batchDelay = batchDelay
        self.clock = clock
        self.logger = logger
    }

    /// Handles outbox rows until none are left; returns the entries written.
    /// - Parameter probing: whether to look for rows before a write transaction: most polls
    ///   find nothing, and a read says so without one. After a writer's signal there is a row.
    @discardableResult
    public func dispatchPending(probing: Bool = true) async throws -> [InboxEntry] {
        var written: [InboxEntry] = []
        if probing, try await !store.hasPendingEvents() { return written }
        while true {
            let handled: Int
            let entries: [InboxEntry]
            var alone = false
            do {
                (handled, entries) = try await dispatch(limit: Self.batchSize)
            } catch {
                // One event may be what fails: handle them one at a time, so one that keeps
                // failing is set aside instead of holding up everyone else's.
                (handled, entries) = try await dispatchOne()
                alone = true
            }
            hub.publish(entries)
            written += entries
            if handled == 0 || (!alone && handled < Self.batchSize) { return written }
        }
    }

    /// One transaction: takes up to `limit` events and writes their entries. `taking` learns
    /// each event taken, before it is handled, and `nil` as each run of the transaction starts
    /// (one that lost a race runs again, and may take another event, or fail before it takes).
    private func dispatch(limit: Int, taking: (@Sendable (ChangeEvent?) -> Void)? = nil) async throws -> (Int, [InboxEntry]) {
        let makeID = makeID
        let instanceID = instanceID
        return try await store.dispatch { storeTransaction in
            taking?(nil)
            let transaction = AudienceMemo(storeTransaction)
            let taken = try await transaction.takeEvents(limit: limit)
            let events = taken.events
            if let taking { events.forEach(taking) }
            try await transaction.prefetchAudiences(of: events, known: taken.audiences)
            var entries: [InboxEntry] = []
            // Creations whose record a later write of the same zone changed again before this
            // pass: that write's row reports the record, and must report it created.
            var carried: [String: Set<NameKey>] = [:]
            for var event in events {
                let zoneKey = "\(event.tenant)/\(event.zoneName)"
                event.note.created.formUnion(carried.removeValue(forKey: zoneKey) ?? [])
                let (written, movedOn) = try await Self.handle(event, in: transaction, makeID: makeID)
                if !movedOn.isEmpty { carried[zoneKey, default: []].formUnion(movedOn) }
                entries += written
            }
            try await transaction.announce(entries, from: instanceID)
            return (events.count, entries)
        }
    }

    /// The oldest event alone. If it fails ``maximumAttempts`` times it is removed and logged:
    /// an event nothing can turn into notifications must not stop the others.
    private func dispatchOne() async throws -> (Int, [InboxEntry]) {
        // The transaction that took it rolled back, and the event with it: this is what it took.
        let taken = Mutex<ChangeEvent?>(nil)
        do {
            let result = try await dispatch(limit: 1) { event in taken.withLock { $0 = event } }
            if let event = taken.withLock({ $0 }) { failures.withLock { $0[EventKey(event)] = nil } }
            return result
        } catch {
            guard let event = taken.withLock({ $0 }) else { throw error }
            let key = EventKey(event)
            let attempts = failures.withLock { failures in
                failures[key, default: 0] += 1
                return failures[key] ?? 0
            }
            guard attempts >= Self.maximumAttempts else { throw error }
            try await store.dispatch { transaction in try await transaction.finish([event]) }
            failures.withLock { $0[key] = nil }
            logger.error(
                "Dropped a change that could not be turned into notifications",
                metadata: [
                    LogKey.zone: "\(event.tenant)/\(event.zoneName)", LogKey.counter: "\(event.counterThrough)",
                    LogKey.error: "\(String(reflecting: error))",
                ]
            )
            return (1, [])
        }
    }

    /// A deleted zone notifies the database subscriptions of its owner and of the participants
    /// who lost it, and the zone subscriptions on it; query subscriptions have no record to
    /// match (CloudKit does not fire them either).
    private static func handleZoneDeletion(
        _ event: ChangeEvent,
        in transaction: any NotificationTransaction,
        makeID: @Sendable () -> String
    ) async throws -> [InboxEntry] {
        let tenant = event.tenant
        let container = ContainerEnvironment(container: tenant.container, environment: tenant.environment)
        let zoneID = ZoneID(zoneName: event.zoneName, ownerRecordName: tenant.owner)
        var audience: [(NotificationPlanner.Recipient, [Subscription])] = []
        let own = try await transaction.subscriptions(of: [tenant.owner], scope: .private, in: container)
        audience.append((.init(userRecordName: tenant.owner, scope: .private, shares: nil), own.map(\.subscription)))
        let theirs = try await transaction.subscriptions(of: event.note.formerParticipants, scope: .shared, in: container)
        for (user, subscriptions) in Dictionary(grouping: theirs, by: \.userRecordName) {
            audience.append((.init(userRecordName: user, scope: .shared, shares: []), subscriptions.map(\.subscription)))
        }
        var drafts: [NotificationDraft] = []
        for (recipient, subscriptions) in audience.sorted(by: { $0.0.userRecordName < $1.0.userRecordName }) {
            for subscription in subscriptions.sorted(by: { $0.subscriptionID < $1.subscriptionID }) {
                switch subscription.kind {
                case .database: break
                case .zone(let watched) where watched == zoneID: break
                default: continue
                }
                let id = makeID()
                let payload = NotificationPayload(
                    event: event,
                    notificationID: id,
                    recipient: recipient,
                    subscription: subscription,
                    changes: [],
                    decision: .visible,
                    rules: []
                )
                drafts.append(
                    NotificationDraft(userRecordName: recipient.userRecordName, notificationID: id, originDeviceID: nil, payload: payload.bytes())
                )
            }
        }
        return try await transaction.deliver(drafts, in: container)
    }

    /// How often one event may fail on its own before it is set aside.
    static let maximumAttempts = 3

    /// An outbox row's identity.
    struct EventKey: Hashable, Sendable {
        var tenant: Tenant
        var zoneName: String
        var counterThrough: Int64

        init(_ event: ChangeEvent) {
            tenant = event.tenant
            zoneName = event.zoneName
            counterThrough = event.counterThrough
        }
    }

    /// Hands other instances' announcements to this instance's connections until cancelled,
    /// reconnecting after a lost channel.
    public func relayAnnouncements() async {
        // A store without announcements (SQLite: one process) has nothing to relay.
        guard store.announcesAcrossInstances else { return }
        var lapsed = false
        while !Task.isCancelled {
            if lapsed {
                // Announcements sent while nobody listened are lost: every connection reads its
                // inbox once, which finds whatever they announced.
                hub.entriesMayBeMissing()
            }
            do {
                try await store.followAnnouncements { [hub, instanceID] announcement in
                    guard announcement.instance != instanceID else { return }
                    hub.entriesWritten(for: announcement.recipients)
                }
            } catch {
                logger.warning("Listening for other instances' notifications failed", metadata: [LogKey.error: "\(error)"])
                await StoreFailureWait.wait()
            }
            lapsed = true
        }
    }

    /// The recipient's inbox after `sequence`, oldest first.
    /// - Throws: `.serviceUnavailable` when the store cannot answer.
    public func inbox(of userRecordName: String, in container: ContainerEnvironment, after sequence: Int64, limit: Int)
        async throws(NimbusError) -> [InboxEntry]
    {
        do {
            return try await store.inbox(of: userRecordName, in: container, after: sequence, limit: limit)
        } catch {
            throw .fromStore(error, logger: logger)
        }
    }

    /// The recipient's latest sequence number.
    /// - Throws: `.serviceUnavailable` when the store cannot answer.
    public func lastSequence(of userRecordName: String, in container: ContainerEnvironment) async throws(NimbusError) -> Int64 {
        do {
            return try await store.lastSequence(of: userRecordName, in: container)
        } catch {
            throw .fromStore(error, logger: logger)
        }
    }

    /// Dispatches whenever a writer signals (and every poll interval) until cancelled.
    public func run() async {
        var signalled = false
        while !Task.isCancelled {
            do {
                try await dispatchPending(probing: !signalled)
            } catch {
                logger.warning("Dispatching notifications failed", metadata: [LogKey.error: "\(String(reflecting: error))"])
                await StoreFailureWait.wait()
                signalled = false
                continue
            }
            signalled = await signal.wait(atMost: pollInterval, on: clock)
            if batchDelay > .zero { try? await clock.sleep(for: batchDelay) }
        }
    }

    // MARK: - Private

    /// The changes a recipient is notified of after the subscription's rules, the strongest
    /// decision among them, and the rules that decided.
    private static func decide(
        _ changes: [NotificationPlanner.VisibleChange],
        by rules: [NotificationRule],
        with evaluator: inout RuleEvaluator
    ) async throws -> (changes: [NotificationPlanner.VisibleChange], decision: NotificationRule.Decision, rules: [String]) {
        guard !rules.isEmpty else { return (changes, .visible, []) }
        var kept: [NotificationPlanner.VisibleChange] = []
        var decision = NotificationRule.Decision.none
        var names: [String] = []
        for change in changes {
            let outcome = try await evaluator.decide(rules, recordType: change.recordType, reason: change.reason, record: change.record)
            if let rule = outcome.rule, !names.contains(rule) { names.append(rule) }
            guard outcome.decision != .none else { continue }
            kept.append(change)
            decision = max(decision, outcome.decision)
        }
        return (kept, decision, names)
    }

    /// The entries one event produces, written into the inboxes.
    private static func handle(
        _ event: ChangeEvent,
        in transaction: any NotificationTransaction,
        makeID: @Sendable () -> String
    ) async throws -> (entries: [InboxEntry], movedOnCreations: Set<NameKey>) {
        if event.note.zoneDeleted { return (try await handleZoneDeletion(event, in: transaction, makeID: makeID), []) }
        // Who could hear of the event is found before what it changed is read: decoding the
        // changed records' fields was most of the dispatcher's work (a fifth of the server's
        // CPU under 200-record saves), and most writes have nobody subscribed.
        let tenant = event.tenant
        let container = ContainerEnvironment(container: tenant.container, environment: tenant.environment)
        var audience: [(NotificationPlanner.Recipient, [Subscription])] = []
        let rows: ChangeEventRows
        if tenant.isPublic {
            // Public subscriptions are by record type: the types come from the rows, their
            // fields only if someone subscribed to one of them.
            let outline = try await transaction.rows(of: event, decodingFields: false)
            var types = Set(outline.saved.map(\.recordType))
            types.formUnion(outline.deleted.map(\.tombstone.recordType))
            let found = types.isEmpty ? [] : try await transaction.publicQuerySubscriptions(recordTypes: types.sorted(), in: container)
            for (user, subscriptions) in Dictionary(grouping: found, by: \.userRecordName) {
                audience.append((.init(userRecordName: user, scope: .public, shares: nil), subscriptions.map(\.subscription)))
            }
            rows = audience.isEmpty ? outline : try await transaction.rows(of: event, decodingFields: true)
        } else {
            let own = try await transaction.subscriptions(of: [tenant.owner], scope: .private, in: container)
            if !own.isEmpty {
                audience.append((.init(userRecordName: tenant.owner, scope: .private, shares: nil), own.map(\.subscription)))
            }
            var shares: [String: Set<String>] = [:]
            let zone = OwnedZone(owner: tenant.owner, zoneName: event.zoneName)
            for participant in try await transaction.participants(ofZones: [zone], in: container)[zone] ?? [] {
                shares[participant.userRecordName, default: []].insert(participant.shareName)
            }
            let theirs = try await transaction.subscriptions(of: shares.keys.sorted(), scope: .shared, in: container)
            for (user, subscriptions) in Dictionary(grouping: theirs, by: \.userRecordName) {
                audience.append((.init(userRecordName: user, scope: .shared, shares: shares[user]), subscriptions.map(\.subscription)))
            }
            // Nobody to notify, not even participants the write took out of a share: the rows
            // need not be read, not even for the creations a later event of this zone carries
            // on (`movedOnCreations`). Who hears of a private zone's changes depends only on
            // the zone, so that later event, in this same transaction, has nobody to notify
            // of them either.
            guard !audience.isEmpty || !event.note.formerParticipants.isEmpty else { return ([], []) }
            rows = try await transaction.rows(of: event, decodingFields: !audience.isEmpty)
        }
        var present = Set(rows.saved.map { NameKey($0.recordID.recordName) })
        present.formUnion(rows.deleted.map { NameKey($0.tombstone.recordName) })
        let movedOn = event.note.created.subtracting(present)
        guard !rows.saved.isEmpty || !rows.deleted.isEmpty || !rows.exits.isEmpty else { return ([], movedOn) }
        let planner = NotificationPlanner(event: event, rows: rows)
        var drafts: [NotificationDraft] = []
        for (recipient, subscriptions) in audience.sorted(by: { $0.0.userRecordName < $1.0.userRecordName }) {
            let visible = planner.changes(visibleTo: recipient)
            guard !visible.isEmpty else { continue }
            var rules = RuleEvaluator(
                recipient: recipient.userRecordName,
                writer: event.note.writer,
                data: TransactionRuleData(transaction: transaction, tenant: tenant, zoneName: event.zoneName, recipient: recipient)
            )
            for subscription in subscriptions.sorted(by: { $0.subscriptionID < $1.subscriptionID }) {
                let matched = planner.matches(of: subscription, in: visible)
                guard !matched.isEmpty else { continue }
                let decided = try await Self.decide(matched, by: subscription.rules, with: &rules)
                guard !decided.changes.isEmpty else { continue }
                let id = makeID()
                let payload = NotificationPayload(
                    event: event,
                    notificationID: id,
                    recipient: recipient,
                    subscription: subscription,
                    changes: decided.changes,
                    decision: decided.decision,
                    rules: decided.rules
                )
                drafts.append(
                    NotificationDraft(
                        userRecordName: recipient.userRecordName,
                        notificationID: id,
                        originDeviceID: event.note.deviceID,
                        payload: payload.bytes(),
                        // A silent push is not shown: nothing on the device to collapse.
                        collapseID: decided.decision == .silent ? nil : subscription.notificationInfo.collapseIDKey
                    )
                )
                if case .query(_, _, _, true) = subscription.kind {
                    let subscriber = Subscriber(
                        container: tenant.container,
                        environment: tenant.environment,
                        scope: recipient.scope,
                        userRecordName: recipient.userRecordName
                    )
                    try await transaction.deleteSubscription(subscription.subscriptionID, of: subscriber)
                }
            }
        }
        // One still in another of the zone's shares hears of it as a participant, above.
        let stillThere = Set(audience.map(\.0.userRecordName))
        drafts += try await departureDrafts(of: event, except: stillThere, in: transaction, makeID: makeID)
        return (try await transaction.deliver(drafts, in: container), movedOn)
    }

    /// Participants the write took out of a share can no longer read what it changed, but
    /// their shared database did change (a zone, or part of one, left it): their database
    /// subscriptions hear of it, with no changes listed.
    private static func departureDrafts(
        of event: ChangeEvent,
        except stillThere: Set<String>,
        in transaction: any NotificationTransaction,
        makeID: @Sendable () -> String
    ) async throws -> [NotificationDraft] {
        let departed = event.note.formerParticipants.filter { !stillThere.contains($0) }
        guard !departed.isEmpty else { return [] }
        let container = ContainerEnvironment(container: event.tenant.container, environment: event.tenant.environment)
        let theirs = try await transaction.subscriptions(of: departed, scope: .shared, in: container)
        var drafts: [NotificationDraft] = []
        for found in theirs.sorted(by: { ($0.userRecordName, $0.subscription.subscriptionID) < ($1.userRecordName, $1.subscription.subscriptionID) })
        {
            guard case .database = found.subscription.kind else { continue }
            let id = makeID()
            let payload = NotificationPayload(
                event: event,
                notificationID: id,
                recipient: .init(userRecordName: found.userRecordName, scope: .shared, shares: []),
                subscription: found.subscription,
                changes: [],
                decision: .visible,
                rules: []
            )
            drafts.append(
                NotificationDraft(
                    userRecordName: found.userRecordName,
                    notificationID: id,
                    originDeviceID: event.note.deviceID,
                    payload: payload.bytes(),
                    collapseID: found.subscription.notificationInfo.collapseIDKey
                )
            )
        }
        return drafts
    }
}
