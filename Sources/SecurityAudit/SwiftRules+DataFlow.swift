#if Tools
import SwiftSyntax

/// What a name stands for within one file: the declaration that binds it, the value of a string
/// constant, the types that hold a secret. The rules use these to judge a value by what it is
/// rather than by the name of the variable it happens to be in (issue 39's misses: a token
/// JSON-encoded under a neutral key constant, a `token` that is a CloudKit change token).
extension SwiftRuleVisitor {
    /// `let`/`var` string constants of the file, by name (the last binding wins): a key constant
    /// `static let session = "accessTokenData"` resolves to its value.
    var stringConstants: [String: String] {
        if let known = cachedStringConstants { return known }
        let collector = FileFacts(viewMode: .sourceAccurate)
        collector.walk(tree)
        cachedStringConstants = collector.constants
        cachedSecretTypes = collector.secretTypes
        return collector.constants
    }

    /// Types declared in this file with a stored property named like a secret (`accessToken`,
    /// `refreshToken`, `password`): encoding a value of such a type writes the secret.
    var secretHoldingTypes: Set<String> {
        if cachedSecretTypes == nil { _ = stringConstants }
        return cachedSecretTypes ?? []
    }

    /// The name a key expression stands for, and the value of the constant it names if this file
    /// declares one.
    func keyTexts(_ expression: ExprSyntax) -> [String] {
        if let literal = SyntaxHelpers.literalValue(expression) { return [literal] }
        guard let name = SyntaxHelpers.trailingName(expression) else { return [] }
        if let value = stringConstants[name] { return [name, value] }
        return [name]
    }

    /// Whether the value of `expression` holds a secret: it names one, it is built from one (one
    /// step back through a local binding's initializer), or it is an instance of a type of this
    /// file that holds one. Returns the name that makes it so.
    func secretCarried(by expression: ExprSyntax) -> String? {
        var visited: Set<String> = []
        return secretCarried(by: Syntax(expression), at: Syntax(expression), depth: 0, visited: &visited)
    }

    private func secretCarried(by node: Syntax, at site: Syntax, depth: Int, visited: inout Set<String>) -> String? {
        let collected = NameCollector.collect(node)
        let types = secretHoldingTypes
        for (name, reference) in collected.names {
            if SecretNames.isSecret(name), !SyntaxHelpers.isHarmlessRead(reference) { return name }
            if types.contains(name) { return name }
            guard depth < 2, !visited.contains(name), name.first?.isLowercase == true else { continue }
            visited.insert(name)
            guard let binding = SyntaxHelpers.binding(of: name, at: site) else { continue }
            if let type = binding.type.flatMap({ SyntaxHelpers.typeName($0) }), types.contains(type) { return name }
            if let initializer = binding.initializer,
                let found = secretCarried(
                    by: Syntax(initializer),
                    at: Syntax(initializer),
                    depth: depth + 1,
                    visited: &visited
                )
            {
                return found
            }
        }
        return nil
    }
}

/// One walk over the file for the facts the data-flow helpers need.
final class FileFacts: SyntaxVisitor {
    var constants: [String: String] = [:]
    var secretTypes: Set<String> = []

    override func visit(_ node: PatternBindingSyntax) -> SyntaxVisitorContinueKind {
        if let name = node.pattern.as(IdentifierPatternSyntax.self)?.identifier.text,
            let value = node.initializer.flatMap({ SyntaxHelpers.literalValue($0.value) })
        {
            constants[name] = value
        }
        return .visitChildren
    }

    override func visit(_ node: EnumCaseElementSyntax) -> SyntaxVisitorContinueKind {
        if let value = node.rawValue.flatMap({ SyntaxHelpers.literalValue($0.value) }) {
            constants[node.name.text] = value
        }
        return .visitChildren
    }

    override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind {
        if Self.holdsSecret(node.memberBlock) { secretTypes.insert(node.name.text) }
        return .visitChildren
    }

    override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind {
        if Self.holdsSecret(node.memberBlock) { secretTypes.insert(node.name.text) }
        return .visitChildren
    }

    /// Whether a type has a stored `let`/`var` (no accessor block) named like a secret: a token, a
    /// password, a key. A session id alone does not make one (element-ios's undecryptable-event
    /// descriptor carries Megolm session ids, which are not secret).
    static func holdsSecret(_ members: MemberBlockSyntax) -> Bool {
        for member in members.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self),
                !variable.modifiers.contains(where: { $0.name.tokenKind == .keyword(.static) })
            else { continue }
            for binding in variable.bindings where binding.accessorBlock == nil {
                if let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text,
                    SecretNames.isSecret(name), !NameWords.split(name).suffix(2).elementsEqual(["session", "id"]),
                    NameWords.split(name).last != "sessionid"
                {
                    return true
                }
            }
        }
        return false
    }
}

