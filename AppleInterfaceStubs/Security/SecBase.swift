// Security/SecBase.h: the opaque CF types declared there and the Security result codes the
// Apple-only sources use.
//
// SecBase.h declares the types as `typedef struct CF_BRIDGED_TYPE(id) __SecX *SecXRef;` with no
// availability attribute; Swift imports each as a CF class. Apple's documentation lists their
// conformances as Equatable and Hashable (not Sendable): developer.apple.com/documentation/security/
// seccertificate, .../secidentity, .../secpolicy, .../secaccesscontrol (read in
// theAppLaunchers/apple-docs-for-rag Security/md/security-<name>.md).

// Security/SecBase.h: `typedef struct CF_BRIDGED_TYPE(id) __SecCertificate *SecCertificateRef;` — `class SecCertificate`.
public final class SecCertificate: Hashable {
    public static func == (lhs: SecCertificate, rhs: SecCertificate) -> Bool { fatalError() }
    public func hash(into hasher: inout Hasher) { fatalError() }
}

// Security/SecBase.h: `typedef struct CF_BRIDGED_TYPE(id) __SecIdentity *SecIdentityRef;` — `class SecIdentity`.
public final class SecIdentity: Hashable {
    public static func == (lhs: SecIdentity, rhs: SecIdentity) -> Bool { fatalError() }
    public func hash(into hasher: inout Hasher) { fatalError() }
}

// Security/SecBase.h: `typedef struct CF_BRIDGED_TYPE(id) __SecPolicy *SecPolicyRef;` — `class SecPolicy`.
public final class SecPolicy: Hashable {
    public static func == (lhs: SecPolicy, rhs: SecPolicy) -> Bool { fatalError() }
    public func hash(into hasher: inout Hasher) { fatalError() }
}

// Security/SecBase.h: `typedef struct CF_BRIDGED_TYPE(id) __SecAccessControl *SecAccessControlRef;` — `class SecAccessControl`.
public final class SecAccessControl: Hashable {
    public static func == (lhs: SecAccessControl, rhs: SecAccessControl) -> Bool { fatalError() }
    public func hash(into hasher: inout Hasher) { fatalError() }
}

// Security result codes. Security/SecBase.h declares them in an anonymous `CF_ENUM(OSStatus)` with
// no availability attribute; Swift imports each as `var errSecX: OSStatus { get }`
// (DougGregor/swift-concurrency-objc iOS/Security/SecBase.swift). Values from SecBase.h
// (helinyu/component Security/SecBase.h, an SDK copy, Copyright 2000-2016 Apple).

// Security/SecBase.h: `errSecSuccess = 0, /* No error. */`
public var errSecSuccess: OSStatus { 0 }

// Security/SecBase.h: `errSecUserCanceled = -128, /* User canceled the operation. */`
public var errSecUserCanceled: OSStatus { -128 }

// Security/SecBase.h: `errSecMissingEntitlement = -34018, /* A required entitlement isn't present. */`
public var errSecMissingEntitlement: OSStatus { -34018 }

// Security/SecBase.h: `errSecAuthFailed = -25293, /* The user name or passphrase you entered is not correct. */`
public var errSecAuthFailed: OSStatus { -25293 }

// Security/SecBase.h: `errSecDuplicateItem = -25299, /* The specified item already exists in the keychain. */`
public var errSecDuplicateItem: OSStatus { -25299 }

// Security/SecBase.h: `errSecItemNotFound = -25300, /* The specified item could not be found in the keychain. */`
public var errSecItemNotFound: OSStatus { -25300 }

// Security/SecBase.h: `errSecInteractionNotAllowed = -25308, /* User interaction is not allowed. */`
public var errSecInteractionNotAllowed: OSStatus { -25308 }

// Security/SecBase.h: `errSecCreateChainFailed = -25318, /* One or more certificates required to validate this certificate cannot be found. */`
public var errSecCreateChainFailed: OSStatus { -25318 }

// Security/SecBase.h: `errSecHostNameMismatch = -67602, /* A host name mismatch has occurred. */`
public var errSecHostNameMismatch: OSStatus { -67602 }

// Security/SecBase.h: `errSecCertificateExpired = -67818, /* An expired certificate was detected. */`
public var errSecCertificateExpired: OSStatus { -67818 }

// Security/SecBase.h: `errSecCertificateNotValidYet = -67819, /* The certificate is not yet valid. */`
public var errSecCertificateNotValidYet: OSStatus { -67819 }

// Security/SecBase.h: `errSecNotTrusted = -67843, /* The certificate was not trusted. */`
public var errSecNotTrusted: OSStatus { -67843 }
