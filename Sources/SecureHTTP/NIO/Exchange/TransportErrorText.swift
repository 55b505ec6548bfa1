import NIOCore
import NIOPosix
import NIOSSL

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Plain sentences for what went wrong below HTTP: one rule for every place a socket, resolver,
/// channel or TLS error becomes a ``SecureHTTPError`` message, so that no NIO, BoringSSL or OS
/// debug text ("connection reset (error set)") reaches a person.
///
/// ``Cause`` is the portable half (URLSession's errors map to it as well); ``cause(of:peer:)``
/// reads NIO's errors. Sentences name addresses, host names and durations, never bytes from the
/// peer.
enum TransportErrorText {
    /// What went wrong, as far as a person needs to know.
    enum Cause: Equatable, Sendable {
        /// The peer answered the connection attempt with a reset (nothing listens there).
        case refused(peer: String)
        /// The name did not resolve.
        case hostNotFound(String)
        /// An established connection was reset.
        case reset
        /// The peer closed the connection.
        case closedByPeer
        /// This side's connection was already closed when it was used.
        case closed
        /// Something did not happen within `after`, the configured time.
        case timedOut(what: String, after: Duration)
        /// The OS gave up waiting (a TCP timeout, not one this library set).
        case systemTimedOut(peer: String?)
        /// There is no route to the network.
        case networkUnreachable
        /// There is no route to the host.
        case hostUnreachable(peer: String?)
        /// The device is not connected to a network.
        case offline
        /// The TLS handshake failed, with BoringSSL's reason or the alert the peer sent, in words.
        case tlsHandshake(reason: String?)
        /// The peer closed the TLS connection without a `close_notify`.
        case tlsUncleanShutdown
        /// Another TLS failure, in words.
        case tls(reason: String)
        /// Another OS error, with its `strerror` text.
        case system(text: String, errno: Int32)
        /// Anything else: the error's type, never its payload.
        case other(typeName: String)

        /// The sentence: lower case, no final full stop, so that it can follow a colon.
        var sentence: String {
            switch self {
            case .refused(let peer): "connection refused by \(peer)"
            case .hostNotFound(let name): "host not found: \(name)"
            case .reset: "the connection was reset by the server"
            case .closedByPeer: "the server closed the connection"
            case .closed: "the connection was already closed"
            case .timedOut(let what, let after): "\(what) timed out after \(TransportErrorText.seconds(after))"
            case .systemTimedOut(let peer):
                peer.map { "the connection to \($0) timed out" } ?? "the connection timed out"
            case .networkUnreachable: "the network is unreachable"
            case .hostUnreachable(let peer): peer.map { "no route to \($0)" } ?? "no route to the host"
            case .offline: "this device is not connected to a network"
            case .tlsHandshake(let reason):
                reason.map { "the TLS handshake failed: \($0)" } ?? "the TLS handshake failed"
            case .tlsUncleanShutdown: "the server ended the TLS connection without closing it properly"
            case .tls(let reason): "TLS failed: \(reason)"
            case .system(let text, let code): "\(text) (errno \(code))"
            case .other(let typeName): "an unexpected \(typeName)"
            }
        }
    }

    /// The sentence for `error`; `peer` names the other end when the error does not.
    static func sentence(for error: any Error, peer: String? = nil) -> String {
        self.cause(of: error, peer: peer).sentence
    }

    /// Reads a NIO, NIOSSL, resolver or OS error.
    static func cause(of error: any Error, peer: String? = nil) -> Cause {
        switch error {
        case let error as NIOConnectionError:
            if error.dnsAError != nil || error.dnsAAAAError != nil { return .hostNotFound(error.host) }
            let causes = error.connectionErrors.map { self.cause(of: $0.error, peer: self.text($0.target)) }
            // Every address refused or failed alike: say it once, for the first address.
            guard let first = causes.first else { return .hostNotFound(error.host) }
            return first
        case let error as SocketAddressError.UnknownHost:
            return .hostNotFound(error.host)
        case let error as IOError:
            return self.cause(errno: error.errnoCode, peer: peer)
        case let error as ChannelError:
            return self.cause(channel: error, peer: peer)
        case let error as NIOSSLError:
            switch error {
            case .handshakeFailed(let boring): return .tlsHandshake(reason: self.reason(boring))
            case .uncleanShutdown: return .tlsUncleanShutdown
            case .shutdownFailed(let boring): return .tls(reason: self.reason(boring) ?? "the TLS shutdown failed")
            default: return .tls(reason: self.words(String(describing: error)))
            }
        case let error as BoringSSLError:
            return .tlsHandshake(reason: self.reason(error))
        default:
            return .other(typeName: self.typeName(of: error))
        }
    }

