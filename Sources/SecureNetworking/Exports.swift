// SecureNetworking is the facade: importing it gives the whole library.
@_exported import SecureCrypto
@_exported import SecureHTTP
@_exported import SecureStorage
@_exported import ServerTrust
@_exported import TokenAuth
// swift-certificates' `Certificate`, which trust anchors and client identities take.
@_exported import X509
