#if canImport(Security)
import Foundation
import HTTPTypes
import HTTPTypesFoundation
import Security
import ServerTrust
import SwiftASN1
import X509

/// A client certificate credential built from a PKCS#12 identity.
// SAFETY: the credential is only read, through `credential`, while `lock` is held; it is set
// once in `init`. URLCredential and the SecIdentity it holds are immutable after creation.
final class URLSessionClientCredential: @unchecked Sendable {
    private let lock = NSLock()
    private let stored: URLCredential

    /// The credential presented to client-certificate challenges.
    var credential: URLCredential {
        self.lock.lock()
        defer { self.lock.unlock() }
        return self.stored
    }

    init(_ identity: ClientIdentity) throws(SecureHTTPError) {
        switch identity.storage {
        case .pem:
            throw Self.pemUnsupported
        case .pkcs12(let bundle, let passphrase):
            self.stored = try Self.importPKCS12(bundle, passphrase: passphrase)
        }
    }

    static var pemUnsupported: SecureHTTPError {
        SecureHTTPError(
            .invalidClientIdentity,
            "PEM client identities are supported by NIOHTTPTransport only; use a PKCS#12 identity on Apple platforms"
        )
    }

    /// Imports the first identity of a PKCS#12 bundle and the certificates that come with it.
    private static func importPKCS12(_ bundle: [UInt8], passphrase: [UInt8]?) throws(SecureHTTPError) -> URLCredential {
        // A bundle without a passphrase is read with the empty one (what `openssl pkcs12
        // -passout pass:` writes).
        var options: [String: Any] = [
            kSecImportExportPassphrase as String: String(decoding: passphrase ?? [], as: UTF8.self)
        ]
        if #available(macOS 15.0, iOS 18.0, tvOS 18.0, watchOS 11.0, visionOS 2.0, *) {
            options[kSecImportToMemoryOnly as String] = true
        }
        var rawItems: CFArray?
        let status = SecPKCS12Import(Data(bundle) as CFData, options as CFDictionary, &rawItems)
        guard status == errSecSuccess else {
            let reason = status == errSecAuthFailed ? "wrong passphrase or damaged bundle" : "OSStatus \(status)"
            throw SecureHTTPError(.invalidClientIdentity, "the PKCS#12 bundle could not be imported (\(reason))")
        }
        guard let items = rawItems as? [[String: Any]], let first = items.first,
            let identity = cfObject(
                first[kSecImportItemIdentity as String],
                typeID: SecIdentityGetTypeID(),
                as: SecIdentity.self
            )
        else {
            throw SecureHTTPError(
                .invalidClientIdentity,
                "the PKCS#12 bundle holds no certificate with its private key"
            )
        }
        let chain = (first[kSecImportItemCertChain as String] as? [Any] ?? []).compactMap {
            cfObject($0, typeID: SecCertificateGetTypeID(), as: SecCertificate.self)
        }
        var leaf: SecCertificate?
        _ = SecIdentityCopyCertificate(identity, &leaf)
        // URLCredential wants the certificates that lead from the identity's leaf to a root.
        let intermediates = chain.filter { certificate in leaf.map { !CFEqual($0, certificate) } ?? true }
        return URLCredential(
            identity: identity,
            certificates: intermediates.isEmpty ? nil : intermediates,
            persistence: .forSession
        )
    }
}

/// The CF object in `value` when its type is `typeID`, else nil.
func cfObject<T: AnyObject>(_ value: Any?, typeID: CFTypeID, as type: T.Type) -> T? {
    guard let value else { return nil }
    let object = value as AnyObject
    guard CFGetTypeID(object) == typeID else { return nil }
    return unsafeDowncast(object, to: T.self)
}

/// The session delegate: translates URLSession's and Security.framework's values into
/// ``URLSessionDelegatePolicy``'s, carries out its answers, bounds response bodies and completes
/// the exchanges of ``URLSessionTaskTable``. It decides nothing itself.
final class URLSessionTransportDelegate: NSObject, URLSessionDataDelegate, Sendable {
    let table: URLSessionTaskTable
    private let policy: URLSessionDelegatePolicy
    private let maximumResponseBodySize: Int
    private let pinValidationReporter: (@Sendable (PinValidationReport) -> Void)?
    private let clientCredential: URLSessionClientCredential?
    /// The DER of the app-supplied anchors of the session's requirements, encoded once per
    /// session rather than in every handshake.
    private let anchorDER: [Data]