    /// An `errno` from a socket call.
    static func cause(errno code: Int32, peer: String?) -> Cause {
        switch code {
        case ECONNREFUSED: return .refused(peer: peer ?? "the server")
        case ECONNRESET: return .reset
        case EPIPE, ECONNABORTED: return .closedByPeer
        case ETIMEDOUT: return .systemTimedOut(peer: peer)
        case ENETUNREACH, ENETDOWN: return .networkUnreachable
        case EHOSTUNREACH, EHOSTDOWN: return .hostUnreachable(peer: peer)
        default:
            var text = String(cString: strerror(code))
            if let first = text.first { text.replaceSubrange(...text.startIndex, with: first.lowercased()) }
            return .system(text: text, errno: code)
        }
    }

    private static func cause(channel error: ChannelError, peer: String?) -> Cause {
        switch error {
        case .connectTimeout(let amount):
            return .timedOut(
                what: peer.map { "connecting to \($0)" } ?? "connecting",
                after: .nanoseconds(amount.nanoseconds)
            )
        case .ioOnClosedChannel, .alreadyClosed, .outputClosed: return .closed
        case .inputClosed, .eof: return .closedByPeer
        case .writeHostUnreachable: return .hostUnreachable(peer: peer)
        default: return .other(typeName: "channel error (\(error))")
        }
    }

    /// BoringSSL's reasons, in words: the alert the peer sent (`SSLV3_ALERT_HANDSHAKE_FAILURE` →
    /// "the server sent a handshake failure alert") or the library's own reason
    /// (`WRONG_VERSION_NUMBER` → "wrong version number").
    static func reason(_ error: BoringSSLError) -> String? {
        self.reason(boringSSLText: String(describing: error))
    }

    /// The reason codes in BoringSSL's text (`error:10000410:SSL routines:OPENSSL_internal:
    /// SSLV3_ALERT_HANDSHAKE_FAILURE`), in words; nil when there are none.
    static func reason(boringSSLText text: String) -> String? {
        var reasons: [String] = []
        for part in text.split(whereSeparator: { !($0.isLetter || $0.isNumber || $0 == "_") }) {
            guard part.count >= 4, part.contains("_"), part.allSatisfy({ $0.isUppercase || $0.isNumber || $0 == "_" }),
                part != "OPENSSL_INTERNAL"
            else { continue }
            var name = String(part)
            var alert = false
            for prefix in ["SSLV3_ALERT_", "TLSV1_ALERT_", "TLSV13_ALERT_"] where name.hasPrefix(prefix) {
                name.removeFirst(prefix.count)
                alert = true
            }
            let words = self.words(name)
            let sentence = alert ? "the server sent a \(words) alert" : words
            if !reasons.contains(sentence) { reasons.append(sentence) }
        }
        return reasons.isEmpty ? nil : reasons.joined(separator: "; ")
    }

    /// `SOME_NAME` or `someName` → "some name".
    private static func words(_ name: String) -> String {
        var result = ""
        var previous: Character?
        for character in name {
            if character == "_" {
                result.append(" ")
            } else {
                if character.isUppercase, previous?.isLowercase == true { result.append(" ") }
                result.append(contentsOf: character.lowercased())
            }
            previous = character
        }
        return result
    }

    /// The error's type name (`StreamClosed`): what failed, without the payload, which for
    /// protocol errors may hold bytes the peer sent.
    static func typeName(of error: any Error) -> String {
        String(describing: type(of: error))
    }

    /// `127.0.0.1:8443` or `[::1]:8443`.
    static func text(_ address: SocketAddress) -> String {
        guard let ip = address.ipAddress else { return address.pathname ?? "the server" }
        let host = ip.contains(":") ? "[\(ip)]" : ip
        return address.port.map { "\(host):\($0)" } ?? host
    }

    /// A duration in seconds for people: "5 s", "0.25 s", "90 s".
    static func seconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        if milliseconds % 1000 == 0 { return "\(milliseconds / 1000) s" }
        var text = String(Double(milliseconds) / 1000)
        while text.hasSuffix("0") { text.removeLast() }
        return "\(text) s"
    }
}
