import TetherSQLite

/// A row every worker changes, and nobody deletes.
///
/// Column `cW` is written only by worker W (a counter it increments by plain assignment), so
/// the checker knows which values each worker's acknowledged commits must have left. `n` is
/// changed only through `Store.update` (read-modify-write: no increment may be lost). `s` is
/// written by everyone (the last writer wins). `cs` is the sqlite3 shell's counter.
@Model
final class Cell {
    var c0 = 0
    var c1 = 0
    var c2 = 0
    var c3 = 0
    var n = 0
    var s = ""
    var cs = 0
}
extension Cell: PersistentModel {}

/// A row that workers insert and delete at random.
@Model
final class Churn {
    var label = ""
    var v = 0
}
extension Churn: PersistentModel {}

/// A parent that workers insert with leaves, and delete (its leaves go with it: cascade). It
/// may sit in another folder (a tree: deleting a folder deletes its whole subtree, whoever
/// deletes it, the sqlite3 shell included), and may carry a tag (a plain to-one: deleting the
/// tag sets it to nil).
@Model
final class Folder {
    var label = ""
    @Relationship(inverse: \Leaf.folder, deleteRule: .cascade, orderBy: \Leaf.position)
    var leaves: [Leaf] = []
    @Relationship(inverse: \Folder.parent, deleteRule: .cascade)
    var subfolders: [Folder] = []
    @Relationship var parent: Folder?
    var tag: Tag?
}
extension Folder: PersistentModel {}

/// What a folder may be tagged with: workers and the sqlite3 shell delete tags, and the
/// folders that carried one carry none (nullify, for every program).
@Model
final class Tag {
    var label = ""
}
extension Tag: PersistentModel {}

/// A child that workers add to folders, move between them, reorder and delete.
@Model
final class Leaf {
    @Relationship var folder: Folder?
    var position = 0
}
extension Leaf: PersistentModel {}

/// Worker W's own column.
func ownColumn(_ worker: Int) -> ReferenceWritableKeyPath<Cell, Int> {
    let columns: [ReferenceWritableKeyPath<Cell, Int>] = [\Cell.c0, \Cell.c1, \Cell.c2, \Cell.c3]
    return columns[worker]
}

/// The columns of `Cell` in the order `cellSQL` selects them.
let cellColumns = ["c0", "c1", "c2", "c3", "n", "s", "cs"]
let cellSQL = "SELECT id, c0, c1, c2, c3, n, s, cs FROM Cell"

/// A cell's values as text, in `cellColumns` order (to compare a model with its row).
func values(of cell: Cell) -> [String] {
    ["\(cell.c0)", "\(cell.c1)", "\(cell.c2)", "\(cell.c3)", "\(cell.n)", cell.s, "\(cell.cs)"]
}

/// The most workers a run can have (one `cW` column each).
let maximumWorkers = 4
