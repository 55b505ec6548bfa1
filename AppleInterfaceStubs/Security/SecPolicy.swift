// Security/SecPolicy.h. Swift spelling and platforms from Apple's documentation page
// (theAppLaunchers/apple-docs-for-rag Security/md/security-secpolicycreatessl(_:_:).md).

// Security/SecPolicy.h: `SecPolicyRef SecPolicyCreateSSL(Boolean server, CFStringRef __nullable hostname)
// __OSX_AVAILABLE_STARTING(__MAC_10_6, __IPHONE_2_0);` (as quoted in the watchOS SDK header diff of
// xamarin/xamarin-macios' API-diff wiki; an earlier SDK had `__nullable` on the result, removed since) —
// `func SecPolicyCreateSSL(_ server: Bool, _ hostname: CFString?) -> SecPolicy`; iOS 2.0, macOS 10.6,
// tvOS 9.0, watchOS 2.0, visionOS 1.0.
@available(macOS 10.6, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
@discardableResult
public func SecPolicyCreateSSL(_ server: Bool, _ hostname: CFString?) -> SecPolicy { fatalError() }
