import Foundation
import SecureNetworking
import Testing

struct Profile: ValidatedResponse {
    struct Address: ValidatedResponse {
        let country: String
        func validate(with v: inout ResponseValidator) {
            v.check(country, "country", .length(2...2))
        }
    }

    let name: String
    let age: Int
    let avatar: URL
    let roles: [String]
    let nickname: String?
    let address: Address?
    let previous: [Address]

    func validate(with v: inout ResponseValidator) {
        v.check(name, "name", .length(1...50))
        v.check(age, "age", .range(0...150))
        v.check(avatar, "avatar", .httpsOnly)
        v.check(roles, "roles", .nonEmpty, .count(1...5))
        v.each(roles, "roles", .oneOf(["admin", "member", "guest"]))
        v.check(nickname, "nickname", .length(1...20))
        v.nested(address, "address")
        v.nested(previous, "previous")
    }
}

@Suite("Response validation")
struct ResponseValidationTests {
    static func json(_ overrides: [String: Any] = [:], removing: String? = nil) -> Data {
        var object: [String: Any] = [
            "name": "Ada", "age": 36, "avatar": "https://cdn.example.com/a.png", "roles": ["admin"],
            "address": ["country": "GB"], "previous": [["country": "FR"], ["country": "DE"]],
        ]
        for (key, value) in overrides { object[key] = value }
        if let removing { object[removing] = nil }
        return try! JSONSerialization.data(withJSONObject: object)
    }

    func failure(_ data: Data) -> ValidationError? {
        do {
            _ = try ResponseDecoding.decode(Profile.self, from: data)
            return nil
        } catch {
            return error
        }
    }

    @Test func aValidResponseDecodes() throws {
        let profile = try ResponseDecoding.decode(Profile.self, from: Self.json())
        #expect(profile.name == "Ada")
        #expect(profile.previous.count == 2)
    }

    @Test func violationsNameTheFieldPathAndNotTheValue() {
        let cases: [([String: Any], String)] = [
            (["name": ""], "$.name"),
            (["age": 999], "$.age"),
            (["avatar": "http://cdn.example.com/a.png"], "$.avatar"),
            (["avatar": "javascript:alert(1)"], "$.avatar"),
            (["roles": [String]()], "$.roles"),
            (["roles": ["admin", "superuser"]], "$.roles[1]"),
            (["nickname": String(repeating: "n", count: 21)], "$.nickname"),
            (["address": ["country": "GBR"]], "$.address.country"),
            (["previous": [["country": "FR"], ["country": "Germany"]]], "$.previous[1].country"),
        ]
        for (override, path) in cases {
            let error = self.failure(Self.json(override))
            #expect(error?.code == .constraintViolated, "\(path)")
            #expect(error?.fieldPath == path)
            #expect(error?.description.contains("superuser") == false)
        }
    }

    @Test func severalViolationsAreCounted() {
        let error = self.failure(Self.json(["age": -1, "name": ""]))
        #expect(error?.fieldPath == "$.name")
        #expect(error?.message.contains("and 1 more violation") == true)
    }

    @Test func decodingFailuresNameTheFieldPath() {
        #expect(self.failure(Self.json(removing: "age"))?.fieldPath == "$.age")
        #expect(self.failure(Self.json(removing: "age"))?.code == .decodingFailed)
        #expect(self.failure(Self.json(["age": "thirty"]))?.fieldPath == "$.age")
        #expect(self.failure(Self.json(["previous": [["country": 7]]]))?.fieldPath == "$.previous[0].country")
        #expect(self.failure(Data("not json".utf8))?.code == .decodingFailed)
    }

    @Test func nilOptionalsPassAndRequireRefusesThem() throws {
        try ResponseDecoding.validate(Nick(nickname: nil, required: false))
        #expect(throws: ValidationError(.constraintViolated, "")) {
            try ResponseDecoding.validate(Nick(nickname: "", required: false))
        }
        do {
            try ResponseDecoding.validate(Nick(nickname: nil, required: true))
            Issue.record("require let nil through")
        } catch {
            #expect(error.fieldPath == "$.nickname")
            #expect(error.message == "is required")
        }
    }
}

struct Nick: ValidatedResponse {
    let nickname: String?
    let required: Bool

    func validate(with v: inout ResponseValidator) {
        if self.required { v.require(self.nickname, "nickname") }
        v.check(self.nickname, "nickname", .length(1...20))
    }
}

@Suite("User-facing messages")
struct UserMessageCatalogTests {
    let catalog = UserMessageCatalog(messages: [
        "invalid_credentials": "The e-mail or password is wrong.",
        "account_locked": "Your account is locked. Check your e-mail.",
    ])

    @Test func knownCodesMapToTheirMessage() {
        let body = Data(
            #"{"code":"invalid_credentials","message":"SELECT * FROM users WHERE email='x' failed at db-7"}"#.utf8
        )
        #expect(self.catalog.message(status: 401, body: body) == "The e-mail or password is wrong.")
        #expect(
            self.catalog.message(status: 400, body: Data(#"{"error":"account_locked"}"#.utf8))
                == "Your account is locked. Check your e-mail."
        )
        #expect(self.catalog.message(forCode: "account_locked") == "Your account is locked. Check your e-mail.")
    }

    @Test func rawServerTextIsNeverShown() {
        let leaky = Data(
            #"{"code":"E_INTERNAL","message":"NullPointerException at com.example.Db:42 for ada@example.com"}"#.utf8
        )
        let shown = self.catalog.message(status: 500, body: leaky)
        #expect(shown == "The service is having trouble. Please try again later.")
        #expect(!shown.contains("Exception") && !shown.contains("E_INTERNAL"))
        #expect(
            self.catalog.message(status: 599, body: Data("<html>stack trace</html>".utf8))
                == "The service is having trouble. Please try again later."
        )
        #expect(self.catalog.message(status: 418, body: nil) == "Something went wrong. Please try again.")
        #expect(
            self.catalog.message(status: 429, body: nil) == "Too many attempts. Please wait a moment and try again."
        )
        #expect(self.catalog.message(forCode: nil) == "Something went wrong. Please try again.")
    }
}
