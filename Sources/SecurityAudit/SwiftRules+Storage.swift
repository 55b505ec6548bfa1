#if Tools
import SwiftSyntax

// Storage rules for Swift sources: SN006 secrets in UserDefaults/plists, SN009 Keychain accessibility,
// SN012 hard-coded credentials, SN014 TrustKit pins without a backup.
extension SwiftRuleVisitor {
    // MARK: SN006 secret-in-user-defaults

    /// `UserDefaults…set(x, forKey: k)` / `setValue(x, forKey: k)` on a receiver whose text mentions
    /// "defaults" (`UserDefaults.standard`, `defaults`, `sharedDefaults`…) when the key (or the value of
    /// the key constant, within the file) is a secret name, or the stored value carries a secret: it is
    /// named like one, built from one through a local binding, or a value of a type of this file that
    /// holds one. A Keychain wrapper's `set(_:forKey:)` is not a UserDefaults receiver.
    func checkUserDefaultsWrite(_ node: FunctionCallExprSyntax, callee: Callee) {
        guard callee.name == "set" || callee.name == "setValue",
            callee.baseText.lowercased().containsUTF8("defaults"),
            let keyArgument = node.arguments.first(where: { $0.label?.text == "forKey" })
        else { return }
        // The key as written and, for a constant of this file, its value; the value as written,
        // or what it was built from (`let data = try JSONEncoder().encode(tokens)`).
        let keyNames = keyTexts(keyArgument.expression)
        let secret =
            keyNames.first { SecretNames.isSecret($0) }
            ?? node.arguments.first.flatMap { secretCarried(by: $0.expression) }
        guard let secret, !SecretNames.isPushToken(secret) else { return }
        report(
            .secretInUserDefaults,
            at: node,
            message: "'\(secret)' is written to UserDefaults, an unencrypted plist in the app container"
        )
    }

    /// `@AppStorage("token")` / `@AppStorage(Keys.token)`.
    func checkAppStorage(_ node: AttributeSyntax) {
        guard node.attributeName.trimmedDescription == "AppStorage",
            case .argumentList(let arguments) = node.arguments,
            let first = arguments.first
        else { return }
        guard let key = SyntaxHelpers.literalValue(first.expression) ?? SyntaxHelpers.trailingName(first.expression),
            SecretNames.isSecret(key)
        else { return }
        report(
            .secretInUserDefaults,
            at: node,
            message: "@AppStorage(\"\(key)\") keeps a secret in UserDefaults, an unencrypted plist"
        )
    }

    /// Secrets written to plist files: `NSDictionary(…).write(to:)`, `PropertyListEncoder().encode(x)` and
    /// `PropertyListSerialization.data(fromPropertyList:…)` whose data has a secret-named key or identifier.
    func checkPlistWrite(_ node: FunctionCallExprSyntax, callee: Callee) {
        // The receiver's text is only built for the three method names that can write a plist.
        guard ["write", "encode", "data"].contains(callee.name) else { return }
        let base = callee.baseText
        let data: Syntax?
        switch callee.name {
        case "write" where base.containsUTF8("NSDictionary"):  // NSDictionary, NSMutableDictionary
            guard let label = node.arguments.first?.label?.text, label == "to" || label == "toFile" else { return }
            data = callee.base.map(Syntax.init)
        case "encode" where base.containsUTF8("PropertyListEncoder"):
            data = node.arguments.first.map { Syntax($0.expression) }
        case "data" where base == "PropertyListSerialization":
            data = node.arguments.first(where: { $0.label?.text == "fromPropertyList" }).map { Syntax($0.expression) }
        default:
            return
        }
        guard let data else { return }
        let collected = NameCollector.collect(data)
        let secret =
            collected.literals.first { SecretNames.isSecret($0) }
            ?? collected.names.map(\.name).first { SecretNames.isSecret($0) }
        guard let secret else { return }
        report(
            .secretInUserDefaults,
            at: node,
            message: "'\(secret)' is written to an unencrypted property list file"
        )
    }

    // MARK: SN009 keychain-accessible-always

    func checkKeychainAccessibility(_ node: DeclReferenceExprSyntax) {
        let name = node.baseName.text
        guard name == "kSecAttrAccessibleAlways" || name == "kSecAttrAccessibleAlwaysThisDeviceOnly" else { return }
        report(
            .keychainAccessibleAlways,
            at: node,
            message: "\(name) keeps the Keychain item readable while the device is locked"
        )
    }

    // MARK: SN012 hardcoded-credential

    /// A literal in a known key format anywhere in a binding, or a credential-like literal bound to a secret
    /// name (`let apiKey = "…"`, `x.token = "…"`, `["client_secret": "…"]`, `Client(apiKey: "…")`).
    func checkHardcodedCredential(_ node: StringLiteralExprSyntax) {
        guard let value = node.representedLiteralValue, value.utf8.count >= 6 else { return }
        let name = SyntaxHelpers.boundNames(of: node, throughExpressions: false).first
        if let format = CredentialLiteral.knownFormat(value) {
            let target = name.map { " bound to '\($0)'" } ?? ""
            report(.hardcodedCredential, at: node, message: "hard-coded \(format)\(target) ships in the app binary")
            return
        }
        guard let name, SecretNames.isSecret(name),
            !CredentialLiteral.isIdentifier(value, boundTo: name),
            CredentialLiteral.isCredential(value, passwordName: SecretNames.isPassword(name))
        else { return }
        report(.hardcodedCredential, at: node, message: "'\(name)' is a hard-coded credential in the app binary")
    }

    // MARK: SN014 pin-without-backup

    /// TrustKit: `kTSKPublicKeyHashes: [single]`.
    func checkTrustKitPins(_ node: DictionaryElementSyntax) {
        guard
            SyntaxHelpers.trailingName(node.key) == "kTSKPublicKeyHashes"
                || SyntaxHelpers
                    .literalValue(node.key) == "kTSKPublicKeyHashes",
            let array = node.value.as(ArrayExprSyntax.self), array.elements.count < 2
        else { return }
        report(
            .pinWithoutBackup,
            at: node,
            message: "kTSKPublicKeyHashes has \(array.elements.count) pin; a key rotation will break connections"
        )
    }
}
#endif
