// Foundation URL-loading API (NSURLSession.h, NSURLCredential.h, NSURLProtectionSpace.h) that the
// Apple-only sources use and that swift-corelibs-foundation's FoundationNetworking lacks, declares
// unavailable, spells differently, or is re-declared here so that the Apple transcription is the one
// checked. On Apple platforms these are members of Foundation; they are declared in this module
// (which re-exports FoundationNetworking, not Foundation: see ModuleExports.swift) because a module
// cannot be stubbed twice.
//
// Shadowing: a declaration in this module hides a same-named one in FoundationNetworking (which this
// module imports) for every file that imports Security — verified for top-level constants, members
// of different types (`remotePort: Int?` hides corelibs' `String?`) and top-level types
// (`tls_protocol_version_t`). It does NOT work for two members, which therefore stay corelibs':
//   - `URLSessionTaskMetrics.ResourceFetchType`: a nested type redeclared in an extension is an
//     "ambiguous type name" error, not a shadow. Corelibs' enum has Apple's cases (unknown, networkLoad,
//     serverPush (deprecated), localCache) and raw type Int; only serverPush's deprecation is spelled
//     differently (`@available(swift, deprecated: 6.1)` vs Apple's macOS 15.4/iOS 18.4 deprecation).
//   - `URLProtectionSpace.isProxy()`: an NSObject method, and "instance method 'isProxy()' declared in
//     'NSObject' cannot be overridden from extension". Corelibs' `override open func isProxy() -> Bool`
//     has Apple's signature (`func isProxy() -> Bool`; iOS 2.0, macOS 10.2, tvOS 9.0, watchOS 2.0,
//     visionOS 1.0 — developer.apple.com/documentation/foundation/urlprotectionspace/isproxy()).
//
// Sources: Apple's documentation pages, read in theAppLaunchers/apple-docs-for-rag
// foundation/md/foundation-<type>-<member>.md (Swift declaration and every platform's availability),
// cross-checked against the generated iOS interfaces DougGregor/swift-concurrency-objc
// iOS/Foundation/NSURLSession.swift. Members of existing classes are declared in extensions, so the
// initializers are `convenience` and the stored properties computed (`{ get set }` / `{ get }`), the
// unavoidable spelling differences of an extension.

// MARK: NSURLProtectionSpace.h

