import Foundation
import NIOConcurrencyHelpers
import SecureNetworkingInternal
import SecureStorage

extension TokenManager {
    /// Starts the one refresh (or joins it) and returns its bundle.
    ///
    /// - Parameter refusal: why the session ends if the token endpoint refuses the refresh token
    ///   (``SignOutReason/revoked`` for a refresh forced by the refusal of a token that had not
    ///   expired); ``SignOutReason/reuseDetected`` replaces it when the refused token is one an
    ///   earlier refresh presented without getting an answer.
    func refresh(
        from stale: TokenBundle,
        refusal: SignOutReason = .refreshRejected
    ) async throws(TokenAuthError) -> TokenBundle {
        // No refresh starts while locked: its result would be handed out of a locked session.
        if self.locked { throw Self.lockedError }
        if let task = self.refreshTask {
            return try await self.join(task)
        }
        guard let refreshToken = stale.refreshToken else {
            await self.endSession(.noRefreshToken)
            throw TokenAuthError(.signedOut, "the access token expired and there is no refresh token")
        }
        let now = self.now()
        if let notBefore = self.refreshNotBefore {
            guard now >= notBefore else {
                let wait = notBefore.timeIntervalSince(now)
                throw TokenAuthError(
                    .serverError,
                    "the token endpoint asked not to be called again for \(Int(wait.rounded(.up))) s (Retry-After)",
                    retryAfter: .milliseconds(Int64((wait * 1000).rounded(.up)))
                )
            }
            self.refreshNotBefore = nil
        }
        if self.countsTowardsTheLoopGuard(stale) {
            let windowStart = now.addingTimeInterval(-self.configuration.refreshWindow.timeInterval)
            self.refreshTimes.removeAll { $0 < windowStart }
            if self.refreshTimes.count >= self.configuration.maximumRefreshes {
                throw TokenAuthError(
                    .refreshLoop,
                    "\(self.refreshTimes.count) refreshes within \(self.configuration.refreshWindow); not refreshing again"
                )
            }
            self.refreshTimes.append(now)
        }
        let generation = self.generation
        let staleAccessToken = stale.accessToken
        let task = Task { () async throws -> TokenBundle in
            try await self.performRefresh(
                refreshToken: refreshToken,
                staleAccessToken: staleAccessToken,
                generation: generation,
                refusal: refusal
            )
        }
        self.refreshTask = task
        return try await self.join(task)
    }

    /// Whether refreshing `stale` now counts towards the refresh-loop guard. A token that is due
    /// (inside its refresh leeway, or expired) and lived at least a second is refreshed because
    /// of its lifetime, which already bounds how often that happens; the guard is for the rest:
    /// refreshes forced by 401s to a token that should still be valid, and tokens issued already
    /// expired or nearly so.
    func countsTowardsTheLoopGuard(_ stale: TokenBundle) -> Bool {
        guard self.needsRefresh(stale), let issued = stale.issuedAt else { return true }
        return stale.expiresAt.timeIntervalSince(issued) < 1
    }

    /// Runs on the actor. For a store shared across processes, claims the refresh first
    /// (``claimRefresh(of:)``: a bundle another process refreshed is used as it is, a live lease
    /// of another process is waited for) and settles it under the lock afterwards
    /// (``settleRefresh(_:spent:lease:generation:)``); the lock is never held while the endpoint
    /// is called. Otherwise calls the endpoint, saves the new bundle, then publishes it.
    private func performRefresh(
        refreshToken: String,
        staleAccessToken: String,
        generation: Int,
        refusal: SignOutReason
    ) async throws(TokenAuthError) -> TokenBundle {
        defer { if self.generation == generation { self.refreshTask = nil } }
        var spending = refreshToken
        var lease: RefreshLeaseHolder?
        let stale = TokenBundle(accessToken: staleAccessToken, refreshToken: refreshToken, expiresAt: .distantPast)
        switch try await self.claimRefresh(of: stale) {
        case .unshared:
            break
        case .adopt(let adopted):
            return try self.adopt(adopted, generation: generation)
        case .leased(let token):
            // The stored token is the latest any process saved, unless this process holds a
            // refreshed bundle it could not save yet: then its own is.
            spending = self.unsaved ? refreshToken : token
            lease = RefreshLeaseHolder(manager: self, duration: self.configuration.refreshLeaseDuration)
        case .endedElsewhere:
            if self.generation == generation { await self.endSession(.endedElsewhere) }
            throw TokenAuthError(.signedOut, "another process sharing the store ended the session")
        }
        let response: TokenResponse
        let asked = ContinuousClock.now
        do {
            response = try await self.refresher.refresh(using: spending)
        } catch {
            lease?.stopRenewing()
            self.metrics.refreshEnded(error.isTerminal ? .refused : .failed, endpointTime: asked.duration(to: .now))
            let reason = self.refusalReason(spent: spending, refusal: refusal)
            if error.code == .transportFailure { self.unansweredRefreshToken = spending }
            if let lease {
                return try await self.settleRefusal(
                    error,
                    spent: spending,
                    lease: lease,
                    generation: generation,
                    reason: reason
                )
            }
            if error.isTerminal, self.generation == generation {
                await self.endSession(reason)
            }
            throw self.noteRetryAfter(error, generation: generation)
        }
        self.unansweredRefreshToken = nil
        lease?.stopRenewing()
        self.metrics.refreshEnded(.success, endpointTime: asked.duration(to: .now))
        guard self.generation == generation else {
            if let lease { await self.releaseLease(lease) }
            throw TokenAuthError(.signedOut, "the session ended while the token was being refreshed")
        }
        let bundle = TokenBundle(
            response,
            receivedAt: self.now(),
            previousRefreshToken: spending,
            previousScope: self.bundle?.scope
        )
        if let lease {
            return try await self.settleRefresh(bundle, spent: spending, lease: lease, generation: generation)
        }
        return try await self.keep(bundle)
    }

