public import Foundation

/// What a connection must satisfy, in the manner of Apple's App Transport Security (ATS).
///
/// The defaults fail closed: HTTPS only, TLS 1.2 or newer, forward secrecy, RSA keys of 2048 bits
/// or more, EC keys of 256 bits or more, SHA-2 signatures, the system's trust roots, no pins.
/// Exceptions are per domain and explicit.
public struct TransportSecurityPolicy: Hashable, Sendable {
    /// Allow plain HTTP to every host without an exception. As ATS's `NSAllowsArbitraryLoads`, it
    /// does not touch the domains of ``exceptionDomains``: their own `allowsInsecureHTTPLoads`
    /// decides.
    /// - Important: this removes transport security for every host without an exception. It
    ///   is listed in ``securityWarnings`` so that transports can log it loudly. TLS connections
    ///   keep their requirements.
    public var allowsArbitraryLoads: Bool
    /// Allow plain HTTP to local hosts: `localhost`, unqualified names, `.local` names, and
    /// loopback, private and link-local addresses. A host written as a number in any form URL
    /// parsers accept (`134744072`, `0x7f000001`) is judged by the address it denotes. A name with
    /// a trailing dot (`http://ai./`) is fully qualified, not unqualified, so it is not local.
    public var allowsLocalNetworking: Bool
    /// The oldest TLS version accepted. Default TLS 1.2.
    public var minimumTLSVersion: TLSVersion
    /// Whether only forward-secret (ECDHE) key exchange is accepted. Default true.
    public var requiresForwardSecrecy: Bool
    /// Key-size and signature rules.
    public var certificateRules: CertificateRules
    /// The roots a chain must lead to.
    public var trustAnchors: TrustAnchors
    /// Exceptions keyed by domain (normalised to lower case, no trailing dot).
    public private(set) var exceptionDomains: [String: DomainException]
    /// Pin sets by host pattern.
    public var pinning: PinningPolicy
    /// Whether every TLS host must show Certificate Transparency (a domain's exception can say
    /// otherwise). Default false, as ATS.
    public var requiresCertificateTransparency: Bool
    /// How CT is checked where it is required: the log list (which the app supplies), the policy
    /// and the list's age limit.
    public var certificateTransparency: CertificateTransparencySettings

    /// The default, strict policy.
    public static let strict = TransportSecurityPolicy()

    /// Creates a policy; every argument defaults to the strict setting.
    public init(
        allowsArbitraryLoads: Bool = false,
        allowsLocalNetworking: Bool = false,
        minimumTLSVersion: TLSVersion = .v1_2,
        requiresForwardSecrecy: Bool = true,
        certificateRules: CertificateRules = .default,
        trustAnchors: TrustAnchors = .system,
        exceptionDomains: [String: DomainException] = [:],
        pinning: PinningPolicy = .none,
        requiresCertificateTransparency: Bool = false,
        certificateTransparency: CertificateTransparencySettings = .init()
    ) {
        self.requiresCertificateTransparency = requiresCertificateTransparency
        self.certificateTransparency = certificateTransparency
        self.allowsArbitraryLoads = allowsArbitraryLoads
        self.allowsLocalNetworking = allowsLocalNetworking
        self.minimumTLSVersion = minimumTLSVersion
        self.requiresForwardSecrecy = requiresForwardSecrecy
        self.certificateRules = certificateRules
        self.trustAnchors = trustAnchors
        self.exceptionDomains = [:]
        self.pinning = pinning
        for (domain, exception) in exceptionDomains {
            self.setException(exception, for: domain)
        }
    }

    /// Adds or replaces the exception for a domain.
    ///
    /// An IPv6 domain is kept in RFC 5952 form and an IPv4-mapped one as its IPv4 address, so
    /// every spelling of an address names one exception; hosts are judged the same way. Pass an
    /// IPv4 address in dotted decimal: the policy file refuses other spellings (`127.1`).
    public mutating func setException(_ exception: DomainException, for domain: String) {
        self.exceptionDomains[HostName.canonical(domain)] = exception
    }

