//! "Did you mean": the known name a mistyped one was meant to be.
//!
//! Two kinds of slip are common in scenarios: a typo or a capital letter (`bandwdith`, `Reno`),
//! and ns-2's spelling of a variable (`window_`, `packetSize_`). The first is found by edit
//! distance, the second by rewriting ns-2's name the way tcplab spells it.

/// ns-2's spelling as tcplab's: the trailing underscore dropped, camelCase to snake_case
/// (`window_` → `window`, `packetSize_` → `packet_size`).
fn from_ns2(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for (i, c) in name.trim_end_matches('_').chars().enumerate() {
        if c.is_ascii_uppercase() {
            if i > 0 {
                out.push('_');
            }
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// Edits (insertions, deletions, substitutions, swaps of neighbours) between two names:
/// "bandwdith" is one swap from "bandwidth".
fn edits(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // rows i-2, i-1 and i of the table over prefixes
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut row = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        row[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (prev[j] + 1).min(row[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(before[j - 2] + 1);
            }
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut row);
    }
    prev[b.len()]
}

/// The known name nearest to `name`: the same letters in another case, or close enough to
/// be a typo (a third of its letters at most, and at most 3) and nearer than any other (`k9`
/// among `k1`, `k2` names none: a guess would mislead).
pub(crate) fn nearest<'a>(name: &str, known: &[&'a str]) -> Option<&'a str> {
    if let Some(k) = known.iter().find(|k| k.eq_ignore_ascii_case(name)) {
        return Some(k);
    }
    let lower = name.to_ascii_lowercase();
    let limit = (lower.chars().count() / 3).clamp(1, 3);
    let near: Vec<(usize, &str)> = known.iter().map(|k| (edits(&lower, k), *k)).filter(|(d, _)| *d <= limit).collect();
    let best = near.iter().map(|(d, _)| *d).min()?;
    match near.iter().filter(|(d, _)| *d == best).collect::<Vec<_>>()[..] {
        [(_, k)] => Some(k),
        _ => None,
    }
}

/// What to say about an unknown `name` among `known`: the ns-2 spelling's tcplab name, or
/// the nearest name; None when nothing is near.
pub(crate) fn hint(name: &str, known: &[&str]) -> Option<String> {
    let ns2 = from_ns2(name);
    if ns2 != name {
        if let Some(k) = known.iter().find(|k| **k == ns2) {
            return Some(if name.trim_end_matches('_') == ns2 {
                format!("ns-2 spells it `{name}`; tcplab's name drops the trailing underscore: `{k}`")
            } else {
                format!("ns-2's `{name}` is `{k}` in tcplab")
            });
        }
    }
    nearest(name, known).or_else(|| nearest(&ns2, known)).map(|k| format!("did you mean `{k}`?"))
}

/// serde's "unknown field `x`, expected one of `a`, `b`" with a hint in place of the list
/// when one name is near (serde_json's " at line 1 column 9" kept); other messages as they are.
pub(crate) fn unknown_field(message: &str) -> String {
    let Some(rest) = message.strip_prefix("unknown field `") else {
        return message.to_string();
    };
    let Some((name, list)) = rest.split_once('`') else {
        return message.to_string();
    };
    let at = list.rfind(" at line ").map_or("", |i| &list[i..]);
    let known: Vec<&str> = list.split('`').skip(1).step_by(2).collect();
    match hint(name, &known) {
        Some(h) => format!("unknown field `{name}`: {h}{at}"),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_swaps_and_case_find_their_name() {
        let known = ["from", "to", "bandwidth", "delay", "queue", "queue_limit"];
        assert_eq!(nearest("bandwdith", &known), Some("bandwidth"));
        assert_eq!(nearest("Delay", &known), Some("delay"));
        assert_eq!(nearest("queue_limt", &known), Some("queue_limit"));
        assert_eq!(nearest("colour", &known), None);
        assert_eq!(nearest("Reno", &["tahoe", "reno", "newreno"]), Some("reno"));
        // short names take one edit at most: "x" is not a slip for "to"
        assert_eq!(nearest("x", &known), None);
        // two names as near: no guess
        assert_eq!(nearest("k9", &["k1", "k2", "r1"]), None);
        assert_eq!(nearest("k9", &["k1", "r1"]), Some("k1"));
    }

    #[test]
    fn ns2_spellings_are_named_as_such() {
        let known = ["window", "window_init", "max_cwnd", "packet_size"];
        assert!(hint("window_", &known).unwrap().contains("drops the trailing underscore: `window`"));
        assert!(hint("windowInit_", &known).unwrap().contains("`window_init` in tcplab"));
        assert_eq!(hint("maxcwnd_", &known).as_deref(), Some("did you mean `max_cwnd`?"));
        assert_eq!(hint("segsize_", &known), None);
    }

    #[test]
    fn serde_messages_get_the_hint_instead_of_the_list() {
        let m = "unknown field `bandwdith`, expected one of `from`, `to`, `bandwidth`, `delay`";
        assert_eq!(unknown_field(m), "unknown field `bandwdith`: did you mean `bandwidth`?");
        let far = "unknown field `zzz`, expected `from` or `to`";
        assert_eq!(unknown_field(far), far);
        assert_eq!(unknown_field("invalid type: map"), "invalid type: map");
        let json = "unknown field `dealy`, expected `from` or `delay` at line 1 column 40";
        assert_eq!(unknown_field(json), "unknown field `dealy`: did you mean `delay`? at line 1 column 40");
    }

    #[test]
    fn edit_distance_counts_each_kind_of_edit() {
        assert_eq!(edits("", "abc"), 3);
        assert_eq!(edits("abc", "abc"), 0);
        assert_eq!(edits("abc", "acb"), 1);
        assert_eq!(edits("kitten", "sitting"), 3);
    }
}