    /// Why the session ends when the refresh that presented `spent` is refused: reuse, when an
    /// earlier refresh presented the same token and got no answer (the server may have redeemed
    /// it, so this was its second use); else `refusal`.
    func refusalReason(spent: String, refusal: SignOutReason) -> SignOutReason {
        spent == self.unansweredRefreshToken ? .reuseDetected : refusal
    }

    /// Makes `bundle`, a refresh's result, the session's. The rotated refresh token is saved
    /// before the new access token is handed out. If the save fails, the bundle stays in memory
    /// (the old refresh token may already be dead) and is saved before it is handed out.
    func keep(_ bundle: TokenBundle) async throws(TokenAuthError) -> TokenBundle {
        self.bundle = bundle
        self.unsaved = true
        try await self.save(bundle)
        self.eventSink.yield(.refreshed)
        return bundle
    }

    /// Uses a bundle another process refreshed (published unless the session is locked).
    func adopt(_ adopted: TokenBundle, generation: Int) throws(TokenAuthError) -> TokenBundle {
        guard self.generation == generation else {
            throw TokenAuthError(.signedOut, "the session ended while the token was being refreshed")
        }
        self.bundle = adopted
        self.unsaved = false
        if !self.locked { self.publish(adopted) }
        self.metrics.refreshEnded(.adopted)
        return adopted
    }

    /// Notes a `Retry-After` of a failed refresh; returns the error.
    func noteRetryAfter(_ error: TokenAuthError, generation: Int) -> TokenAuthError {
        if let retryAfter = error.retryAfter, self.generation == generation {
            self.refreshNotBefore = self.now().addingTimeInterval(retryAfter.timeInterval)
        }
        return error
    }

    /// Saves `bundle`; once saved, the session's bundle is published, unless the session is
    /// locked (a refresh that ends during a lock publishes nothing).
    func save(_ bundle: TokenBundle) async throws(TokenAuthError) {
        do {
            try await self.store.set(bundle, forKey: self.configuration.storageKey)
            if self.bundle == bundle {
                self.unsaved = false
                if !self.locked { self.publish(bundle) }
            }
        } catch {
            throw .storage(error, "the refreshed tokens could not be stored")
        }
    }

    /// Loads the bundle from the store on first use.
    ///
    /// - Throws: ``TokenAuthError/Code/sessionLocked`` while the session is locked.
    func loadIfNeeded() async throws(TokenAuthError) -> TokenBundle? {
        if self.locked { throw TokenAuthError(.sessionLocked, "the session is locked until the user unlocks it") }
        if self.loaded { return self.bundle }
        let (stored, persisted) = try await self.readStored()
        if self.locked { throw TokenAuthError(.sessionLocked, "the session is locked until the user unlocks it") }
        if !self.loaded { self.install(stored, persistedActivity: persisted) }
        return self.bundle
    }

    /// The stored bundle (read through the store's user-presence gate, if it has one) and the
    /// activity a previous launch kept.
    func readStored() async throws(TokenAuthError) -> (TokenBundle?, Date?) {
        do {
            let stored = try await self.store.value(TokenBundle.self, forKey: self.configuration.storageKey)
            // An unreadable activity counts as none (activity now).
            let persisted = stored == nil ? nil : try? await self.store.value(Date.self, forKey: self.activityKey)
            return (stored, persisted)
        } catch {
            throw .storage(error, "the stored tokens could not be read")
        }
    }