    init(
        policy: URLSessionDelegatePolicy,
        anchorDER: [Data],
        maximumResponseBodySize: Int,
        pinValidationReporter: (@Sendable (PinValidationReport) -> Void)?,
        clientCredential: URLSessionClientCredential?
    ) {
        self.table = URLSessionTaskTable(policy: policy)
        self.policy = policy
        self.maximumResponseBodySize = maximumResponseBodySize
        self.pinValidationReporter = pinValidationReporter
        self.clientCredential = clientCredential
        self.anchorDER = anchorDER
        super.init()
    }

    // MARK: URLSessionTaskDelegate

    /// Never follows a redirect: the 3xx response goes back to the request driver, which
    /// applies the same redirect rules on every platform.
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest
    ) async -> URLRequest? {
        self.policy.followsRedirect(status: response.statusCode) ? request : nil
    }

    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        didReceive challenge: URLAuthenticationChallenge
    ) async -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        let space = challenge.protectionSpace
        let method: URLSessionDelegatePolicy.Challenge.Method
        switch space.authenticationMethod {
        case NSURLAuthenticationMethodServerTrust: method = .serverTrust
        case NSURLAuthenticationMethodClientCertificate: method = .clientCertificate
        default: method = .other
        }
        let facts = URLSessionDelegatePolicy.Challenge(
            method: method,
            host: space.host,
            port: space.port,
            isProxy: space.isProxy(),
            hasServerTrust: space.serverTrust != nil
        )
        let identifier = task.taskIdentifier
        switch self.policy.step(for: facts, taskRequirements: self.table.requirements(for: identifier)) {
        case .performDefaultHandling:
            return (.performDefaultHandling, nil)
        case .cancel(let failure):
            self.table.record(failure, for: identifier)
            return (.cancelAuthenticationChallenge, nil)
        case .presentClientIdentity:
            guard let clientCredential = self.clientCredential else {
                // Unreachable: the policy presents an identity only when there is one.
                self.table.record(
                    SecureHTTPError(.clientCertificateRequired, "the transport has no client identity"),
                    for: identifier
                )
                return (.cancelAuthenticationChallenge, nil)
            }
            return (.useCredential, clientCredential.credential)
        case .evaluateServerTrust(let requirements):
            guard let trust = space.serverTrust else {
                // Unreachable: the policy evaluates only a challenge that carries a trust.
                self.table.record(
                    SecureHTTPError(.serverTrustFailure, "\(requirements.host) presented no certificate chain"),
                    for: identifier
                )
                return (.cancelAuthenticationChallenge, nil)
            }
            let evaluation = SecTrustChainValidator.evaluate(trust, for: requirements, anchorDER: self.anchorDER)
            let conclusion = self.policy.conclude(evaluation, requirements: requirements)
            if let report = conclusion.pinReport {
                self.pinValidationReporter?(report)
            }
            if let failure = conclusion.failure {
                self.table.record(failure, for: identifier)
                return (.cancelAuthenticationChallenge, nil)
            }
            self.table.challengeAccepted(for: identifier)
            return (.useCredential, URLCredential(trust: trust))
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didFinishCollecting metrics: URLSessionTaskMetrics) {
        // The last transaction that went to the network carried the response.
        guard let transaction = metrics.transactionMetrics.last(where: { $0.resourceFetchType == .networkLoad }) else {
            return
        }
        self.table.record(
            URLSessionDelegatePolicy.Connection(isReused: transaction.isReusedConnection),
            for: task.taskIdentifier
        )
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        self.table.complete(task.taskIdentifier, error: error, response: task.response)
    }

    // MARK: URLSessionDataDelegate

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if self.table.append(data, to: dataTask.taskIdentifier, limit: self.maximumResponseBodySize) {
            dataTask.cancel()
        }
    }
}
#endif