    /// What a connection to `url` must satisfy.
    /// - Throws: ``ServerTrustError/Code/insecureScheme`` for plain `http` to a host that is not
    ///   excepted, ``ServerTrustError/Code/unsupportedScheme`` for anything but `http`/`https`,
    ///   ``ServerTrustError/Code/invalidURL`` for a URL without a host,
    ///   ``ServerTrustError/Code/ctLogListMissing`` for an `https` host that requires Certificate
    ///   Transparency when ``certificateTransparency`` has no log list.
    public func requirements(for url: URL) throws(ServerTrustError) -> ConnectionRequirements {
        guard let scheme = url.scheme?.lowercased() else {
            throw ServerTrustError(.invalidURL, "the URL has no scheme")
        }
        guard let rawHost = url.host, !rawHost.isEmpty else {
            throw ServerTrustError(.invalidURL, "the URL has no host")
        }
        // An address in any spelling (`127.1`, `0x7f.0.0.1`, `[::ffff:7f00:1]`) is judged, pinned
        // and reached as its canonical text, so no spelling slips past a rule written for it.
        let host = HostName.canonical(rawHost)
        let exception = self.exception(for: host)

        switch scheme {
        case "https":
            break
        case "http":
            // ATS: "Domains you specify in [NSExceptionDomains] aren't affected by" NSAllowsArbitraryLoads.
            let allowed =
                (exception.map(\.allowsInsecureHTTPLoads) ?? self.allowsArbitraryLoads)
                || (self.allowsLocalNetworking && Self.isLocal(host, fullyQualified: rawHost.hasSuffix(".")))
            guard allowed else {
                throw ServerTrustError(
                    .insecureScheme,
                    "plain http to \(host) is refused: use https, or add an exception that allows insecure HTTP loads"
                )
            }
        default:
            throw ServerTrustError(.unsupportedScheme, "the scheme '\(scheme)' is not supported; use https")
        }

        let usesTLS = scheme == "https"
        let pinRule = self.pinRule(for: host)
        var requirements = ConnectionRequirements(
            host: host,
            port: url.port ?? (usesTLS ? 443 : 80),
            usesTLS: usesTLS,
            minimumTLSVersion: exception?.minimumTLSVersion ?? self.minimumTLSVersion,
            requiresForwardSecrecy: exception?.requiresForwardSecrecy ?? self.requiresForwardSecrecy,
            certificateRules: self.certificateRules,
            trustAnchors: self.trustAnchors,
            pinScope: pinRule?.scope,
            pins: pinRule?.pins
        )
        requirements.cipherSuites = exception?.cipherSuites ?? .aeadOnly
        if usesTLS, exception?.requiresCertificateTransparency ?? self.requiresCertificateTransparency {
            guard self.certificateTransparency.logList != nil else {
                throw ServerTrustError(
                    .ctLogListMissing,
                    "\(host) requires Certificate Transparency and no CT log list is configured (set certificateTransparency.logList)"
                )
            }
            requirements.certificateTransparency = self.certificateTransparency
        }
        return requirements
    }

    /// The most specific exception covering the host (exact, or a parent with includesSubdomains).
    public func exception(for host: String) -> DomainException? {
        self.exceptionEntry(for: host)?.exception
    }

    /// The domain whose exception covers the host (the host itself, or a parent with
    /// includesSubdomains), as ``exceptionDomains`` keys it.
    public func exceptionDomain(for host: String) -> String? {
        self.exceptionEntry(for: host)?.domain
    }

    private func exceptionEntry(for host: String) -> (domain: String, exception: DomainException)? {
        var current = HostName.canonical(host)
        var exact = true
        // An address has no parent domain: `0.0.1` does not cover 10.0.0.1.
        let isAddress = IPAddress(current) != nil
        while true {
            if let exception = self.exceptionDomains[current], exact || exception.includesSubdomains {
                return (current, exception)
            }
            guard !isAddress, let dot = current.firstIndex(of: ".") else { return nil }
            current = String(current[current.index(after: dot)...])
            exact = false
        }
    }

    /// The settings that weaken transport security, one sentence each, for a transport to log loudly.
    public var securityWarnings: [String] {
        var warnings: [String] = []
        if self.allowsArbitraryLoads {
            warnings.append("allowsArbitraryLoads: plain HTTP is allowed to every host without an exception")
        }
        if self.minimumTLSVersion < .v1_2 { warnings.append("minimumTLSVersion is \(self.minimumTLSVersion)") }
        if !self.requiresForwardSecrecy { warnings.append("forward secrecy is not required") }
        if self.certificateRules != .default { warnings.append("certificate rules are weaker than ATS's") }
        if let list = self.certificateTransparency.logList,
            self.requiresCertificateTransparency
                || self.exceptionDomains.values.contains(where: { $0.requiresCertificateTransparency == true }),
            let expiry = self.certificateTransparency.logListExpiry, expiry < Date()
        {
            warnings.append(
                "the CT log list of \(ISO8601DateFormatter().string(from: list.timestamp)) is stale: CT is not enforced"
            )
        }
        for (domain, exception) in self.exceptionDomains.sorted(by: { $0.key < $1.key }) {
            if exception.allowsInsecureHTTPLoads { warnings.append("\(domain): plain HTTP is allowed") }
            if let version = exception.minimumTLSVersion, version < .v1_2 {
                warnings.append("\(domain): minimum TLS version is \(version)")
            }
            if exception.requiresForwardSecrecy == false {
                warnings.append("\(domain): forward secrecy is not required")
            }
            if exception.cipherSuites == .ats { warnings.append("\(domain): ATS's CBC cipher suites are offered") }
        }
        return warnings
    }

