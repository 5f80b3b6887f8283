//! What a Luau text says without running it: the hook names it gives `meeple.on`, read past
//! comments and strings, for `meeple check` to tell a misspelt one while the script cannot run.

/// Each `meeple.on("name"` of a Luau text, with its line: read as Luau reads it, so that one in
/// a comment or a string is not taken for a call.
pub(crate) fn hook_names(text: &str) -> Vec<(usize, &str)> {
    const CALL: &str = "meeple.on";
    let (mut found, mut i, mut line) = (Vec::new(), 0, 1);
    while i < text.len() {
        let rest = &text[i..];
        let skipped = if let Some(comment) = rest.strip_prefix("--") {
            // A long comment `--[[ … ]]` (or `--[==[ … ]==]`), else to the end of the line.
            long_bracket(comment).map_or_else(|| rest.find('\n').unwrap_or(rest.len()), |n| n + 2)
        } else if let Some(n) = long_bracket(rest) {
            n
        } else if rest.starts_with(['"', '\'', '`']) {
            quoted(rest)
        } else if rest.starts_with(CALL) && !text[..i].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '.')
        {
            if let Some(name) = literal_argument(&rest[CALL.len()..]) {
                found.push((line, name));
            }
            CALL.len()
        } else {
            rest.chars().next().map_or(1, char::len_utf8)
        };
        line += text[i..i + skipped].matches('\n').count();
        i += skipped;
    }
    found
}

/// The length of a long bracket `[[ … ]]` or `[=[ … ]=]` that `text` opens, to its close (or
/// the end), if it opens one.
fn long_bracket(text: &str) -> Option<usize> {
    let level = text.strip_prefix('[')?.bytes().take_while(|&b| b == b'=').count();
    let open = 2 + level;
    (text.as_bytes().get(open - 1) == Some(&b'[')).then_some(())?;
    let close = format!("]{}]", "=".repeat(level));
    Some(text[open..].find(&close).map_or(text.len(), |n| open + n + close.len()))
}

/// The length of the quoted string `text` opens (`"…"`, `'…'` or `` `…` ``), escapes included,
/// to its close (or the end of its line, where an unclosed one stops).
fn quoted(text: &str) -> usize {
    let quote = text.as_bytes()[0];
    let mut i = 1;
    while let Some(&b) = text.as_bytes().get(i) {
        match b {
            // The escaped character whole: it may take more than a byte.
            b'\\' => i += 1 + text[i + 1..].chars().next().map_or(0, char::len_utf8),
            b'\n' if quote != b'`' => return i,
            _ if b == quote => return i + 1,
            _ => i += 1,
        }
    }
    text.len().min(i)
}

/// The string that opens a call's arguments: `name` in `("name", …` or `('name', …`.
fn literal_argument(call: &str) -> Option<&str> {
    let args = call.trim_start().strip_prefix('(')?.trim_start();
    let quote = args.chars().next().filter(|c| *c == '"' || *c == '\'')?;
    let body = &args[1..];
    body.find(quote).map(|end| &body[..end])
}

#[cfg(test)]
mod tests {
    use super::hook_names;

    #[test]
    fn hook_names_are_read_from_calls_not_from_comments_or_strings() {
        let text = "--[[ meeple.on(\"old\") ]]\nlocal s = \"meeple.on('in_string')\" -- meeple.on(\"in_comment\")\n\
                    meeple.on(\"tile_placed\", function() local t = \"--\" end) meeple.on('tile_placd', f)\n\
                    local u = \"\\é\" --[==[\nmeeple.on(\"long\")\n]==] meeple.on ( \"turn_end\" )\nmymeeple.on(\"x\")\n";
        assert_eq!(hook_names(text), [(3, "tile_placed"), (3, "tile_placd"), (6, "turn_end")]);
    }
}