// Foundation/NSURLProtectionSpace.h: NSURLAuthenticationMethodServerTrust —
// `let NSURLAuthenticationMethodServerTrust: String`; iOS 3.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0.
// (corelibs declares it unavailable.)
@available(macOS 10.6, iOS 3.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
public let NSURLAuthenticationMethodServerTrust: String = { fatalError() }()

// Foundation/NSURLProtectionSpace.h: NSURLAuthenticationMethodClientCertificate —
// `let NSURLAuthenticationMethodClientCertificate: String`; iOS 3.0, macOS 10.6, tvOS 9.0, watchOS 2.0,
// visionOS 1.0. (corelibs declares it unavailable.)
@available(macOS 10.6, iOS 3.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
public let NSURLAuthenticationMethodClientCertificate: String = { fatalError() }()

extension URLProtectionSpace {
    // Foundation/NSURLProtectionSpace.h: URLProtectionSpace.host — `var host: String { get }`;
    // iOS 2.0, macOS 10.2, tvOS 9.0, watchOS 2.0, visionOS 1.0.
    @available(macOS 10.2, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
    public var host: String { fatalError() }

    // Foundation/NSURLProtectionSpace.h: URLProtectionSpace.port — `var port: Int { get }`;
    // iOS 2.0, macOS 10.2, tvOS 9.0, watchOS 2.0, visionOS 1.0.
    @available(macOS 10.2, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
    public var port: Int { fatalError() }

    // Foundation/NSURLProtectionSpace.h: URLProtectionSpace.authenticationMethod —
    // `var authenticationMethod: String { get }`; iOS 2.0, macOS 10.2, tvOS 9.0, watchOS 2.0, visionOS 1.0.
    @available(macOS 10.2, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
    public var authenticationMethod: String { fatalError() }

    // Foundation/NSURLProtectionSpace.h: URLProtectionSpace.serverTrust — `var serverTrust: SecTrust? { get }`;
    // iOS 3.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0. (corelibs declares it unavailable.)
    @available(macOS 10.6, iOS 3.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
    public var serverTrust: SecTrust? { fatalError() }
}

// MARK: NSURLCredential.h

extension URLCredential {
    // Foundation/NSURLCredential.h: URLCredential.init(trust:) — `init(trust: SecTrust)`;
    // iOS 3.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0. (missing from corelibs.)
    @available(macOS 10.6, iOS 3.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
    public convenience init(trust: SecTrust) { fatalError() }

    // Foundation/NSURLCredential.h: URLCredential.init(identity:certificates:persistence:) —
    // `init(identity: SecIdentity, certificates certArray: [Any]?, persistence: URLCredential.Persistence)`;
    // iOS 3.0, macOS 10.6, tvOS 9.0, watchOS 2.0, visionOS 1.0. (missing from corelibs.)
    @available(macOS 10.6, iOS 3.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
    public convenience init(
        identity: SecIdentity,
        certificates certArray: [Any]?,
        persistence: URLCredential.Persistence
    ) {
        fatalError()
    }
}

// MARK: NSURLSession.h

extension URLSessionConfiguration {
    // Foundation/NSURLSession.h: URLSessionConfiguration.tlsMinimumSupportedProtocolVersion —
    // `var tlsMinimumSupportedProtocolVersion: tls_protocol_version_t { get set }`; iOS 13.0, macOS 10.15,
    // tvOS 13.0, watchOS 6.0, visionOS 1.0. (missing from corelibs.)
    @available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
    public var tlsMinimumSupportedProtocolVersion: tls_protocol_version_t {
        get { fatalError() }
        set { fatalError() }
    }

    // Foundation/NSURLSession.h: URLSessionConfiguration.waitsForConnectivity — `var waitsForConnectivity:
    // Bool { get set }`; iOS 11.0, macOS 10.13, tvOS 11.0, watchOS 4.0, visionOS 1.0
    // (developer.apple.com/documentation/foundation/urlsessionconfiguration/waitsforconnectivity).
    // (get-only in corelibs.)
    @available(macOS 10.13, iOS 11.0, tvOS 11.0, watchOS 4.0, visionOS 1.0, *)
    public var waitsForConnectivity: Bool {
        get { fatalError() }
        set { fatalError() }
    }
}

extension URLSession {
    // Foundation/NSURLSession.h: URLSession.finishTasksAndInvalidate() — `func finishTasksAndInvalidate()`;
    // iOS 7.0, macOS 10.9, tvOS 9.0, watchOS 2.0, visionOS 1.0.
    @available(macOS 10.9, iOS 7.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
    public func finishTasksAndInvalidate() { fatalError() }
}

extension URLSessionTask {
    // Foundation/NSURLSession.h: URLSessionTask.priority — `var priority: Float { get set }`;
    // iOS 8.0, macOS 10.10, tvOS 9.0, watchOS 2.0, visionOS 1.0.
    @available(macOS 10.10, iOS 8.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
    public var priority: Float {
        get { fatalError() }
        set { fatalError() }
    }

    // Foundation/NSURLSession.h: URLSessionTask.highPriority — `class let highPriority: Float`;
    // iOS 8.0, macOS 10.10, tvOS 9.0, watchOS 2.0, visionOS 1.0. A `class let` cannot be written in
    // Swift; `class var { get }` reads the same at every use site.
    @available(macOS 10.10, iOS 8.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
    public class var highPriority: Float { fatalError() }
}

extension URLSessionTaskMetrics {
    // Foundation/NSURLSession.h: URLSessionTaskMetrics.transactionMetrics —
    // `var transactionMetrics: [URLSessionTaskTransactionMetrics] { get }`; iOS 10.0, macOS 10.12, tvOS 10.0,
    // watchOS 3.0, visionOS 1.0.
    @available(macOS 10.12, iOS 10.0, tvOS 10.0, watchOS 3.0, visionOS 1.0, *)
    public var transactionMetrics: [URLSessionTaskTransactionMetrics] { fatalError() }
}

extension URLSessionTaskTransactionMetrics {
    // Foundation/NSURLSession.h: URLSessionTaskTransactionMetrics.isReusedConnection —
    // `var isReusedConnection: Bool { get }`; iOS 10.0, macOS 10.12, tvOS 10.0, watchOS 3.0, visionOS 1.0.
    @available(macOS 10.12, iOS 10.0, tvOS 10.0, watchOS 3.0, visionOS 1.0, *)
    public var isReusedConnection: Bool { fatalError() }

    // Foundation/NSURLSession.h: URLSessionTaskTransactionMetrics.resourceFetchType —
    // `var resourceFetchType: URLSessionTaskMetrics.ResourceFetchType { get }`; iOS 10.0, macOS 10.12,
    // tvOS 10.0, watchOS 3.0, visionOS 1.0. The enum itself is corelibs' (see the file header): Apple's
    // `enum ResourceFetchType: Int` (iOS 10.0, macOS 10.12, tvOS 10.0, watchOS 3.0, visionOS 1.0;
    // developer.apple.com/documentation/foundation/urlsessiontaskmetrics/resourcefetchtype) has the same
    // cases unknown, networkLoad, serverPush, localCache.
    @available(macOS 10.12, iOS 10.0, tvOS 10.0, watchOS 3.0, visionOS 1.0, *)
    public var resourceFetchType: FoundationNetworking.URLSessionTaskMetrics.ResourceFetchType { fatalError() }

    // Foundation/NSURLSession.h: URLSessionTaskTransactionMetrics.remoteAddress — `var remoteAddress: String? { get }`;
    // iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0.
    @available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
    public var remoteAddress: String? { fatalError() }

    // Foundation overlay (Swift refinement of the imported `__remotePort: NSNumber?`):
    // URLSessionTaskTransactionMetrics.remotePort — `var remotePort: Int? { get }`; iOS 13.0, macOS 10.15,
    // tvOS 13.0, watchOS 6.0, visionOS 1.0 (generated iOS interface: `@available(macOS 10.15, iOS 13.0,
    // watchOS 6.0, tvOS 13.0, *) extension URLSessionTaskTransactionMetrics { var remotePort: Int? { get } … }`).
    // (corelibs spells it `String?`.)
    @available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
    public var remotePort: Int? { fatalError() }

    // Foundation/NSURLSession.h: URLSessionTaskTransactionMetrics.localAddress — `var localAddress: String? { get }`;
    // iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0.
    @available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
    public var localAddress: String? { fatalError() }

    // Foundation overlay (refinement of `__localPort: NSNumber?`): URLSessionTaskTransactionMetrics.localPort —
    // `var localPort: Int? { get }`; iOS 13.0, macOS 10.15, tvOS 13.0, watchOS 6.0, visionOS 1.0.
    // (corelibs spells it `String?`.)
    @available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
    public var localPort: Int? { fatalError() }

    // Foundation overlay (refinement of `__negotiatedTLSProtocolVersion: NSNumber?`):
    // URLSessionTaskTransactionMetrics.negotiatedTLSProtocolVersion —
    // `var negotiatedTLSProtocolVersion: tls_protocol_version_t? { get }`; iOS 13.0, macOS 10.15, tvOS 13.0,
    // watchOS 6.0, visionOS 1.0. (corelibs' returns its own tls_protocol_version_t.)
    @available(macOS 10.15, iOS 13.0, tvOS 13.0, watchOS 6.0, visionOS 1.0, *)
    public var negotiatedTLSProtocolVersion: tls_protocol_version_t? { fatalError() }
}
