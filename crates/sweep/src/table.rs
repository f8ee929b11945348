//! The sweep's table: one row per run with its configuration and headline
//! metrics, in run order, and its CSV form. Column types are inferred from the
//! values (integers, floats, booleans, text); metrics are floats.

use serde_json::Value;

/// One value.
#[derive(Debug, Clone, PartialEq)]
pub enum Cell {
    Null,
    Int(i64),
    Float(f64),
    Bool(bool),
    Text(String),
}

impl Cell {
    pub fn from_json(v: &Value) -> Self {
        match v {
            Value::Null => Cell::Null,
            Value::Bool(b) => Cell::Bool(*b),
            Value::Number(n) => match n.as_i64() {
                Some(i) => Cell::Int(i),
                None => n.as_f64().map_or(Cell::Null, Cell::Float),
            },
            Value::String(s) => Cell::Text(s.clone()),
            other => Cell::Text(other.to_string()),
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Cell::Int(i) => Some(*i as f64),
            Cell::Float(x) => Some(*x),
            _ => None,
        }
    }

    fn text(&self) -> String {
        match self {
            Cell::Null => String::new(),
            Cell::Int(i) => i.to_string(),
            Cell::Float(x) => x.to_string(),
            Cell::Bool(b) => b.to_string(),
            Cell::Text(s) => s.clone(),
        }
    }
}

/// A column's type, as written to Parquet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    Int64,
    Double,
    Boolean,
    Utf8,
}

/// What a column holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// `run`, `hash`, `seed`, `error`.
    Bookkeeping,
    /// A swept parameter.
    Param,
    /// A fixed option from `[base]`.
    Base,
    Metric,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Column {
    pub name: String,
    pub role: Role,
    pub kind: ColumnType,
    pub cells: Vec<Cell>,
}

impl Column {
    /// A column with its type inferred from its cells (and cells converted to it).
    pub fn new(name: &str, role: Role, cells: Vec<Cell>) -> Self {
        let present = || cells.iter().filter(|c| **c != Cell::Null);
        let kind = if present().next().is_none() {
            // No value to go by: text, or a float for a metric.
            if role == Role::Metric {
                ColumnType::Double
            } else {
                ColumnType::Utf8
            }
        } else if present().all(|c| matches!(c, Cell::Int(_))) {
            ColumnType::Int64
        } else if present().all(|c| matches!(c, Cell::Int(_) | Cell::Float(_))) {
            ColumnType::Double
        } else if present().all(|c| matches!(c, Cell::Bool(_))) {
            ColumnType::Boolean
        } else {
            ColumnType::Utf8
        };
        let kind = if role == Role::Metric && kind == ColumnType::Int64 {
            ColumnType::Double
        } else {
            kind
        };
        let cells = cells
            .into_iter()
            .map(|c| match (kind, c) {
                (_, Cell::Null) => Cell::Null,
                (ColumnType::Double, Cell::Int(i)) => Cell::Float(i as f64),
                (ColumnType::Utf8, c @ Cell::Text(_)) => c,
                (ColumnType::Utf8, c) => Cell::Text(c.text()),
                (_, c) => c,
            })
            .collect();
        Self {
            name: name.to_string(),
            role,
            kind,
            cells,
        }
    }
}

/// Rows of a sweep, column by column.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Table {
    pub columns: Vec<Column>,
}

impl Table {
    pub fn rows(&self) -> usize {
        self.columns.first().map_or(0, |c| c.cells.len())
    }

    pub fn column(&self, name: &str) -> Option<&Column> {
        self.columns.iter().find(|c| c.name == name)
    }

    /// The table as CSV (a header line, then one line per run; nulls empty).
    pub fn to_csv(&self) -> String {
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(self.columns.iter().map(|c| c.name.as_str()))
            .expect("in-memory csv");
        for r in 0..self.rows() {
            w.write_record(self.columns.iter().map(|c| c.cells[r].text()))
                .expect("in-memory csv");
        }
        String::from_utf8(w.into_inner().expect("in-memory csv")).expect("csv is utf-8")
    }

    /// The table as JSON records (what the Python package turns into a frame).
    pub fn to_records(&self) -> Value {
        let rows = (0..self.rows())
            .map(|r| {
                let mut m = serde_json::Map::new();
                for c in &self.columns {
                    let v = match &c.cells[r] {
                        Cell::Null => Value::Null,
                        Cell::Int(i) => (*i).into(),
                        Cell::Float(x) => {
                            serde_json::Number::from_f64(*x).map_or(Value::Null, Value::Number)
                        }
                        Cell::Bool(b) => (*b).into(),
                        Cell::Text(s) => s.clone().into(),
                    };
                    m.insert(c.name.clone(), v);
                }
                Value::Object(m)
            })
            .collect();
        Value::Array(rows)
    }

    /// Column names in order (JSON records lose it).
    pub fn names(&self) -> Vec<String> {
        self.columns.iter().map(|c| c.name.clone()).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn types_are_inferred_and_cells_converted() {
        let c = Column::new(
            "x",
            Role::Param,
            vec![Cell::Int(1), Cell::Float(2.5), Cell::Null],
        );
        assert_eq!(c.kind, ColumnType::Double);
        assert_eq!(c.cells[0], Cell::Float(1.0));
        let c = Column::new(
            "x",
            Role::Param,
            vec![Cell::Int(4096), Cell::Text("8k".into())],
        );
        assert_eq!(c.kind, ColumnType::Utf8);
        assert_eq!(c.cells[0], Cell::Text("4096".into()));
        let c = Column::new("m", Role::Metric, vec![Cell::Int(3)]);
        assert_eq!(c.kind, ColumnType::Double);
        let c = Column::new("error", Role::Bookkeeping, vec![Cell::Null, Cell::Null]);
        assert_eq!(c.kind, ColumnType::Utf8);
        let c = Column::new("m", Role::Metric, vec![Cell::Null]);
        assert_eq!(c.kind, ColumnType::Double);
        let t = Table {
            columns: vec![
                Column::new("a", Role::Param, vec![Cell::Int(1), Cell::Null]),
                Column::new(
                    "b,c",
                    Role::Param,
                    vec![Cell::Text("x".into()), Cell::Bool(true)],
                ),
            ],
        };
        assert_eq!(t.to_csv(), "a,\"b,c\"\n1,x\n,true\n");
    }
}
