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
    /// A test that `column` holds `text` at the position `match` says, with `placeholder`
    /// bound to `pattern(for:_:)`'s result.
    func textMatch(_ column: String, _ match: _TextMatch, _ placeholder: String) -> String
    /// The value bound for a text match.
    func pattern(for match: _TextMatch, _ text: String) -> String
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

    /// GLOB: case-sensitive, as Swift's `contains` and `hasPrefix` are (LIKE ignores ASCII
    /// case), and a prefix pattern can use an index. Ignoring case, both sides are lowered as
    /// Swift lowers them (`tether_lower`, which every `Connection` has; SQLite's own `lower`
    /// and LIKE fold ASCII letters only).
    func textMatch(_ column: String, _ match: _TextMatch, _ placeholder: String) -> String {
        match == .containsIgnoringCase ? "instr(tether_lower(\(column)), \(placeholder)) > 0" : "\(column) GLOB \(placeholder)"
    }

    func pattern(for match: _TextMatch, _ text: String) -> String {
        // GLOB's special characters match themselves inside brackets.
        var escaped = ""
        for character in text {
            switch character {
            case "*": escaped += "[*]"
            case "?": escaped += "[?]"
            case "[": escaped += "[[]"
            default: escaped.append(character)
            }
        }
        switch match {
        case .contains: return "*" + escaped + "*"
        case .prefix: return escaped + "*"
        case .suffix: return "*" + escaped
        case .containsIgnoringCase: return text.lowercased()
        }
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

    private func render(
        _ node: Condition<some PersistentModel>.Node,
        model: String,
        column: (Int) -> String?,
        arguments: inout [SQLiteValue]
    ) throws(StoreError) -> String {
        func name(_ property: Int) throws(StoreError) -> String {
            guard let name = column(property) else {
                throw .mapping(.unsupportedType(model: model, property: "#\(property)", type: "(not persisted)"))
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
            return textMatch(try name(property), match, bind(.text(pattern(for: match, text))))
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