    /// The pins for a host: the most specific pattern of ``pinning``, else the pins of the
    /// exception covering the host.
    private func pinRule(for host: String) -> (scope: String, pins: PinSet)? {
        if let rule = self.pinning.rule(for: host) { return (rule.pattern.description, rule.pins) }
        guard let (domain, exception) = self.exceptionEntry(for: host), let pins = exception.pins else { return nil }
        return (exception.includesSubdomains ? "**." + domain : domain, pins)
    }

    /// Whether plain HTTP to `host` is local networking, as ATS's `NSAllowsLocalNetworking`:
    /// `localhost`, `.local` names, loopback, private and link-local addresses, and unqualified
    /// names. A name written with a trailing dot (`ai.`) is fully qualified, a top-level domain,
    /// not an unqualified name: `fullyQualified` says whether the URL's host had that dot, which
    /// `host` (normalised) no longer shows.
    static func isLocal(_ host: String, fullyQualified: Bool) -> Bool {
        // A host in a numeric form (`134744072`, `0x08080808`, `010.010.010.010`) is the
        // address it denotes, never an unqualified name: judged as that address.
        var address = IPAddress(host)
        if address == nil, IPAddress.endsInANumber(host) {
            // Out of range (`4294967296`) is no address and no name: not local.
            guard let bytes = IPAddress.numericIPv4(host) else { return false }
            address = IPAddress(bytes: bytes)
        }
        if let address {
            let b = address.bytes
            if address.isIPv4 {
                return b[0] == 127 || b[0] == 10 || (b[0] == 172 && (16...31).contains(b[1]))
                    || (b[0] == 192 && b[1] == 168) || (b[0] == 169 && b[1] == 254)
            }
            let loopback = b == Array(repeating: 0, count: 15) + [1]
            return loopback || (b[0] & 0xFE) == 0xFC || (b[0] == 0xFE && (b[1] & 0xC0) == 0x80)
        }
        return host == "localhost" || (!fullyQualified && !host.isEmpty && !host.contains("."))
            || host.hasSuffix(".local")
    }
}

/// Per-domain relaxations (or pins), as ATS's `NSExceptionDomains` entries.
public struct DomainException: Hashable, Sendable {
    /// The exception covers subdomains of the domain too.
    public var includesSubdomains: Bool
    /// Overrides the policy's minimum TLS version.
    public var minimumTLSVersion: TLSVersion?
    /// Overrides the policy's forward-secrecy requirement.
    public var requiresForwardSecrecy: Bool?
    /// The TLS 1.2 cipher suites offered to the domain. Default ``CipherSuitePolicy/aeadOnly``;
    /// ``CipherSuitePolicy/ats`` adds the CBC suites of ATS's forward-secret list, for servers an
    /// iOS app reaches today that offer nothing else.
    public var cipherSuites: CipherSuitePolicy
    /// Allows plain HTTP to the domain.
    /// - Important: traffic to the domain can be read and changed by anyone on the path.
    public var allowsInsecureHTTPLoads: Bool
    /// Pins for the domain (and its subdomains when ``includesSubdomains``); a pattern in the
    /// policy's ``TransportSecurityPolicy/pinning`` that matches the host takes precedence.
    public var pins: PinSet?
    /// Overrides the policy's ``TransportSecurityPolicy/requiresCertificateTransparency``, as
    /// ATS's `NSRequiresCertificateTransparency`: the domain's certificates must carry valid SCTs
    /// from known logs, enough for the CT policy.
    public var requiresCertificateTransparency: Bool?

    /// Creates an exception; without arguments it changes nothing.
    public init(
        includesSubdomains: Bool = false,
        minimumTLSVersion: TLSVersion? = nil,
        requiresForwardSecrecy: Bool? = nil,
        allowsInsecureHTTPLoads: Bool = false,
        pins: PinSet? = nil,
        cipherSuites: CipherSuitePolicy = .aeadOnly,
        requiresCertificateTransparency: Bool? = nil
    ) {
        self.requiresCertificateTransparency = requiresCertificateTransparency
        self.includesSubdomains = includesSubdomains
        self.minimumTLSVersion = minimumTLSVersion
        self.requiresForwardSecrecy = requiresForwardSecrecy
        self.cipherSuites = cipherSuites
        self.allowsInsecureHTTPLoads = allowsInsecureHTTPLoads
        self.pins = pins
    }
}