extension SyntaxHelpers {
    /// What binds `name` where `node` is: a `let`/`var` earlier in an enclosing code block, an
    /// `if let`/`guard let` condition, a parameter of an enclosing function, initializer or
    /// closure, or a stored property of the enclosing type. Nil when the file does not say.
    static func binding(of name: String, at node: Syntax) -> (type: TypeSyntax?, initializer: ExprSyntax?)? {
        var child = node
        var current = node.parent
        while let parent = current {
            if let items = parent.as(CodeBlockItemListSyntax.self) {
                for item in items {
                    if item.id == child.id { break }
                    if let found = binding(of: name, inDeclaration: item.item.as(VariableDeclSyntax.self)) {
                        return found
                    }
                    if let guardStmt = item.item.as(GuardStmtSyntax.self),
                        let found = binding(of: name, in: guardStmt.conditions)
                    {
                        return found
                    }
                }
            } else if let conditions = parent.as(ConditionElementListSyntax.self) {
                // `guard let token = newValue, let data = archive(token)`: an earlier condition.
                for element in conditions {
                    if element.id == child.id { break }
                    if let optional = element.condition.as(OptionalBindingConditionSyntax.self),
                        optional.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == name
                    {
                        return (optional.typeAnnotation?.type, optional.initializer?.value)
                    }
                }
            } else if let ifExpr = parent.as(IfExprSyntax.self), ifExpr.body.id == child.id {
                if let found = binding(of: name, in: ifExpr.conditions) { return found }
            } else if let function = parent.as(FunctionDeclSyntax.self) {
                if let found = binding(of: name, in: function.signature.parameterClause.parameters) { return found }
            } else if let initializer = parent.as(InitializerDeclSyntax.self) {
                if let found = binding(of: name, in: initializer.signature.parameterClause.parameters) {
                    return found
                }
            } else if let closure = parent.as(ClosureExprSyntax.self),
                case .parameterClause(let clause)? = closure.signature?.parameterClause
            {
                for parameter in clause.parameters where (parameter.secondName ?? parameter.firstName).text == name {
                    return (parameter.type, nil)
                }
            } else if let members = parent.as(MemberBlockItemListSyntax.self) {
                for member in members {
                    if let found = binding(of: name, inDeclaration: member.decl.as(VariableDeclSyntax.self)) {
                        return found
                    }
                }
            }
            child = parent
            current = parent.parent
        }
        return nil
    }

    private static func binding(
        of name: String,
        inDeclaration declaration: VariableDeclSyntax?
    ) -> (type: TypeSyntax?, initializer: ExprSyntax?)? {
        guard let declaration else { return nil }
        for binding in declaration.bindings {
            if binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == name {
                return (binding.typeAnnotation?.type, binding.initializer?.value)
            }
        }
        return nil
    }

    private static func binding(
        of name: String,
        in conditions: ConditionElementListSyntax
    ) -> (type: TypeSyntax?, initializer: ExprSyntax?)? {
        for condition in conditions {
            if let optional = condition.condition.as(OptionalBindingConditionSyntax.self),
                optional.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == name
            {
                return (optional.typeAnnotation?.type, optional.initializer?.value)
            }
        }
        return nil
    }

    private static func binding(
        of name: String,
        in parameters: FunctionParameterListSyntax
    ) -> (type: TypeSyntax?, initializer: ExprSyntax?)? {
        for parameter in parameters where (parameter.secondName ?? parameter.firstName).text == name {
            return (parameter.type, nil)
        }
        return nil
    }

    /// The name of the function, computed property or closure-initialised property whose result
    /// `node` is part of: in its `return` statement, or in the only statement of its body.
    static func returningDeclarationName(of node: some SyntaxProtocol) -> String? {
        var current = node.parent
        var sawReturnOrSingle = false
        while let parent = current {
            if parent.is(ReturnStmtSyntax.self) { sawReturnOrSingle = true }
            if let items = parent.as(CodeBlockItemListSyntax.self), items.count == 1 { sawReturnOrSingle = true }
            if let function = parent.as(FunctionDeclSyntax.self) {
                return sawReturnOrSingle ? function.name.text : nil
            }
            if let accessor = parent.as(AccessorBlockSyntax.self) {
                guard sawReturnOrSingle, let binding = accessor.parent?.as(PatternBindingSyntax.self) else {
                    return nil
                }
                return binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text
            }
            if parent.is(ClosureExprSyntax.self) || parent.is(InitializerDeclSyntax.self) { return nil }
            current = parent.parent
        }
        return nil
    }

