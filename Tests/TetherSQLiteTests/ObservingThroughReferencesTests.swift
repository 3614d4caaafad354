import Foundation
import Testing
import TetherSQLite   // the public API only

/// An observer of a path through a reference that holds its target weakly (`pet.keeper`, the
/// inverse of `Keeper.pets`) keeps that target alive while it observes it, so a change to the
/// target's row made elsewhere reaches it; and frees it once it stops.
@Suite("Observing through a weak reference")
struct ObservingThroughReferencesTests {
    /// A pet whose keeper nobody else holds: the stores holds models weakly, and the pet's
    /// reference to its keeper is weak.
    private func petWithAFreedKeeper(_ store: Store) throws -> (pet: Pet, keeper: () -> Keeper?) {
        weak var weakKeeper: Keeper?
        let pet: Pet = try {
            let keeper = Keeper()
            keeper.name = "Ada"
            let pet = Pet()
            pet.name = "Rex"
            keeper.pets = [pet]
            try store.insert(keeper)
            try store.flush()
            weakKeeper = keeper
            return pet
        }()
        return (pet, { weakKeeper })
    }

    @Test func aRenameElsewhereReachesTheObserverOfAPathThroughTheReference() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let (pet, _) = try petWithAFreedKeeper(store)
        var names: [String?] = []
        let observation = observe(pet, \.keeper?.name).sink(next: { names.append($0) })
        try fixture.another().execute("UPDATE Keeper SET name = 'Ada King'")
        try store.refresh()
        try fixture.another().execute("UPDATE Keeper SET name = 'Ada Byron'")
        try store.refresh()
        #expect(names == ["Ada", "Ada King", "Ada Byron"])
        observation.dispose()
    }

    @Test func theTargetIsFreedWhenTheObservationEndsOrItsModelIsFreed() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        var (pet, keeper): (Pet?, () -> Keeper?) = try petWithAFreedKeeper(store)
        #expect(keeper() == nil, "nobody holds the keeper")
        weak let loaded = pet!.keeper
        #expect(loaded == nil, "read, it is loaded, and freed again")
        let observation = observe(pet!, \.keeper?.name).sink(next: { _ in })
        weak var kept = pet!.keeper                             // the keeper the observation read
        #expect(kept?.name == "Ada", "kept while observed")
        observation.dispose()
        #expect(kept == nil, "freed once the observation ends")

        var completed = false
        let ending = observe(pet!, \.keeper?.name).sink(next: { _ in }, completed: { completed = true })
        kept = pet!.keeper
        #expect(kept != nil)
        pet = nil
        #expect(completed, "the pet freed ends the observation")
        #expect(kept == nil, "and frees the keeper")
        ending.dispose()
    }

    @Test func anotherKeeperReplacesTheOneKept() throws {
        let fixture = try StoreFixture()
        let store = fixture.store!
        let (pet, _) = try petWithAFreedKeeper(store)
        var names: [String?] = []
        let observation = observe(pet, \.keeper?.name).sink(next: { names.append($0) })
        weak let first = pet.keeper
        weak var second: Keeper?
        try {
            let keeper = Keeper()
            keeper.name = "Grace"
            try store.insert(keeper)
            keeper.pets.append(pet)
            try store.flush()
            second = keeper
        }()
        #expect(names == ["Ada", "Grace"])
        #expect(first == nil, "the first keeper is no longer observed, nor kept")
        try fixture.another().execute("UPDATE Keeper SET name = 'Grace Hopper' WHERE name = 'Grace'")
        try store.refresh()
        #expect(names == ["Ada", "Grace", "Grace Hopper"])
        observation.dispose()
        #expect(second == nil)
    }
}
