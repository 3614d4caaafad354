/// How the store writes the SQL of a query: quoting, placeholders, conditions, ordering and
/// paging, in one place. A second backend (PostgreSQL, whose placeholders are `$1, $2, ...`
/// and whose null-safe equality is `IS NOT DISTINCT FROM`) provides its own.
protocol _SQLDialect: Sendable {
    /// `identifier` quoted as a column or table name.
    func quote(_ identifier: String) -> String
    /// The placeholder of the `number`th bound value (1-based).
    func placeholder(_ number: Int) -> String
    /// `column op placeholder` for a comparison; `nullSafe` for equality on a nullable column
    /// that must treat NULL as a value.
    func comparison(_ column: String, _ op: _ComparisonOperator, _ placeholder: String, nullSafe: Bool) -> String
    /// A test that `column` holds `text` at the position `match` says, exactly (a NUL is a
    /// character like any other), binding its values with `bind`, which returns a placeholder.
    func textMatch(_ column: String, _ match: _TextMatch, _ text: String, bind: (SQLiteValue) -> String) -> String
}

/// SQLite's SQL.
struct _SQLiteDialect: _SQLDialect {
    func quote(_ identifier: String) -> String {
        // Most names hold no quote: no search-and-replace for them.
        guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
        return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    func placeholder(_ number: Int) -> String { "?" }

    func comparison(_ column: String, _ op: _ComparisonOperator, _ placeholder: String, nullSafe: Bool) -> String {
        switch op {
        case .equal: "\(column) \(nullSafe ? "IS" : "=") \(placeholder)"
        case .notEqual: "\(column) \(nullSafe ? "IS NOT" : "<>") \(placeholder)"
        case .less: "\(column) < \(placeholder)"
        case .lessOrEqual: "\(column) <= \(placeholder)"
        case .greater: "\(column) > \(placeholder)"
        case .greaterOrEqual: "\(column) >= \(placeholder)"
        }
    }

    /// Case-sensitive, as Swift's `contains`, `hasPrefix` and `hasSuffix` are (LIKE ignores
    /// ASCII case), and exact over the whole text: GLOB and `substr` stop at a NUL, `instr`,
    /// comparisons and blobs do not.
    ///
    /// - contains: `instr(column, text) > 0`.
    /// - prefix: a range, `column >= text AND column < after`, where `after` is `text` with its
    ///   last scalar one higher (UTF-8 orders bytes as code points order scalars): exactly the
    ///   texts that start with `text`, and an index on the column serves it.
    /// - suffix: the last bytes, `substr(CAST(column AS BLOB), -n) = bytes` (after checking the
    ///   length: `substr` of an empty blob is NULL).
    /// - ignoring case: both sides lowered as Swift lowers them (`tether_lower`, which every
    ///   `Connection` has; SQLite's own `lower` and LIKE fold ASCII letters only).
    func textMatch(_ column: String, _ match: _TextMatch, _ text: String, bind: (SQLiteValue) -> String) -> String {
        switch match {
        case .containsIgnoringCase:
            return "instr(tether_lower(\(column)), \(bind(.text(text.lowercased())))) > 0"
        case .contains:
            return "instr(\(column), \(bind(.text(text)))) > 0"
        case .prefix:
            guard !text.isEmpty else { return "\(column) IS NOT NULL" }
            let from = "\(column) >= \(bind(.text(text)))"
            guard let after = Self.successor(of: text) else { return from }
            return "(\(from) AND \(column) < \(bind(.text(after))))"
        case .suffix:
            guard !text.isEmpty else { return "\(column) IS NOT NULL" }
            // `substr` of an empty blob is NULL: the length is tested first.
            let bytes = Array(text.utf8)
            let blob = "CAST(\(column) AS BLOB)"
            return "(length(\(blob)) >= \(bytes.count) AND substr(\(blob), -\(bytes.count)) = \(bind(.blob(bytes))))"
        }
    }

    /// The first text after every text that starts with `text`: its last scalar one higher
    /// (the surrogates skipped), or, when that is U+10FFFF, the successor of what is before it;
    /// nil when there is none (every scalar is U+10FFFF).
    static func successor(of text: String) -> String? {
        var scalars = Array(text.unicodeScalars)
        while let last = scalars.popLast() {
            var next = last.value + 1
            if next == 0xD800 { next = 0xE000 }
            if let scalar = Unicode.Scalar(next) {
                scalars.append(scalar)
                var result = String.UnicodeScalarView()
                result.append(contentsOf: scalars)
                return String(result)
            }
        }
        return nil
    }
}

extension _SQLDialect {
    /// The WHERE clause of `condition` (without the keyword), appending its bound values to
    /// `arguments`. `column` names the column of a property index, nil for one with no column.
    func render<M>(
        _ condition: Condition<M>,
        column: (Int) -> String?,
        arguments: inout [SQLiteValue]
    ) throws(StoreError) -> String {
        try render(condition.node, model: M._$schema.name, column: column, arguments: &arguments)
    }

