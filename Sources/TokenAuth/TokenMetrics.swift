import CoreMetrics

/// The swift-metrics instruments of a ``TokenManager``: refreshes by outcome with the endpoint's
/// time, and sign-outs by reason. They report to ``TokenManager/Configuration/metricsFactory``, or
/// to `MetricsSystem.factory` (nothing is recorded until the app bootstraps a backend).
/// Dimensions are fixed words, never a token or an account.
struct TokenMetrics: Sendable {
    enum Label {
        static let refreshes = "securenet_token_refreshes_total"
        static let refreshDuration = "securenet_token_refresh_duration"
        static let signOuts = "securenet_sign_outs_total"
    }

    /// How a refresh ended.
    enum Outcome: String {
        /// The endpoint issued new tokens.
        case success
        /// Another process sharing the store had refreshed: its tokens were used.
        case adopted
        /// The endpoint refused the refresh token (the session ended).
        case refused
        /// The endpoint could not be reached or failed; the session goes on.
        case failed
    }

    private let factory: any MetricsFactory
    private let refreshDuration: Timer

    init(factory: (any MetricsFactory)?) {
        self.factory = factory ?? MetricsSystem.factory
        self.refreshDuration = Timer(label: Label.refreshDuration, factory: self.factory)
    }

    func refreshEnded(_ outcome: Outcome, endpointTime: Duration? = nil) {
        Counter(label: Label.refreshes, dimensions: [("outcome", outcome.rawValue)], factory: self.factory).increment()
        if let endpointTime {
            let (seconds, attoseconds) = endpointTime.components
            self.refreshDuration.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
        }
    }

    func signedOut(_ reason: SignOutReason) {
        Counter(label: Label.signOuts, dimensions: [("reason", reason.description)], factory: self.factory).increment()
    }
}
