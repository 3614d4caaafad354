/// A size in terminal cells.
///
/// ```swift
/// let size = Size(width: 80, height: 24)
/// ```
public struct Size: Hashable, Sendable, CustomStringConvertible {
    /// Columns.
    public var width: Int
    /// Rows.
    public var height: Int

    /// Creates a size; negative values are treated as 0.
    public init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
    }

    /// `80x24`.
    public var description: String { "\(width)x\(height)" }
}

/// A cell position: `x` is the column and `y` the row, both from 0 at the top left.
///
/// ```swift
/// screen.cursor = Position(x: 10, y: 2)
/// ```
public struct Position: Hashable, Sendable, CustomStringConvertible {
    /// The column, from 0.
    public var x: Int
    /// The row, from 0.
    public var y: Int

    /// Creates a position.
    public init(x: Int, y: Int) {
        self.x = x
        self.y = y
    }

    /// `(x, y)`.
    public var description: String { "(\(x), \(y))" }
}

/// A rectangle of cells: the region of a `Screen` a widget draws into.
///
/// ```swift
/// let (list, form) = Rect(size: screen.size).dividedColumns(at: 30)
/// ```
public struct Rect: Hashable, Sendable, CustomStringConvertible {
    /// The left column.
    public var x: Int
    /// The top row.
    public var y: Int
    /// Columns.
    public var width: Int
    /// Rows.
    public var height: Int

    /// Creates a rectangle; a negative width or height is treated as 0.
    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = max(0, width)
        self.height = max(0, height)
    }

    /// The rectangle covering a whole screen of `size`.
    public init(size: Size) {
        self.init(x: 0, y: 0, width: size.width, height: size.height)
    }

    /// The column just right of the rectangle.
    public var maxX: Int { x + width }
    /// The row just below the rectangle.
    public var maxY: Int { y + height }
    /// Whether the rectangle has no cells.
    public var isEmpty: Bool { width == 0 || height == 0 }

    /// Whether `position` is inside the rectangle.
    public func contains(_ position: Position) -> Bool {
        position.x >= x && position.x < maxX && position.y >= y && position.y < maxY
    }

    /// The part of this rectangle inside `other` (empty if they do not overlap).
    public func intersection(_ other: Rect) -> Rect {
        let left = max(x, other.x)
        let top = max(y, other.y)
        return Rect(x: left, y: top, width: min(maxX, other.maxX) - left, height: min(maxY, other.maxY) - top)
    }

    /// The rectangle shrunk by the given margins.
    ///
    /// ```swift
    /// let content = rect.inset(left: 1, right: 1)
    /// ```
    public func inset(top: Int = 0, left: Int = 0, bottom: Int = 0, right: Int = 0) -> Rect {
        Rect(x: x + left, y: y + top, width: width - left - right, height: height - top - bottom)
    }

    /// Splits the rectangle into the first `columns` columns (clamped to the width) and the rest.
    ///
    /// ```swift
    /// let (left, right) = rect.dividedColumns(at: 30)
    /// ```
    public func dividedColumns(at columns: Int) -> (Rect, Rect) {
        let first = min(max(0, columns), width)
        return (Rect(x: x, y: y, width: first, height: height), Rect(x: x + first, y: y, width: width - first, height: height))
    }

    /// Splits the rectangle into the first `rows` rows (clamped to the height) and the rest.
    ///
    /// ```swift
    /// let (body, statusLine) = rect.dividedRows(at: rect.height - 1)
    /// ```
    public func dividedRows(at rows: Int) -> (Rect, Rect) {
        let first = min(max(0, rows), height)
        return (Rect(x: x, y: y, width: width, height: first), Rect(x: x, y: y + first, width: width, height: height - first))
    }

    /// `x,y widthxheight`.
    public var description: String { "\(x),\(y) \(width)x\(height)" }
}
