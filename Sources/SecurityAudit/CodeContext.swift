#if Tools
import SwiftSyntax

/// Whether code ships in the app, or only exists to test, preview or mock it.
///
/// A cleartext URL in a unit test or a password in a SwiftUI preview is not what an app team
/// needs to fix first: measured on ten open-source apps, most findings of the cleartext and
/// credential rules sat in such code. The auditor therefore tells the two apart and leaves test
/// code out of the report unless it is asked for (`securenet audit --include-tests`).
public enum CodeContext: String, Sendable, Codable, Hashable, CaseIterable {
    /// Code that is built into the app.
    case shipping
    /// Test targets, previews, mocks, stubs and fixtures, and code compiled only into debug or
    /// simulator builds (`#if DEBUG`, `#if targetEnvironment(simulator)`).
    case test
}

/// How the auditor decides that code is test code: by where the file is, by what it imports,
/// and by the declaration a finding sits in. One place, used by the Swift and Objective-C rules.
enum TestCodeDetection {
    /// Directory names that hold test, preview or mock code (compared case-insensitively).
    static let testDirectories: Set<String> = [
        "tests", "test", "unittests", "uitests", "testing", "testsupport", "testhelpers", "testutilities",
        "mocks", "mock", "stubs", "fakes", "fixtures", "testdata", "test data", "preview content",
        "previewcontent", "previews", "specs", "spec", "snapshottests", "integrationtests", "testplans",
    ]

    /// Directory-name endings that mark a test target (`AppTests`, `AppUITests`, `CoreKitSpecs`).
    static let testDirectorySuffixes: Set<String> = ["tests", "specs", "testing", "mocks", "previews"]

    /// File-name endings (before the extension) of test and preview code.
    static let testFileSuffixes: Set<String> = [
        "tests", "test", "spec", "specs", "mock", "mocks", "stub", "stubs", "fake", "fakes", "preview",
        "previews", "fixture", "fixtures", "demo", "sample",
    ]

    /// Whether a relative path (with `/` separators) is in a test, preview or mock location. Names
    /// are compared by words (``NameWords/split(_:)``), so `LoginTests` and `URLExtensions.test`
    /// are test code but `Contest` and `Latest` are not.
    static func isTestPath(_ relativePath: String) -> Bool {
        let components = relativePath.split(separator: "/")
        guard let file = components.last else { return false }
        for directory in components.dropLast() {
            if testDirectories.contains(directory.lowercased()) { return true }
            let words = NameWords.split(String(directory))
            if words.count > 1, let last = words.last, testDirectorySuffixes.contains(last) { return true }
        }
        var stem = String(file)
        if let dot = stem.lastIndex(of: ".") { stem = String(stem[..<dot]) }
        let words = NameWords.split(stem)
        if words.count > 1, let first = words.first,
            ["mock", "mocks", "fake", "fakes", "stub", "stubs"].contains(first)
        {
            return true
        }
        if words.count > 1, let last = words.last, testFileSuffixes.contains(last) { return true }
        return false
    }

    /// Modules only test code imports.
    static let testModules: Set<String> = [
        "XCTest", "Testing", "Quick", "Nimble", "SnapshotTesting", "iOSSnapshotTestCase", "FBSnapshotTestCase",
        "OHHTTPStubs", "OHHTTPStubsSwift", "Mocker", "Cuckoo", "ViewInspector",
    ]

    /// Whether a Swift file is test code by what it imports.
    static func importsTestModule(_ tree: SourceFileSyntax) -> Bool {
        for item in tree.statements {
            guard let declaration = item.item.as(ImportDeclSyntax.self) else { continue }
            if declaration.attributes.contains(where: {
                $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription == "testable"
            }) {
                return true
            }
            if let module = declaration.path.first?.name.text, testModules.contains(module) { return true }
        }
        return false
    }

    /// Whether `node` sits in preview or test code within an otherwise shipping file: a
    /// `#Preview` block, a `PreviewProvider`, an `XCTestCase` subclass, or a function marked
    /// `@Test`.
    static func isInTestDeclaration(_ node: some SyntaxProtocol) -> Bool {
        var current = node.parent
        while let candidate = current {
            if let macro = candidate.as(MacroExpansionExprSyntax.self), macro.macroName.text == "Preview" {
                return true
            }
            if let macro = candidate.as(MacroExpansionDeclSyntax.self), macro.macroName.text == "Preview" {
                return true
            }
            if let function = candidate.as(FunctionDeclSyntax.self),
                function.attributes.contains(where: {
                    $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription == "Test"
                })
            {
                return true
            }
            if let inherited = Self.inheritedTypes(of: candidate),
                inherited.contains(where: { ["PreviewProvider", "XCTestCase", "PreviewModifier"].contains($0) })
            {
                return true
            }
            current = candidate.parent
        }
        return false
    }

