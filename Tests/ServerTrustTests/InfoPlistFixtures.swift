import Foundation
import ServerTrust

// Also compiled into SecurenetCLITests (a symbolic link there): `securenet policy check` and
// `diagnose` are tested with the same Info.plists.

/// Info.plists as Xcode writes them, for the policy reader's tests and the CLI's.
enum InfoPlistFixtures {
    /// An Info.plist as Xcode writes it, with `ats` as the body of NSAppTransportSecurity.
    static func xml(_ ats: String?) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>CFBundleDevelopmentRegion</key>
        \t<string>$(DEVELOPMENT_LANGUAGE)</string>
        \t<key>CFBundleExecutable</key>
        \t<string>$(EXECUTABLE_NAME)</string>
        \t<key>CFBundleIdentifier</key>
        \t<string>$(PRODUCT_BUNDLE_IDENTIFIER)</string>
        \t<key>CFBundleShortVersionString</key>
        \t<string>1.0</string>
        \(ats.map { "\t<key>NSAppTransportSecurity</key>\n\t<dict>\n\($0)\n\t</dict>" } ?? "")
        </dict>
        </plist>
        """
    }

    /// The same property list in the binary format of a built app.
    static func binary(_ xml: String) throws -> Data {
        let object = try PropertyListSerialization.propertyList(from: Data(xml.utf8), options: [], format: nil)
        return try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
    }

    static func pinned(_ body: String, domain: String = "api.example.com") -> String {
        """
        \t\t<key>NSPinnedDomains</key>
        \t\t<dict>
        \t\t\t<key>\(domain)</key>
        \t\t\t<dict>
        \(body)
        \t\t\t</dict>
        \t\t</dict>
        """
    }

    static func identities(_ key: String, _ pins: [Pin]) -> String {
        "\t\t\t\t<key>\(key)</key>\n\t\t\t\t<array>\n"
            + pins.map {
                "\t\t\t\t\t<dict>\n\t\t\t\t\t\t<key>SPKI-SHA256-BASE64</key>\n\t\t\t\t\t\t<string>\($0.base64)</string>\n\t\t\t\t\t</dict>"
            }
            .joined(separator: "\n") + "\n\t\t\t\t</array>"
    }
}
