// Interface stubs for Apple's AuthenticationServices framework: the web authentication session
// only, transcribed from the SDK headers ASWebAuthenticationSession.h and ASFoundation.h (the
// revision with watchOS 6.2 availability, found through the search tool's code index; its
// repository could not be identified), so that the Apple-only sources
// (`#if canImport(AuthenticationServices)`) type-check on Linux. Nothing here is ever run: every
// body is `fatalError()`. See AppleInterfaceStubs/typecheck.py.
//
// `import AuthenticationServices` re-exports Foundation on Apple platforms
// (ASWebAuthenticationSession.h imports <Foundation/Foundation.h>); mirror that.

@_exported import Foundation

// ASFoundation.h: `typedef UIWindow * ASPresentationAnchor;` with UIKit, `typedef NSWindow *
// ASPresentationAnchor;` with AppKit. APPROXIMATION: both are NSObject subclasses this module
// cannot declare; the sources only pass one through, never build one.
public typealias ASPresentationAnchor = NSObject