    private static func inheritedTypes(of node: Syntax) -> [String]? {
        let clause: InheritanceClauseSyntax?
        if let declaration = node.as(StructDeclSyntax.self) {
            clause = declaration.inheritanceClause
        } else if let declaration = node.as(ClassDeclSyntax.self) {
            clause = declaration.inheritanceClause
        } else if let declaration = node.as(ExtensionDeclSyntax.self) {
            clause = declaration.inheritanceClause
        } else if let declaration = node.as(EnumDeclSyntax.self) {
            clause = declaration.inheritanceClause
        } else {
            return nil
        }
        return clause?.inheritedTypes.map { $0.type.trimmedDescription } ?? []
    }

    /// Whether `node` is compiled only into debug or simulator builds: inside `#if DEBUG` (or
    /// `#elseif DEBUG`, or `#if targetEnvironment(simulator)`), at any depth. Release builds leave
    /// it out, so it does not ship (kiwix-apple's staging payment server sits in such a branch).
    /// The body of a run-time check of the debug configuration (``isDebugCheck(_:)``) counts too.
    static func isDebugOnly(_ node: some SyntaxProtocol) -> Bool {
        var child = Syntax(node)
        var current = node.parent
        while let candidate = current {
            // The body of `if configuration == .debug` / `if isDebugBuild`: shipped, but run only in
            // a debug configuration (home-assistant's onboarding sample servers).
            if let ifExpr = candidate.as(IfExprSyntax.self), ifExpr.body.id == child.id,
                isDebugCheck(ifExpr.conditions)
            {
                return true
            }
            child = candidate
            if let clause = candidate.as(IfConfigClauseSyntax.self), let condition = clause.condition {
                let text = condition.trimmedDescription.replacingOccurrences(of: " ", with: "")
                if text == "DEBUG" || text == "targetEnvironment(simulator)" || text.hasPrefix("DEBUG&&")
                    || text.hasSuffix("&&DEBUG")
                {
                    return true
                }
            }
            current = candidate.parent
        }
        return false
    }

    /// `x == .debug`, `.debug == x`, or a name that starts `isDebug` (`isDebugBuild`), alone.
    static func isDebugCheck(_ conditions: ConditionElementListSyntax) -> Bool {
        guard conditions.count == 1, let condition = conditions.first?.condition.as(ExprSyntax.self) else {
            return false
        }
        let text = condition.trimmedDescription.replacingOccurrences(of: " ", with: "")
        if text.hasSuffix("==.debug") || text.hasPrefix(".debug==") { return true }
        let words = NameWords.split(SyntaxHelpers.trailingName(condition) ?? "")
        return words.count >= 2 && words[0] == "is" && words[1] == "debug"
    }

    /// Whether a branch as the Objective-C and property-list readers name it (`#ifdef DEBUG`,
    /// `#if defined(DEBUG)`, `#if TARGET_OS_SIMULATOR`) is compiled only into debug or simulator
    /// builds. An `#else` branch never is.
    static func isDebugOnly(condition: String?) -> Bool {
        guard let condition, !condition.hasPrefix("#else") else { return false }
        let body = condition.drop { $0 != " " }.replacingOccurrences(of: " ", with: "")
        return [
            "DEBUG", "defined(DEBUG)", "TARGET_OS_SIMULATOR", "TARGET_IPHONE_SIMULATOR", "targetEnvironment(simulator)",
        ]
        .contains(body)
    }

    /// The conditional-compilation branch `node` sits in, innermost first, as written: `#if DEBUG`,
    /// `#else of #if DEBUG`. Nil outside any.
    static func condition(of node: some SyntaxProtocol) -> String? {
        var current = node.parent
        while let candidate = current {
            if let clause = candidate.as(IfConfigClauseSyntax.self) {
                let keyword = clause.poundKeyword.text
                if let condition = clause.condition {
                    return "\(keyword) \(condition.trimmedDescription)"
                }
                let first = clause.parent?.as(IfConfigClauseListSyntax.self)?.first
                if let firstCondition = first?.condition {
                    return "\(keyword) of #if \(firstCondition.trimmedDescription)"
                }
                return keyword
            }
            current = candidate.parent
        }
        return nil
    }
}
#endif
