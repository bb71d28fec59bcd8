//! Finding the line and column of a key or sequence item in a scenario's
//! source text, for errors the parser or lint reports without a precise
//! position (block YAML and JSON; flow collections fall back to the key).

/// (line, col), 1-based, of a top-level key.
pub fn top_key(source: &str, key: &str) -> Option<(usize, usize)> {
    let pat = format!("{key}:");
    let json_pat = format!("\"{key}\"");
    source.lines().enumerate().find_map(|(i, line)| {
        if line.starts_with(&pat) {
            Some((i + 1, 1))
        } else {
            line.find(&json_pat).map(|c| (i + 1, c + 1))
        }
    })
}

/// Column (0-based) where the text of `line` starts, past any `- ` markers.
fn content_start(line: &str) -> usize {
    let mut i = line.len() - line.trim_start().len();
    while line[i..].starts_with("- ") {
        i += 2;
        i += line[i..].len() - line[i..].trim_start().len();
    }
    i
}

/// The key a line defines (`key:` or `"key":`), if any.
fn key_of(line: &str) -> Option<&str> {
    let rest = &line[content_start(line)..];
    let rest = rest.strip_prefix('"').map_or(rest, |r| r);
    let end = rest.find([':', '"'])?;
    let (k, tail) = rest.split_at(end);
    let tail = tail.trim_start_matches('"');
    (tail.starts_with(':') && !k.is_empty()).then_some(k)
}

/// Positions of the items of the sequence under `parent.key` (`parent` empty:
/// a top-level key), block style. Empty when not found or not block style.
pub fn sequence_items(source: &str, parent: &str, key: &str) -> Vec<(usize, usize)> {
    let lines: Vec<&str> = source.lines().collect();
    let mut start = 0;
    let mut min_indent = 0;
    if !parent.is_empty() {
        match lines.iter().position(|l| key_of(l) == Some(parent) && content_start(l) == 0) {
            Some(i) => {
                start = i + 1;
                min_indent = 1;
            }
            None => return vec![],
        }
    }
    let Some(k) = lines[start..].iter().position(|l| key_of(l) == Some(key) && content_start(l) >= min_indent).map(|i| i + start) else {
        return vec![];
    };
    let key_indent = content_start(lines[k]);
    let mut out = Vec::new();
    let mut item_indent = None;
    for (i, line) in lines.iter().enumerate().skip(k + 1) {
        let t = line.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let indent = line.len() - t.len();
        if indent < key_indent || (indent == key_indent && !t.starts_with('-')) {
            break;
        }
        if t.starts_with("- ") || t == "-" {
            match item_indent {
                None => {
                    item_indent = Some(indent);
                    out.push((i + 1, indent + 1));
                }
                Some(ind) if ind == indent => out.push((i + 1, indent + 1)),
                Some(ind) if indent < ind => break,
                _ => {}
            }
        }
    }
    out
}

/// Where `key` is defined a second time in the mapping that starts at
/// (`line`, `col`) — the position a parser gives for a duplicate key.
pub fn duplicate_key(source: &str, line: usize, col: usize, key: &str) -> Option<(usize, usize)> {
    let lines: Vec<&str> = source.lines().collect();
    let first = lines.get(line.checked_sub(1)?)?;
    // The mapping's keys sit where its first key's text starts.
    let indent = if col > 1 && col - 1 <= first.len() { content_start(first).max(col - 1) } else { content_start(first) };
    let mut seen = 0;
    for (i, l) in lines.iter().enumerate().skip(line - 1) {
        let t = l.trim_start();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        let at = content_start(l);
        if i + 1 > line && at < indent {
            break;
        }
        if at == indent && key_of(l) == Some(key) {
            seen += 1;
            if seen == 2 {
                return Some((i + 1, at + 1));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "id: x\ntitle: t\nsetup:\n  provider: p\n  transcript:\n    - {user: hi}\n    # a comment\n    - assistant: hello\n      extra: 1\n    - {bogus: 1}\nscript:\n  - turn:\n      user: hi\n      model: [ok]\n      user: again\n  - heartbeat: {}\n";

    #[test]
    fn nested_sequence_items() {
        assert_eq!(sequence_items(SRC, "setup", "transcript"), [(6, 5), (8, 5), (10, 5)]);
        assert_eq!(sequence_items(SRC, "", "script"), [(12, 3), (16, 3)]);
        assert!(sequence_items(SRC, "setup", "nothing").is_empty());
    }

    #[test]
    fn second_definition_of_a_key() {
        // serde_yaml reports a nested duplicate at the mapping's start (12:7 here).
        assert_eq!(duplicate_key(SRC, 13, 7, "user"), Some((15, 7)));
        let top = "id: y\ntitle: t\ntitle: t2\n";
        assert_eq!(duplicate_key(top, 1, 1, "title"), Some((3, 1)));
        assert_eq!(duplicate_key(top, 1, 1, "id"), None);
    }
}
