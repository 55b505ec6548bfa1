import Foundation
import SecureStorage
import Testing

/// Issue 51 item 16: `coordinationData(forKey:)` releases coordination items without the gate,
/// never a protected item that `set` stored.
@Suite("UserPresenceProtectedStore: coordination items")
struct CoordinationDataGateTests {
    let secret = Data("refresh-token".utf8)

    @Test func aProtectedItemIsRefusedAsACoordinationItem() async throws {
        let gate = ScriptedGate()
        let base = InMemoryStore(["tokens": self.secret, "settings": Data("dark".utf8)])
        let store = UserPresenceProtectedStore(
            wrapping: base,
            gate: gate,
            configuration: .init(protectedItems: .keys(["tokens", "tokens.lease"]))
        )
        await #expect(throws: SecureStoreError(.protectedItem, "")) {
            try await store.coordinationData(forKey: "tokens")
        }
        // An item that is not protected is read as it is; a missing one is nil.
        #expect(try await store.coordinationData(forKey: "settings") == Data("dark".utf8))
        #expect(try await store.coordinationData(forKey: "tokens.lease") == nil)
        #expect(await gate.calls == 0)

        // A coordination item under a protected key is released without the gate, and read as
        // written through the gate too.
        try await store.setCoordinationData(Data("lease".utf8), forKey: "tokens.lease")
        #expect(try await store.coordinationData(forKey: "tokens.lease") == Data("lease".utf8))
        #expect(await gate.calls == 0)
        #expect(try await store.data(forKey: "tokens.lease") == Data("lease".utf8))
        #expect(await gate.calls == 1)

        // A secret stored over it is protected again.
        try await store.set(self.secret, forKey: "tokens.lease")
        await #expect(throws: SecureStoreError(.protectedItem, "")) {
            try await store.coordinationData(forKey: "tokens.lease")
        }
        #expect(await gate.calls == 1)

        // A secret cannot pose as a coordination item by starting with the mark.
        let forged = Data([0x00]) + Data("SNCOORD1".utf8) + self.secret
        await #expect(throws: SecureStoreError(.protectedItem, "")) {
            try await store.set(forged, forKey: "tokens")
        }
        await #expect(throws: SecureStoreError(.protectedItem, "")) {
            try await store.coordinationData(forKey: "tokens")
        }

        // A coordination item under a key that is not protected is stored as it is, for a
        // process that shares the store without the wrapper.
        try await store.setCoordinationData(Data([1]), forKey: "settings.flag")
        #expect(try await base.data(forKey: "settings.flag") == Data([1]))
    }

    @Test func underTheDefaultEveryItemIsProtectedAndCoordinationItemsStillPass() async throws {
        let gate = ScriptedGate()
        let store = UserPresenceProtectedStore(wrapping: InMemoryStore(["tokens": self.secret]), gate: gate)
        await #expect(throws: SecureStoreError(.protectedItem, "")) {
            try await store.coordinationData(forKey: "tokens")
        }
        try await store.setCoordinationData(Data("lease".utf8), forKey: "tokens.refreshLease")
        #expect(try await store.coordinationData(forKey: "tokens.refreshLease") == Data("lease".utf8))
        #expect(await gate.calls == 0)
        #expect(SecureStoreError.Code.protectedItem.description == "protectedItem")
    }
}
