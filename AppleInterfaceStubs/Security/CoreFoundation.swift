// CoreFoundation and MacTypes declarations the Apple-only sources use through Security.
//
// THE ONE APPROXIMATION OF THESE STUBS — toll-free bridging: on Apple platforms CFData, CFString,
// CFArray, CFDictionary and CFError are distinct CF classes that Swift bridges to and from Data,
// String, Array, Dictionary and NSError/Error with `as`. swift-corelibs-foundation has no CF classes
// in its public interface, so they are spelled here as type aliases of the NS classes they are
// toll-free bridged with. `Data as CFData`, `String as CFString`, `[T] as CFArray`,
// `[String: Any] as CFDictionary`, `cfString as String`, `cfArray as? [T]` all type-check on Linux
// exactly as they do on Apple platforms, but the stub cannot tell CFData from NSData (code that
// would only compile because CFData *is* NSData here would not be caught).

import Foundation

// CoreFoundation/CFBase.h: CFTypeRef — `typealias CFTypeRef = AnyObject` (developer.apple.com/documentation/corefoundation/cftyperef).
public typealias CFTypeRef = AnyObject

// CoreFoundation/CFBase.h: CFTypeID — `typealias CFTypeID = UInt`
// (developer.apple.com/documentation/corefoundation/cftypeid).
public typealias CFTypeID = UInt

// CoreFoundation/CFBase.h: CFIndex — `typealias CFIndex = Int`
// (developer.apple.com/documentation/corefoundation/cfindex).
public typealias CFIndex = Int

// CoreFoundation/CFBase.h: CFOptionFlags — `typealias CFOptionFlags = UInt` (developer.apple.com/documentation/corefoundation/cfoptionflags).
public typealias CFOptionFlags = UInt

// MacTypes.h: OSStatus, a 32-bit signed integer — `typealias OSStatus = Int32`.
public typealias OSStatus = Int32

// CoreFoundation/CFData.h: CFDataRef, toll-free bridged with NSData (see the file header).
public typealias CFData = NSData

// CoreFoundation/CFString.h: CFStringRef, toll-free bridged with NSString (see the file header).
public typealias CFString = NSString

// CoreFoundation/CFArray.h: CFArrayRef, toll-free bridged with NSArray (see the file header).
public typealias CFArray = NSArray

// CoreFoundation/CFDictionary.h: CFDictionaryRef, toll-free bridged with NSDictionary (see the file header).
public typealias CFDictionary = NSDictionary

// CoreFoundation/CFError.h: CFErrorRef, toll-free bridged with NSError (see the file header).
public typealias CFError = NSError

// CoreFoundation/CFBase.h: CFAllocatorRef — the CF class `CFAllocator` (the Security functions' documentation
// spells their allocator parameter `CFAllocator?`); an opaque CF class, only used here as a parameter type.
public final class CFAllocator {}

// CoreFoundation/CFBase.h: CFGetTypeID — Swift:
// `func CFGetTypeID(_ cf: CFTypeRef!) -> CFTypeID`, no availability restriction
// (developer.apple.com/documentation/corefoundation/cfgettypeid(_:)). Imported C functions are
// implicitly @discardableResult unless the header says warn_unused_result (checked with this
// toolchain's ClangImporter), hence the attribute on every C function of these stubs but one.
@discardableResult
public func CFGetTypeID(_ cf: CFTypeRef!) -> CFTypeID { fatalError() }

// CoreFoundation/CFBase.h: CFEqual — Swift:
// `func CFEqual(_ cf1: CFTypeRef!, _ cf2: CFTypeRef!) -> Bool`
// (developer.apple.com/documentation/corefoundation/cfequal(_:_:)).
@discardableResult
public func CFEqual(_ cf1: CFTypeRef!, _ cf2: CFTypeRef!) -> Bool { fatalError() }

// CoreFoundation/CFError.h: CFErrorGetCode — Swift:
// `func CFErrorGetCode(_ err: CFError!) -> CFIndex`; iOS 2.0, macOS 10.5, tvOS 9.0, watchOS 2.0,
// visionOS 1.0 (developer.apple.com/documentation/corefoundation/cferrorgetcode(_:)).
@available(macOS 10.5, iOS 2.0, tvOS 9.0, watchOS 2.0, visionOS 1.0, *)
@discardableResult
public func CFErrorGetCode(_ err: CFError!) -> CFIndex { fatalError() }
