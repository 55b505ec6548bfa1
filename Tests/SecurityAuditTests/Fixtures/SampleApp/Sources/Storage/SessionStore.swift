import Foundation
import Security
import SwiftUI

/// Persists the signed-in session.
final class SessionStore {
    private let defaults = UserDefaults.standard

    func save(accessToken: String, keychain: KeychainStore) {
        defaults.set(accessToken, forKey: "authToken")
        UserDefaults.standard.set(true, forKey: "hasSeenOnboarding")
        keychain.set(accessToken, forKey: "authToken")
    }

    func exportSession(refreshToken: String, to url: URL) {
        NSDictionary(dictionary: ["refreshToken": refreshToken]).write(to: url, atomically: true)
        NSDictionary(dictionary: ["theme": "dark"]).write(to: url, atomically: true)
    }

    func keychainQuery(for account: String, data: Data) -> [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrAccount as String: account,
            kSecValueData as String: data,
            kSecAttrAccessible as String: kSecAttrAccessibleAlways,
        ]
    }

    func safeKeychainQuery(for account: String, data: Data) -> [String: Any] {
        [
            kSecClass as String: kSecClassGenericPassword,
            kSecAttrAccount as String: account,
            kSecValueData as String: data,
            kSecAttrAccessible as String: kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly,
        ]
    }
}

struct SettingsView: View {
    @AppStorage("apiToken") private var apiToken = ""
    @AppStorage("prefersDarkMode") private var prefersDarkMode = false

    var body: some View { Text("Settings") }
}

enum Credentials {
    static let password = ""
    static let apiKey = ProcessInfo.processInfo.environment["API_KEY"]
    static let clientSecret = "Zx9Qw3Er7Ty1Ui5Op2As8Df4Gh6Jk0Lm" // securenet:ignore SN012 sandbox-only OAuth client
    static let serviceToken = "Zx9Qw3Er7Ty1Ui5Op2As8Df4Gh6Jk0Ln" // securenet:ignore SN099 typo in the rule ID
}