    /// Whether a plain, generic `token` or `sessionId` is qualified by where it is: the function it is a
    /// parameter of or used in (`joinRoom(_ token: String)`, talk-ios's room tokens), its argument
    /// label, the type around it (`NCCallController`'s signalling session ids), or what it was bound
    /// from (`if let token = call.token`). Only the generic names: an `accessToken` stays a credential
    /// wherever it is.
    static func isQualifiedByItsFunction(_ reference: Syntax) -> Bool {
        guard let declReference = reference.as(DeclReferenceExprSyntax.self),
            reference.parent?.as(MemberAccessExprSyntax.self)?.declName.id != reference.id
        else { return false }
        let name = declReference.baseName.text
        let words = NameWords.split(name)
        guard words == ["token"] || words == ["tokens"] || words == ["session", "id"] || words == ["sessionid"] else {
            return false
        }
        var context: [String] = []
        if let initializer = binding(of: name, at: reference)?.initializer,
            let member = initializer.as(MemberAccessExprSyntax.self)
                ?? initializer.as(ForceUnwrapExprSyntax.self)?
                .expression.as(MemberAccessExprSyntax.self),
            let base = member.base.flatMap({ trailingName($0) })
        {
            context += NameWords.split(base)
        }
        var current = reference.parent
        while let node = current {
            if let function = node.as(FunctionDeclSyntax.self) {
                context += NameWords.split(function.name.text)
                if let parameter = function.signature.parameterClause.parameters.first(where: {
                    ($0.secondName ?? $0.firstName).text == name
                }) {
                    context += NameWords.split(parameter.firstName.text)
                }
            } else if let type = node.as(ClassDeclSyntax.self) {
                context += NameWords.split(type.name.text)
            } else if let type = node.as(StructDeclSyntax.self) {
                context += NameWords.split(type.name.text)
            } else if let type = node.as(ActorDeclSyntax.self) {
                context += NameWords.split(type.name.text)
            } else if let type = node.as(ExtensionDeclSyntax.self) {
                context += NameWords.split(type.extendedType.trimmedDescription)
            }
            current = node.parent
        }
        let qualifiers =
            words.first == "token" || words.first == "tokens"
            ? SecretNames.nonCredentialTokenQualifiers : SecretNames.nonCredentialSessionQualifiers
        return context.contains(where: qualifiers.contains)
    }

    /// Whether a value whose name alone does not make it a credential (`confirmation.syncToken`) is
    /// used as one in the same function: passed to a call that authenticates or signs in
    /// (`authenticate(withUsername:token:)`), or under a password, credential or authorization
    /// label. simplenote-ios logs the Simperium sync token it then signs in with.
    static func isUsedAsCredential(_ reference: Syntax) -> Bool {
        var expression = reference
        if let member = reference.parent?.as(MemberAccessExprSyntax.self), member.declName.id == reference.id {
            expression = Syntax(member)
        }
        let text = expression.trimmedDescription
        var function: Syntax?
        var current = reference.parent
        while let node = current, function == nil {
            if node.is(FunctionDeclSyntax.self) || node.is(InitializerDeclSyntax.self)
                || node.is(AccessorDeclSyntax.self)
            {
                function = node
            }
            current = node.parent
        }
        guard let function else { return false }
        let authenticating: Set<String> = ["authenticate", "authorize", "login", "logon", "auth"]
        let credentialLabels: Set<String> = [
            "password", "credential", "credentials", "authorization", "bearer", "secret",
        ]
        for call in CallCollector.collect(function) {
            for argument in call.arguments where argument.expression.trimmedDescription == text {
                let callee = NameWords.split(Callee(call).name)
                let label = NameWords.split(argument.label?.text ?? "")
                if callee.contains(where: authenticating.contains)
                    || zip(callee, callee.dropFirst()).contains(where: { $0 == "sign" && $1 == "in" })
                    || label.contains(where: credentialLabels.contains)
                {
                    return true
                }
            }
        }
        return false
    }