    private func render<M: PersistentModel>(
        _ node: Condition<M>.Node,
        model: String,
        column: (Int) -> String?,
        arguments: inout [SQLiteValue]
    ) throws(StoreError) -> String {
        func name(_ property: Int) throws(StoreError) -> String {
            guard let name = column(property) else {
                let names = M._$schema.properties.map(\.name)
                throw .mapping(.notStored(model: model, property: property < names.count ? names[property] : nil,
                                          reason: "has no column: a condition cannot compare it"))
            }
            return quote(name)
        }
        func bind(_ value: SQLiteValue) -> String {
            arguments.append(value)
            return placeholder(arguments.count)
        }
        switch node {
        case .comparison(let property, let op, let value, let nullable):
            let column = try name(property)
            if value == .null, op == .equal || op == .notEqual {
                return "\(column) IS \(op == .equal ? "" : "NOT ")NULL"
            }
            let test = comparison(column, op, bind(value), nullSafe: nullable)
            if nullable, op != .equal, op != .notEqual {
                // NULL < x is NULL, which NOT leaves NULL: make it false, as nil < x is in Swift.
                return "(\(column) IS NOT NULL AND \(test))"
            }
            return test
        case .isNull(let property, let negated):
            return "\(try name(property)) IS \(negated ? "NOT " : "")NULL"
        case .isIn(let property, let values, let negated, let nullable):
            let column = try name(property)
            let present = values.filter { $0 != .null }
            var test = present.isEmpty ? "0" : "\(column) IN (\(present.map { bind($0) }.joined(separator: ", ")))"
            if nullable {
                // x IN (...) is NULL for a NULL column: make it true or false, as Swift's
                // `contains` is, with nil a value like any other.
                if !present.isEmpty { test = "(\(column) IS NOT NULL AND \(test))" }
                if present.count < values.count { test = "(\(test) OR \(column) IS NULL)" }
            }
            return negated ? "NOT (\(test))" : test
        case .match(let property, let match, let text):
            return textMatch(try name(property), match, text, bind: bind)
        case .and(let lhs, let rhs):
            return "(\(try render(lhs, model: model, column: column, arguments: &arguments)) AND "
                + "\(try render(rhs, model: model, column: column, arguments: &arguments)))"
        case .or(let lhs, let rhs):
            return "(\(try render(lhs, model: model, column: column, arguments: &arguments)) OR "
                + "\(try render(rhs, model: model, column: column, arguments: &arguments)))"
        case .not(let inner):
            return "NOT (\(try render(inner, model: model, column: column, arguments: &arguments)))"
        case .constant(let value):
            return value ? "1" : "0"
        case .related(let property, let subquery):
            // Two-valued, as in Swift: a NULL foreign key is in no subquery's result, and NULLs
            // are left out of the result (`x IN (…, NULL)` would be NULL, not false).
            let outer = try property.map { property throws(StoreError) in try name(property) } ?? quote("id")
            let selected = quote(subquery.select)
            let inner = try subquery.render(self, &arguments)
            let test = "\(outer) IN (SELECT \(selected) FROM \(quote(subquery.table)) WHERE \(selected) IS NOT NULL AND (\(inner)))"
            return property == nil ? test : "(\(outer) IS NOT NULL AND \(test))"
        case .invalid(let error):
            throw error
        }
    }

    /// A SELECT of `columns` from `table`, filtered, ordered (then by id, so that equal keys
    /// keep a stable order) and paged.
    func select(
        _ columns: String,
        from table: String,
        where condition: String?,
        orderBy: String?,
        descending: Bool,
        limit: Int?,
        offset: Int?
    ) -> String {
        var sql = "SELECT \(columns) FROM \(table)"
        if let condition { sql += " WHERE \(condition)" }
        if let orderBy {
            sql += " ORDER BY \(orderBy)\(descending ? " DESC" : ""), id"
        } else {
            sql += " ORDER BY id"
        }
        if let limit { sql += " LIMIT \(max(limit, 0))" }
        if let offset { sql += limit == nil ? " LIMIT -1 OFFSET \(max(offset, 0))" : " OFFSET \(max(offset, 0))" }
        return sql
    }
}
