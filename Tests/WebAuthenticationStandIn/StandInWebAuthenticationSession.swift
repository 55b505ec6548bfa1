// Compiled in Swift 5 language mode (see Package.swift), as Swift imports Apple's Objective-C
// frameworks: its completion handler is a plain `(URL?, Error?) -> Void`, not `@Sendable`, so a
// Swift 6 caller may hand it a main-actor closure, whose entry then checks the executor.
import Foundation

/// Shaped like AuthenticationServices' `ASWebAuthenticationSession` as Swift imports it
/// (`init(url:callbackURLScheme:completionHandler:)`, `prefersEphemeralWebBrowserSession`,
/// `start() -> Bool`), and completing as it does on macOS (and sometimes on iOS): on a thread of
/// its own, never the main thread.
///
/// Nothing is shown: `start()` reports ``reportedCallbackURL`` and ``reportedError``.
open class StandInWebAuthenticationSession: NSObject {
    /// `ASWebAuthenticationSession.CompletionHandler`.
    public typealias CompletionHandler = (URL?, Error?) -> Void

    /// The page the session would show.
    public let url: URL
    /// The scheme the session would listen for.
    public let callbackURLScheme: String?
    private let completionHandler: CompletionHandler

    /// Set before `start()`: the callback URL the completion reports.
    public var reportedCallbackURL: URL?
    /// Set before `start()`: the error the completion reports.
    public var reportedError: Error?
    /// Set before `start()`: false makes `start()` fail without calling the completion.
    public var startSucceeds = true
    /// Set before `start()`: true calls the completion inside `start()`, on the caller's thread,
    /// before `start()` returns (``startSucceeds`` still decides what it returns).
    public var completesDuringStart = false
    /// `ASWebAuthenticationSession.prefersEphemeralWebBrowserSession`; only recorded.
    open var prefersEphemeralWebBrowserSession = false

    private let lock = NSLock()
    private var completionThreadWasMain: Bool?
    private var starts = 0

    /// Whether the completion was called on the main thread; nil until it is called.
    public var completedOnMainThread: Bool? {
        self.lock.lock()
        defer { self.lock.unlock() }
        return self.completionThreadWasMain
    }

    /// How many times `start()` was called.
    public var startCount: Int {
        self.lock.lock()
        defer { self.lock.unlock() }
        return self.starts
    }

    /// `ASWebAuthenticationSession.init(url:callbackURLScheme:completionHandler:)`.
    public init(url: URL, callbackURLScheme: String?, completionHandler: @escaping CompletionHandler) {
        self.url = url
        self.callbackURLScheme = callbackURLScheme
        self.completionHandler = completionHandler
        super.init()
    }

    /// `ASWebAuthenticationSession.start()`: calls the completion once, on a new thread (or, with
    /// ``completesDuringStart``, before returning), unless ``startSucceeds`` is false.
    open func start() -> Bool {
        self.lock.lock()
        self.starts += 1
        self.lock.unlock()
        if self.completesDuringStart {
            self.complete()
            return self.startSucceeds
        }
        guard self.startSucceeds else { return false }
        let thread = Thread { self.complete() }
        thread.start()
        return true
    }

    private func complete() {
        self.lock.lock()
        self.completionThreadWasMain = Thread.isMainThread
        self.lock.unlock()
        self.completionHandler(self.reportedCallbackURL, self.reportedError)
    }
}

/// Shaped like `ASWebAuthenticationSessionError`: what the stand-in reports for a cancel.
public struct StandInWebAuthenticationSessionError: Error, Equatable {
    /// `ASWebAuthenticationSessionError.Code`.
    public enum Code: Int {
        /// The user cancelled (`.canceledLogin`).
        case canceledLogin = 1
    }

    /// The error's code.
    public let code: Code

    /// An error with `code`.
    public init(_ code: Code) {
        self.code = code
    }
}