    /// `CKServerChangeToken?` → `CKServerChangeToken`; `[Token]` → nil.
    static func typeName(_ type: TypeSyntax) -> String? {
        if let optional = type.as(OptionalTypeSyntax.self) { return typeName(optional.wrappedType) }
        if let unwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            return typeName(unwrapped.wrappedType)
        }
        if let identifier = type.as(IdentifierTypeSyntax.self) { return identifier.name.text }
        if let member = type.as(MemberTypeSyntax.self) { return member.name.text }
        return nil
    }

    /// The name of the type a call constructs or a binding declares, when the file says:
    /// `let token: CKServerChangeToken`, `let token = CKServerChangeToken(…)`.
    static func declaredTypeName(of name: String, at node: Syntax, depth: Int = 0) -> String? {
        if name == "newValue" || name == "oldValue" { return propertyTypeName(around: node) }
        guard depth < 3, let binding = binding(of: name, at: node) else { return nil }
        if let type = binding.type { return typeName(type) }
        if let call = binding.initializer?.as(FunctionCallExprSyntax.self),
            let callee = call.calledExpression.as(DeclReferenceExprSyntax.self),
            callee.baseName.text.first?.isUppercase == true
        {
            return callee.baseName.text
        }
        // `guard let token = newValue`, `let token = saved`: the type of what it was bound from.
        var source = binding.initializer
        while let expression = source {
            if let forced = expression.as(ForceUnwrapExprSyntax.self) {
                source = forced.expression
            } else if let tried = expression.as(TryExprSyntax.self) {
                source = tried.expression
            } else {
                break
            }
        }
        if let reference = source?.as(DeclReferenceExprSyntax.self), reference.baseName.text != name {
            return declaredTypeName(of: reference.baseName.text, at: Syntax(reference), depth: depth + 1)
        }
        return nil
    }

    /// The declared type of the property whose accessor holds `node` (for `newValue`).
    private static func propertyTypeName(around node: Syntax) -> String? {
        var current = node.parent
        while let candidate = current {
            if let binding = candidate.as(PatternBindingSyntax.self) {
                return binding.typeAnnotation.map { typeName($0.type) } ?? nil
            }
            current = candidate.parent
        }
        return nil
    }

    /// Whether a reference to a secret-named value only reads a harmless fact about it
    /// (`token.count`, `password.isEmpty`) or is the member of something whose name makes it
    /// no credential (`room.token`, `call.sessionId`), or is declared with a type that is no
    /// credential (`let token: CKServerChangeToken`).
    static func isHarmlessRead(_ reference: Syntax) -> Bool {
        guard let declReference = reference.as(DeclReferenceExprSyntax.self) else { return false }
        let name = declReference.baseName.text
        // The whole chain it heads or ends: `tokenInfo.accessToken.hash`, `token?.count`.
        var chain = reference
        if let member = reference.parent?.as(MemberAccessExprSyntax.self), member.declName.id == reference.id {
            chain = Syntax(member)
        }
        while let parent = chain.parent {
            if let member = parent.as(MemberAccessExprSyntax.self), member.base?.id == chain.id {
                if LoggedSecretFinder.harmlessMembers.contains(member.declName.baseName.text) { return true }
                chain = parent
            } else if parent.is(OptionalChainingExprSyntax.self) || parent.is(ForceUnwrapExprSyntax.self) {
                chain = parent
            } else {
                break
            }
        }
        // A comparison's result (`\(parsed?.password == password)`) is a Bool, not the secret.
        if let list = chain.parent?.as(ExprListSyntax.self), list.parent?.is(SequenceExprSyntax.self) == true,
            list.contains(where: { element in
                guard let op = element.as(BinaryOperatorExprSyntax.self)?.operator.text else { return false }
                return ["==", "!=", "===", "!==", "<", ">", "<=", ">=", "~="].contains(op)
            })
        {
            return true
        }
        if let member = reference.parent?.as(MemberAccessExprSyntax.self) {
            if let base = member.base, base.id == reference.id,
                LoggedSecretFinder.harmlessMembers.contains(member.declName.baseName.text)
            {
                return true
            }
            if member.declName.id == reference.id, let base = member.base,
                let baseName = trailingName(base), baseName != "self"
            {
                let words = NameWords.split(baseName) + NameWords.split(name)
                if !SecretNames.isSecret(words: words, includeAuthorization: true) { return true }
            }
        }
        let isMemberName = reference.parent?.as(MemberAccessExprSyntax.self)?.declName.id == reference.id
        return !isMemberName && member(ofTypeNamed: name, at: reference)
    }

    /// Whether `name` is declared here with a type whose own name says it is not a credential
    /// (`CKServerChangeToken`, `NotificationToken`, `NSPersistentHistoryToken`).
    private static func member(ofTypeNamed name: String, at reference: Syntax) -> Bool {
        guard let type = declaredTypeName(of: name, at: reference) else { return false }
        let words = NameWords.split(type)
        guard words.contains(where: { $0 == "token" || $0 == "id" || $0 == "session" }) else { return false }
        return !SecretNames.isSecret(words: words)
    }
}
#endif