    /// Makes a bundle read from the store the session's.
    func install(_ stored: TokenBundle?, persistedActivity: Date?) {
        self.bundle = stored
        self.loaded = true
        self.publish(stored)
        if stored != nil, self.lastActivity == nil {
            self.lastActivity = persistedActivity ?? self.now()
            self.lastPersistedActivity = persistedActivity
        }
    }

    /// Clears the tokens and emits signed-out once, if there was a session; after a requested or
    /// inactivity sign-out, revokes the refresh token (bounded, best effort).
    func endSession(_ reason: SignOutReason) async {
        let ended: TokenBundle?
        let hadSession: Bool
        if self.locked {
            // Reading the stored bundle would ask for the user's presence: its existence is
            // enough, and its refresh token is not revoked (only a bundle kept in memory because
            // the store refused it is at hand).
            ended = self.bundle
            let stored = (try? await self.store.contains(self.configuration.storageKey)) ?? false
            hadSession = ended != nil || stored
            self.locked = false
        } else {
            ended = try? await self.loadIfNeeded()
            hadSession = ended != nil
        }
        self.refreshNotBefore = nil
        self.generation += 1
        self.refreshTask = nil
        self.bundle = nil
        self.loaded = true
        self.unsaved = false
        self.publish(nil)
        self.refreshTimes = []
        self.lastActivity = nil
        self.lastPersistedActivity = nil
        try? await self.store.removeValue(forKey: self.activityKey)
        // Under the session lock where the store has one (never held here), with any refresh
        // lease: a refresh another process finishes afterwards finds the session ended.
        let lock = try? await self.store.lockAcrossProcesses(timeout: self.configuration.crossProcessLockTimeout)
        if lock != nil { try? await self.store.removeValue(forKey: self.leaseKey) }
        // A store that fails to delete still ends the session in memory; the next launch finds
        // the old bundle, whose refresh token the server has refused, and ends it again.
        try? await self.store.removeValue(forKey: self.configuration.storageKey)
        lock?.release()
        if hadSession {
            self.metrics.signedOut(reason)
            self.eventSink.yield(.signedOut(reason))
        }
        // A refresh token the server refused, or never had, needs no revocation.
        if let refreshToken = ended?.refreshToken, reason == .requested || reason == .inactivity {
            self.revocationOutcomes.append(await self.revoke(refreshToken))
        }
    }

    /// Revokes `refreshToken` through the refresher, abandoning it after
    /// ``Configuration/revocationTimeout``. Runs after the session ended locally; the actor
    /// stays free for other callers meanwhile.
    ///
    /// Returns at the timeout whatever the revocation does: an abandoned revocation is cancelled
    /// and left to end in the background (a task group would wait for it, as long as the
    /// transport takes to notice the cancellation, up to its handshake or request timeout).
    private func revoke(_ refreshToken: String) async -> RevocationOutcome {
        let refresher = self.refresher
        let timeout = self.configuration.revocationTimeout
        return await withCheckedContinuation { (continuation: CheckedContinuation<RevocationOutcome, Never>) in
            let answered = NIOLockedValueBox(false)
            let answer: @Sendable (RevocationOutcome) -> Void = { outcome in
                let first = answered.withLockedValue { answered in
                    defer { answered = true }
                    return !answered
                }
                if first { continuation.resume(returning: outcome) }
            }
            let revocation = NIOLockedValueBox<Task<Void, Never>?>(nil)
            let timer = Task {
                guard (try? await Task.sleep(for: timeout)) != nil else { return }
                answer(.abandoned)
                revocation.withLockedValue { $0?.cancel() }
            }
            revocation.withLockedValue {
                $0 = Task {
                    do {
                        try await refresher.revoke(refreshToken: refreshToken)
                        answer(.completed)
                    } catch {
                        answer(.failed((error as? TokenAuthError)?.code ?? .transportFailure))
                    }
                    timer.cancel()
                }
            }
        }
    }

    /// Awaits the refresh in flight. Each call is counted in ``refreshJoins``, so a test can
    /// release a gated refresh once every caller it started has joined.
    ///
    /// - Throws: ``TokenAuthError/Code/sessionLocked`` when the session was locked meanwhile:
    ///   the refreshed bundle is saved, and handed out only after an unlock.
    func join(_ task: Task<TokenBundle, any Error>) async throws(TokenAuthError) -> TokenBundle {
        self.refreshJoins += 1
        do {
            let bundle = try await task.value
            if self.locked { throw Self.lockedError }
            return bundle
        } catch let error as TokenAuthError {
            throw error
        } catch {
            throw TokenAuthError(.signedOut, "the refresh was cancelled because the session ended")
        }
    }
}

/// How a revocation at sign-out ended.
enum RevocationOutcome: Equatable, Sendable {
    case completed
    case failed(TokenAuthError.Code)
    case abandoned
}