/// What one connection must satisfy: the outcome of ``TransportSecurityPolicy/requirements(for:)``.
///
/// Hashable, so a transport can key its connection pool and its trust-decision cache on it.
public struct ConnectionRequirements: Hashable, Sendable {
    /// The host, normalised (lower case, no trailing dot, no IPv6 brackets).
    public var host: String
    /// The port.
    public var port: Int
    /// Whether the connection uses TLS (false only for an excepted plain-HTTP URL).
    public var usesTLS: Bool
    /// The oldest TLS version to offer.
    public var minimumTLSVersion: TLSVersion
    /// Whether only forward-secret cipher suites may be offered.
    public var requiresForwardSecrecy: Bool
    /// Which TLS 1.2 cipher suites are offered.
    public var cipherSuites: CipherSuitePolicy = .aeadOnly
    /// Key and signature rules for the chain.
    public var certificateRules: CertificateRules
    /// The roots the chain must lead to.
    public var trustAnchors: TrustAnchors
    /// Where the pins come from, for reports: the host pattern (`**.example.com`) or the
    /// exception domain whose pins apply.
    public var pinScope: String?
    /// The pins that apply, if any.
    public var pins: PinSet?
    /// Certificate Transparency: when set, the chain must comply with these settings' CT policy.
    public var certificateTransparency: CertificateTransparencySettings?

    /// Creates requirements directly; most callers get them from a ``TransportSecurityPolicy``.
    public init(
        host: String,
        port: Int = 443,
        usesTLS: Bool = true,
        minimumTLSVersion: TLSVersion = .v1_2,
        requiresForwardSecrecy: Bool = true,
        certificateRules: CertificateRules = .default,
        trustAnchors: TrustAnchors = .system,
        pinScope: String? = nil,
        pins: PinSet? = nil
    ) {
        self.host = HostName.normalise(host)
        self.port = port
        self.usesTLS = usesTLS
        self.minimumTLSVersion = minimumTLSVersion
        self.requiresForwardSecrecy = requiresForwardSecrecy
        self.certificateRules = certificateRules
        self.trustAnchors = trustAnchors
        self.pinScope = pinScope
        self.pins = pins
    }

    /// Hashes the cheap fields only (host, port, TLS, scope, and the number of anchors and pins).
    ///
    /// Requirements key the connection pool and the trust-decision cache on every request and
    /// handshake; hashing every anchor certificate there would cost more than the lookup saves.
    /// Equality still compares every field, so requirements that differ only in what is not
    /// hashed share a bucket but are never confused.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(self.host)
        hasher.combine(self.port)
        hasher.combine(self.usesTLS)
        hasher.combine(self.minimumTLSVersion)
        hasher.combine(self.requiresForwardSecrecy)
        hasher.combine(self.cipherSuites)
        hasher.combine(self.pinScope)
        hasher.combine(self.trustAnchors.includesSystemRoots)
        hasher.combine(self.trustAnchors.certificates.count)
        hasher.combine(self.pins?.pins.count ?? -1)
        hasher.combine(self.certificateTransparency != nil)
    }
}

/// Which TLS 1.2 cipher suites a connection offers (TLS 1.3 suites are all AEAD and forward
/// secret, and always offered).
public struct CipherSuitePolicy: Hashable, Sendable, CustomStringConvertible {
    enum Kind: Hashable, Sendable {
        case aeadOnly
        case ats
    }

    let kind: Kind

    /// ECDHE with AES-GCM or ChaCha20-Poly1305 only: forward secret and authenticated encryption.
    /// The default.
    public static let aeadOnly = CipherSuitePolicy(kind: .aeadOnly)

    /// ATS's forward-secret list as Apple documents it ("Requirements for Connecting Using
    /// ATS"): the AEAD suites above plus ECDHE-ECDSA/ECDHE-RSA with AES-CBC and HMAC-SHA1 or
    /// HMAC-SHA256. `TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA384` and
    /// `TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA384` are on ATS's list but BoringSSL does not implement
    /// them, so the NIO transport cannot offer them.
    public static let ats = CipherSuitePolicy(kind: .ats)

    /// The name used in policy files: `aead` or `ats`.
    public var description: String {
        switch self.kind {
        case .aeadOnly: "aead"
        case .ats: "ats"
        }
    }

    /// The policy named `aead` or `ats`, or nil.
    public init?(_ name: String) {
        switch name {
        case "aead": self = .aeadOnly
        case "ats": self = .ats
        default: return nil
        }
    }

    init(kind: Kind) {
        self.kind = kind
    }
}
