//! Where two canonical states differ, leaf by leaf. Replay uses it to say what a step does
//! now, and the text rendering to say what a step changed.

use serde_json::Value;

/// One leaf that differs: its path from the part's root, and the value on each side
/// (`None` where the leaf does not exist on that side).
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// Object keys and list indices from the root.
    pub path: Vec<String>,
    /// The value before.
    pub before: Option<Value>,
    /// The value after.
    pub after: Option<Value>,
}

impl Change {
    /// `a.b.0.c`.
    pub fn path_text(&self) -> String {
        self.path.join(".")
    }

    /// `path: before -> after`, values compact and cut to `width` characters.
    pub fn describe(&self, width: usize) -> String {
        format!(
            "{}: {} -> {}",
            self.path_text(),
            short(self.before.as_ref(), width),
            short(self.after.as_ref(), width)
        )
    }
}

/// A value in a few characters: strings without quotes, `-` for a missing one.
pub fn short(value: Option<&Value>, width: usize) -> String {
    let text = match value {
        None => "-".to_string(),
        Some(Value::String(s)) => s.clone(),
        Some(v) => v.to_string(),
    };
    if text.chars().count() <= width {
        text
    } else {
        let cut: String = text.chars().take(width.saturating_sub(1)).collect();
        format!("{cut}…")
    }
}

/// Up to `limit` differing leaves, in document order, and how many there are in all.
pub fn changes(before: &Value, after: &Value, limit: usize) -> (Vec<Change>, usize) {
    let mut out = Vec::new();
    let mut total = 0;
    walk(before, after, &mut Vec::new(), limit, &mut out, &mut total);
    (out, total)
}

fn walk(
    a: &Value,
    b: &Value,
    path: &mut Vec<String>,
    limit: usize,
    out: &mut Vec<Change>,
    total: &mut usize,
) {
    if a == b {
        return;
    }
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                path.push(k.clone());
                match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) => walk(p, q, path, limit, out, total),
                    (p, q) => leaf(path, p, q, limit, out, total),
                }
                path.pop();
            }
        }
        (Value::Array(x), Value::Array(y)) => {
            for i in 0..x.len().max(y.len()) {
                path.push(i.to_string());
                match (x.get(i), y.get(i)) {
                    (Some(p), Some(q)) => walk(p, q, path, limit, out, total),
                    (p, q) => leaf(path, p, q, limit, out, total),
                }
                path.pop();
            }
        }
        _ => leaf(path, Some(a), Some(b), limit, out, total),
    }
}

fn leaf(
    path: &[String],
    a: Option<&Value>,
    b: Option<&Value>,
    limit: usize,
    out: &mut Vec<Change>,
    total: &mut usize,
) {
    *total += 1;
    if out.len() < limit {
        out.push(Change {
            path: path.to_vec(),
            before: a.cloned(),
            after: b.cloned(),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_leaves_in_document_order() {
        let a = json!({"x": 1, "y": {"z": [1, 2]}, "gone": true});
        let b = json!({"x": 1, "y": {"z": [1, 3, 4]}, "new": "v"});
        let (found, total) = changes(&a, &b, 10);
        let paths: Vec<String> = found.iter().map(Change::path_text).collect();
        assert_eq!(paths, ["gone", "new", "y.z.1", "y.z.2"]);
        assert_eq!(total, 4);
        assert_eq!(found[2].describe(8), "y.z.1: 2 -> 3");
        assert_eq!(found[0].describe(8), "gone: true -> -");
        let (first, total) = changes(&a, &b, 1);
        assert_eq!((first.len(), total), (1, 4));
    }

    #[test]
    fn long_values_are_cut() {
        assert_eq!(short(Some(&json!("abcdefgh")), 5), "abcd…");
        assert_eq!(short(None, 5), "-");
    }
}
