import Foundation
import SecureStorage

extension TokenManager {
    /// Starts the one refresh (or joins it) and returns its bundle.
    func refresh(from stale: TokenBundle) async throws(TokenAuthError) -> TokenBundle {
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
            let windowStart = now.addingTimeInterval(-Self.seconds(self.configuration.refreshWindow))
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
                generation: generation
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

    /// Runs on the actor: under the store's cross-process lock (if it has one), uses a bundle
    /// another process refreshed meanwhile, or calls the endpoint, saves the new bundle, then
    /// publishes it.
    private func performRefresh(
        refreshToken: String,
        staleAccessToken: String,
        generation: Int
    ) async throws(TokenAuthError) -> TokenBundle {
        defer { if self.generation == generation { self.refreshTask = nil } }
        let lock: CrossProcessLock?
        do {
            lock = try await self.store.lockAcrossProcesses(timeout: self.configuration.crossProcessLockTimeout)
        } catch {
            throw .storage(error, "the session's cross-process lock could not be taken; the tokens were not refreshed")
        }
        defer { lock?.release() }
        if lock != nil,
            let adopted = try await self.refreshedElsewhere(
                refreshToken: refreshToken,
                staleAccessToken: staleAccessToken
            )
        {
            guard self.generation == generation else {
                throw TokenAuthError(.signedOut, "the session ended while the token was being refreshed")
            }
            self.bundle = adopted
            self.unsaved = false
            self.publish(adopted)
            self.metrics.refreshEnded(.adopted)
            return adopted
        }
        let response: TokenResponse
        let asked = ContinuousClock.now
        do {
            response = try await self.refresher.refresh(using: refreshToken)
        } catch {
            self.metrics.refreshEnded(error.isTerminal ? .refused : .failed, endpointTime: asked.duration(to: .now))
            if error.isTerminal, self.generation == generation {
                await self.endSession(.refreshRejected)
            }
            if let retryAfter = error.retryAfter, self.generation == generation {
                self.refreshNotBefore = self.now().addingTimeInterval(Self.seconds(retryAfter))
            }
            throw error
        }
        self.metrics.refreshEnded(.success, endpointTime: asked.duration(to: .now))
        guard self.generation == generation else {
            throw TokenAuthError(.signedOut, "the session ended while the token was being refreshed")
        }
        let bundle = TokenBundle(response, receivedAt: self.now(), previousRefreshToken: refreshToken)
        // The rotated refresh token is saved before the new access token is handed out. If the
        // save fails, the bundle stays in memory (the old refresh token may already be dead)
        // and is saved before it is handed out.
        self.bundle = bundle
        self.unsaved = true
        try await self.save(bundle)
        self.eventSink.yield(.refreshed)
        return bundle
    }

    /// The stored bundle, when another process sharing the store replaced the stale one with a
    /// bundle that needs no refresh; nil when this process must refresh.
    private func refreshedElsewhere(
        refreshToken: String,
        staleAccessToken: String
    ) async throws(TokenAuthError) -> TokenBundle? {
        let stored: TokenBundle?
        do {
            stored = try await self.store.value(TokenBundle.self, forKey: self.configuration.storageKey)
        } catch {
            throw .storage(error, "the stored tokens could not be read under the session lock")
        }
        guard let stored, stored.accessToken != staleAccessToken || stored.refreshToken != refreshToken,
            !self.needsRefresh(stored)
        else { return nil }
        return stored
    }

    func save(_ bundle: TokenBundle) async throws(TokenAuthError) {
        do {
            try await self.store.set(bundle, forKey: self.configuration.storageKey)
            if self.bundle == bundle {
                self.unsaved = false
                self.publish(bundle)
            }
        } catch {
            throw .storage(error, "the refreshed tokens could not be stored")
        }
    }

    /// Loads the bundle from the store on first use.
    func loadIfNeeded() async throws(TokenAuthError) -> TokenBundle? {
        if self.loaded { return self.bundle }
        do {
            let stored = try await self.store.value(TokenBundle.self, forKey: self.configuration.storageKey)
            // The activity a previous launch kept; an unreadable one counts as none (activity now).
            let persisted = stored == nil ? nil : try? await self.store.value(Date.self, forKey: self.activityKey)
            if !self.loaded {
                self.bundle = stored
                self.loaded = true
                self.publish(stored)
                if stored != nil, self.lastActivity == nil {
                    self.lastActivity = persisted ?? self.now()
                    self.lastPersistedActivity = persisted
                }
            }
            return self.bundle
        } catch {
            throw .storage(error, "the stored tokens could not be read")
        }
    }

    /// Clears the tokens and emits signed-out once, if there was a session; after a requested or
    /// inactivity sign-out, revokes the refresh token (bounded, best effort).
    func endSession(_ reason: SignOutReason) async {
        let ended = try? await self.loadIfNeeded()
        let hadSession = ended != nil
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
        // A store that fails to delete still ends the session in memory; the next launch finds
        // the old bundle, whose refresh token the server has refused, and ends it again.
        try? await self.store.removeValue(forKey: self.configuration.storageKey)
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
    private func revoke(_ refreshToken: String) async -> RevocationOutcome {
        let refresher = self.refresher
        return await withTaskGroup(of: RevocationOutcome.self) { group in
            group.addTask {
                do {
                    try await refresher.revoke(refreshToken: refreshToken)
                    return .completed
                } catch {
                    return .failed((error as? TokenAuthError)?.code ?? .transportFailure)
                }
            }
            let timeout = self.configuration.revocationTimeout
            group.addTask {
                try? await Task.sleep(for: timeout)
                return .abandoned
            }
            let first = await group.next() ?? .abandoned
            group.cancelAll()
            return first
        }
    }

    /// Awaits the refresh in flight. Each call is counted in ``refreshJoins``, so a test can
    /// release a gated refresh once every caller it started has joined.
    func join(_ task: Task<TokenBundle, any Error>) async throws(TokenAuthError) -> TokenBundle {
        self.refreshJoins += 1
        do {
            return try await task.value
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
