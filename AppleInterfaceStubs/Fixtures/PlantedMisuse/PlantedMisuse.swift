// The planted misuse of `python3 AppleInterfaceStubs/availability.py --self-test` (never part of the
// package build). Each pass rewrites and type-checks this file against the rewritten stubs; the check
// passes only if exactly the three `// EXPECT <pass>: <message>` errors below are reported, each on
// its line and in its pass, and nothing else: so each kind of misuse is shown to fail, and the
// correct uses beside them (tiers that nest, `#available`, `guard #available`, unavailable code
// using unavailable code, `#if os(…)` branches) are shown not to.
import LocalAuthentication
import Security

@available(macOS 14, *)
public func sinceMacOS14() {}

@available(macOS 15, *)
public func sinceMacOS15() {
    sinceMacOS14()  // a macOS 15 declaration may use a macOS 14 one
}

// 1. A macOS 15 declaration used from code that runs on macOS 13 (the floor).
public func onEveryMacOS() {
    sinceMacOS15()  // EXPECT macOS: 'sinceMacOS15()' is only available in macOS
    if #available(macOS 15, *) {
        sinceMacOS15()
    }
}

public func guarded() {
    guard #available(macOS 15, iOS 17, tvOS 17, watchOS 10, *) else { return }
    sinceMacOS15()
    if #available(iOS 16, *) {}  // at the floor: always true
}

// 2. A tvOS-unavailable API (the stub's `LAContext`) used where the tvOS pass compiles.
public func onEveryPlatform() -> Bool {
    let context = LAContext()  // EXPECT tvOS: 'LAContext' is unavailable
    return context.canEvaluatePolicy(.deviceOwnerAuthentication, error: nil)
}

@available(tvOS, unavailable)
public func notOnTVOS() -> LAContext { LAContext() }

#if !os(tvOS)
public func outsideTVOS() -> LAContext { LAContext() }
#endif

// 3. A stub declaration newer than the floor (`SecAccessControlCreateFlags.companion`: iOS 18,
// macOS 15, tvOS 18, watchOS 11) used without `#available`, in a branch only the iOS pass compiles.
#if os(iOS)
public func onIOS() -> [SecAccessControlCreateFlags] {
    var flags: [SecAccessControlCreateFlags] = [.companion]  // EXPECT iOS: 'companion' is only available in iOS
    if #available(iOS 18, *) {
        flags.append(.companion)
    }
    return flags
}
#elseif os(Linux)
public let compiledOnLinux: Int = "a type error, were this branch compiled"  // os(Linux) is false in every pass
#endif
