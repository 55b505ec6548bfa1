// SecureNetworking is the facade: importing it gives the whole library.
@_exported import SecureCrypto
@_exported import SecureHTTP
@_exported import SecureStorage
@_exported import ServerTrust
@_exported import TokenAuth
