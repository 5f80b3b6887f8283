//! Reading TOML files with spans, for formats whose every error must name `file:line:col`.
//!
//! Serde stops at the first problem; people fixing a tileset or a game config want all of them.
//! So formats are read by hand from the spanned document tree: a [`Doc`] collects
//! [`Diagnostic`]s while [`Table`] readers look keys up, and each table reports the keys nobody
//! asked for as unknown, listing the ones it expected.
//!
//! ```
//! use meeple_toml::Doc;
//! let mut doc = Doc::parse("game.toml", "players = 7\nseed = \"x\"\n");
//! let root = doc.root();
//! let mut t = doc.table(&root, "the game config");
//! let players = t.int(&mut doc, "players");
//! let seed = t.int(&mut doc, "seed");
//! t.finish(&mut doc);
//! assert_eq!(players.map(|p| p.value), Some(7));
//! assert!(seed.is_none());
//! let report = doc.finish().unwrap_err();
//! assert_eq!(report.to_string(), "game.toml:2:8: `seed` must be an integer, found a string");
//! ```

use std::fmt;
use std::ops::Range;

pub use toml::Spanned;
pub use toml::de::{DeArray, DeTable, DeValue};

/// A byte range in the source text.
pub type Span = Range<usize>;

/// One problem in a file, located at a line and column (1-based; see [`Diagnostic::col`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// The file's name as given to [`Doc::parse`].
    pub file: String,
    /// 1-based line; 0 when no place in the file is known (it cannot be read, or the problem is
    /// the file's as a whole), shown as the file alone.
    pub line: usize,
    /// 1-based column, in characters; 0 when only the line is known (a script's syntax error:
    /// Luau's compiler gives no column), and then not shown.
    pub col: usize,
    /// What was wrong and what was expected.
    pub message: String,
}

impl Diagnostic {
    /// A problem of a file as a whole, or one whose place in it is not known (line 0).
    pub fn of_file(file: impl Into<String>, message: impl Into<String>) -> Diagnostic {
        Diagnostic { file: file.into(), line: 0, col: 0, message: message.into() }
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.line, self.col) {
            (0, _) => write!(f, "{}: {}", self.file, self.message),
            (line, 0) => write!(f, "{}:{line}: {}", self.file, self.message),
            (line, col) => write!(f, "{}:{line}:{col}: {}", self.file, self.message),
        }
    }
}

/// Every problem found in one or more files, in the order they were found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Report {
    /// The problems; never empty when returned as an error.
    pub diagnostics: Vec<Diagnostic>,
}

impl Report {
    /// Adds the problems of another report.
    pub fn extend(&mut self, other: Report) {
        self.diagnostics.extend(other.diagnostics);
    }

    /// True when nothing was wrong.
    pub fn is_empty(&self) -> bool {
        self.diagnostics.is_empty()
    }
}

impl fmt::Display for Report {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.diagnostics.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Report {}

/// A parsed document and the problems found in it so far.
pub struct Doc<'s> {
    name: String,
    text: &'s str,
    root: Spanned<DeTable<'s>>,
    diagnostics: Vec<Diagnostic>,
    /// Where the first syntax error is: past it, recovery may have put keys in the wrong table.
    broken_from: Option<usize>,
    /// Problems dropped past a syntax error (see [`Doc::error`]).
    dropped: usize,
    /// The byte offset where each line starts: a long file with many problems locates each in
    /// a binary search, not a scan from the top.
    line_starts: Vec<usize>,
    /// The last offset located and its column: a long line with many values (a draw order of
    /// a million tiles) locates each from the one before, not from the line's start.
    last_located: std::cell::Cell<(usize, usize)>,
}

/// The table header (`[base]`) on the line of byte `at`, if that line is one.
fn header_of(text: &str, at: usize) -> Option<&str> {
    let start = text[..at.min(text.len())].rfind('\n').map_or(0, |i| i + 1);
    let line = text[start..].lines().next().unwrap_or("");
    let header = line.split('#').next().unwrap_or("").trim();
    (header.starts_with('[') && header.ends_with(']')).then_some(header)
}

/// A syntax error as told: the parser's words, and what was most likely left open when the
/// error stands at a line's start (the line above did not close its array or table). `before`
/// and `after` are the error's line up to it and from it.
fn syntax_message(parser: &str, before: &str, after: &str) -> String {
    // `seed =` with nothing after it: the parser asks for a quoted string, which misleads.
    let rest = after.split('#').next().unwrap_or("").trim();
    if let Some(key) = before.trim_end().strip_suffix('=').map(str::trim)
        && rest.is_empty()
        && !key.is_empty()
    {
        return format!(
            "TOML syntax: `{key} =` has no value; write one after the `=` (a number, a \"quoted string\", true or \
             false, a [list])"
        );
    }
    let at_line_start = before.trim().is_empty();
    let above = if at_line_start { " above" } else { "" };
    let hint = if parser.contains("missing comma between array elements") && at_line_start {
        ", or a `]` to close the array above".to_string()
    } else if parser.contains("invalid inline table element") {
        format!(", or a `}}` to close the inline table{above}")
    } else {
        String::new()
    };
    format!("TOML syntax: {parser}{hint}")
}

/// Lines with syntax errors (or keys given twice) told one by one; past them, the rest are
/// counted.
const MAX_SYNTAX_LINES: usize = 20;

impl<'s> Doc<'s> {
    /// Parses `text`; syntax errors are recorded, and what could be recovered is kept.
    pub fn parse(name: impl Into<String>, text: &'s str) -> Self {
        let (root, errors) = DeTable::parse_recoverable(text);
        let line_starts = std::iter::once(0).chain(text.match_indices('\n').map(|(i, _)| i + 1)).collect();
        let mut doc = Doc {
            name: name.into(),
            text,
            root,
            diagnostics: Vec::new(),
            broken_from: None,
            dropped: 0,
            line_starts,
            last_located: std::cell::Cell::new((0, 1)),
        };
        // Another kind of file given for a TOML one (a replay for a config) would be told line
        // by line: JSON is named as such, and past a screenful of lines the rest are counted.
        let content = text.trim_start_matches(|c: char| c.is_whitespace() || c == '\u{feff}');
        if content.starts_with('{') && !errors.is_empty() {
            let at = text.len() - content.len();
            doc.broken_from = Some(at);
            doc.record(at..at + 1, "this is JSON (it starts with `{`), not TOML".into());
            return doc;
        }
        // A syntax error throws the parser off for the rest of its line: what else it finds
        // there (an `=` in an array, a string not quoted) is that error again.
        let (mut told, mut broken_lines, mut untold) = (Vec::new(), Vec::new(), std::collections::BTreeSet::new());
        // A table header given again, by its lines (header, next header): its keys are read
        // into the first table, each a key given twice, which the file does not show.
        let repeated_tables: Vec<(usize, usize)> = errors
            .iter()
            .filter(|e| e.message() == "duplicate key")
            .filter_map(|e| e.span())
            .filter(|span| header_of(text, span.start).is_some())
            .map(|span| {
                let from = doc.line_col(span.start).0;
                let next = text.lines().enumerate().skip(from).find(|(_, l)| l.trim_start().starts_with('['));
                (from, next.map_or(usize::MAX, |(i, _)| i + 1))
            })
            .collect();
        for e in errors {
            let span = e.span().unwrap_or(0..0);
            let line = doc.line_col(span.start).0;
            let duplicate = e.message() == "duplicate key";
            if !duplicate {
                doc.broken_from = Some(doc.broken_from.map_or(span.start, |b| b.min(span.start)));
            }
            if !told.contains(&line) && told.len() == MAX_SYNTAX_LINES {
                untold.insert(line);
                continue;
            }
            if duplicate && repeated_tables.iter().any(|(from, to)| (*from + 1..*to).contains(&line)) {
                // A key of a table given twice: the table's problem, told at its header.
                continue;
            }
            if duplicate && let Some(header) = header_of(text, span.start) {
                doc.record(span, format!("table `{header}` is given twice; TOML takes each table once"));
            } else if duplicate {
                // The parser keeps the first and every key stays in its own table: what follows
                // is read as written, so its own problems are still reported.
                let key = text.get(span.clone()).unwrap_or("").trim_matches(['"', '\'']);
                doc.record(span, format!("`{key}` is given twice in one table; TOML takes each key once"));
            } else if !broken_lines.contains(&line) {
                broken_lines.push(line);
                let at = span.start.min(text.len());
                let line_start = text[..at].rfind('\n').map_or(0, |i| i + 1);
                let before = text.get(line_start..at).unwrap_or("");
                let after = text.get(at..).and_then(|t| t.lines().next()).unwrap_or("");
                doc.record(span, syntax_message(e.message().trim_end(), before, after));
            }
            if !told.contains(&line) {
                told.push(line);
            }
        }
        if !untold.is_empty() {
            let (n, end) = (untold.len(), text.len()..text.len());
            let lines = if n == 1 { "line" } else { "lines" };
            doc.record(end, format!("TOML syntax: problems on {n} more {lines} (is this a TOML file?)"));
        }
        doc
    }

    /// The file name given to [`Doc::parse`].
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The root table and its span (cheap: the tree is borrowed).
    pub fn root(&self) -> Spanned<DeTable<'s>> {
        self.root.clone()
    }

    /// Records a problem at `span`.
    ///
    /// A problem at or past a syntax error is dropped: there, recovery may have cut a list short,
    /// put a key in another table or read a value as another type, and the problem may be its
    /// echo (`players = ["a", "b"` followed by more lines reads on as one list; `seed = 1 2`, as
    /// a string). It shows once the syntax is mended.
    pub fn error(&mut self, span: Span, message: impl Into<String>) {
        // A value that reaches the broken place (an array left open) was read only in part.
        if self.broken_from.is_some_and(|b| span.end >= b) {
            self.dropped += 1;
        } else {
            self.record(span, message.into());
        }
    }

    fn record(&mut self, span: Span, message: String) {
        let (line, col) = self.line_col(span.start);
        let message = escape_controls(message);
        self.diagnostics.push(Diagnostic { file: self.name.clone(), line, col, message });
    }

    /// 1-based line and column of a byte offset in this document.
    pub fn line_col(&self, offset: usize) -> (usize, usize) {
        let offset = floor_char_boundary(self.text, offset.min(self.text.len()));
        let line = self.line_starts.partition_point(|&start| start <= offset);
        let start = self.line_starts[line - 1];
        let (last, last_col) = self.last_located.get();
        let col = if (start..=offset).contains(&last) {
            last_col + self.text[last..offset].chars().count()
        } else {
            self.text[start..offset].chars().count() + 1
        };
        self.last_located.set((offset, col));
        (line, col)
    }

    /// How many problems have been found so far, those dropped past a syntax error included.
    pub fn error_count(&self) -> usize {
        self.diagnostics.len() + self.dropped
    }

    /// True when a problem has been recorded.
    pub fn has_errors(&self) -> bool {
        !self.diagnostics.is_empty()
    }

    /// Starts reading a table; `what` names it in messages ("the tileset", "tile `A`").
    pub fn table<'t, 'v>(&self, table: &'t Spanned<DeTable<'v>>, what: &str) -> Table<'t, 'v> {
        Table { map: table.get_ref(), span: table.span(), what: what.to_string(), asked: Vec::new() }
    }

    /// Starts reading a value that must be a table; anything else is reported.
    pub fn table_in<'t, 'v>(&mut self, value: &'t Spanned<DeValue<'v>>, what: &str) -> Option<Table<'t, 'v>> {
        match value.get_ref() {
            DeValue::Table(map) => Some(Table { map, span: value.span(), what: what.to_string(), asked: Vec::new() }),
            other => {
                self.error(value.span(), format!("{what} must be a table, found {}", type_name(other)));
                None
            }
        }
    }

    /// Ends reading: all problems in file order, or nothing.
    pub fn finish(mut self) -> Result<(), Report> {
        if self.diagnostics.is_empty() {
            Ok(())
        } else {
            self.diagnostics.sort_by_key(|d| (d.line, d.col));
            Err(Report { diagnostics: self.diagnostics })
        }
    }

    /// The problems so far, leaving the document usable.
    pub fn take_report(&mut self) -> Report {
        Report { diagnostics: std::mem::take(&mut self.diagnostics) }
    }
}

/// A problem is one line: a name it quotes from the file (`"a\nb" = 1`, a NUL) is shown escaped,
/// as the file spells it, not as a break or an invisible byte.
fn escape_controls(message: String) -> String {
    if !message.chars().any(char::is_control) {
        return message;
    }
    message.chars().map(|c| if c.is_control() { c.escape_default().to_string() } else { c.to_string() }).collect()
}

/// The largest index at most `i` (which must be at most `text.len()`) where a character of
/// `text` starts: where it may be cut.
pub fn floor_char_boundary(text: &str, mut i: usize) -> usize {
    while !text.is_char_boundary(i) {
        i -= 1;
    }
    i
}

/// A value read from the file together with where it was written.
#[derive(Clone, Debug, PartialEq)]
pub struct At<T> {
    /// The value.
    pub value: T,
    /// Where it stands in the file.
    pub span: Span,
}

/// Reads the keys of one table and remembers which were asked for.
pub struct Table<'t, 's> {
    map: &'t DeTable<'s>,
    span: Span,
    what: String,
    asked: Vec<&'static str>,
}

/// Describes a value's type for messages: "a string", "an integer" …
pub fn type_name(v: &DeValue<'_>) -> &'static str {
    match v {
        DeValue::String(_) => "a string",
        DeValue::Integer(_) => "an integer",
        DeValue::Float(_) => "a float",
        DeValue::Boolean(_) => "a boolean",
        DeValue::Datetime(_) => "a date",
        DeValue::Array(_) => "an array",
        DeValue::Table(_) => "a table",
    }
}

/// Converts a TOML integer; `None` when it does not fit an `i64`.
pub fn integer(v: &DeValue<'_>) -> Option<i64> {
    match v {
        DeValue::Integer(i) => {
            let digits = i.as_str().replace('_', "");
            let (neg, body) = match digits.strip_prefix('-') {
                Some(rest) => (true, rest.to_string()),
                None => (false, digits.trim_start_matches('+').to_string()),
            };
            // The one prefix of its radix (`0x0b` is eleven, not a binary prefix after a hex one).
            let prefix = match i.radix() {
                16 => "0x",
                8 => "0o",
                2 => "0b",
                _ => "",
            };
            let body = body.strip_prefix(prefix).unwrap_or(&body);
            // The sign goes in with the digits: -2⁶³ has no positive counterpart.
            let signed = if neg { format!("-{body}") } else { body.to_string() };
            i64::from_str_radix(&signed, i.radix()).ok()
        }
        _ => None,
    }
}

/// What is wrong with a TOML integer that [`integer`] refused: it does not fit an `i64`.
pub fn out_of_range(v: &DeValue<'_>) -> String {
    let negative = matches!(v, DeValue::Integer(i) if i.as_str().starts_with('-'));
    if negative { format!("too small: at least {}", i64::MIN) } else { format!("too large: at most {}", i64::MAX) }
}

impl<'t, 's> Table<'t, 's> {
    /// Where the table stands in the file.
    pub fn span(&self) -> Span {
        self.span.clone()
    }

    /// What the table is, for messages.
    pub fn what(&self) -> &str {
        &self.what
    }

    /// The raw value under `key`, if present; marks the key as known.
    pub fn get(&mut self, key: &'static str) -> Option<&'t Spanned<DeValue<'s>>> {
        if !self.asked.contains(&key) {
            self.asked.push(key);
        }
        self.map.get(key)
    }

    /// Marks keys as known without reading them (read by someone else).
    pub fn allow(&mut self, keys: &[&'static str]) {
        for k in keys {
            if !self.asked.contains(k) {
                self.asked.push(k);
            }
        }
    }

    fn wrong_type(&self, doc: &mut Doc<'_>, key: &str, v: &Spanned<DeValue<'_>>, expected: &str) {
        doc.error(v.span(), format!("`{key}` must be {expected}, found {}", type_name(v.get_ref())));
    }

    fn missing(&self, doc: &mut Doc<'_>, key: &str, expected: &str) {
        doc.error(self.span.clone(), format!("{} needs `{key}` ({expected})", self.what));
    }

    /// An optional string.
    pub fn str(&mut self, doc: &mut Doc<'_>, key: &'static str) -> Option<At<&'t str>> {
        let v = self.get(key)?;
        match v.get_ref() {
            DeValue::String(s) => Some(At { value: s.as_ref(), span: v.span() }),
            _ => {
                self.wrong_type(doc, key, v, "a string");
                None
            }
        }
    }

    /// A required string.
    pub fn req_str(&mut self, doc: &mut Doc<'_>, key: &'static str) -> Option<At<&'t str>> {
        if self.map.get(key).is_none() {
            self.get(key);
            self.missing(doc, key, "a string");
            return None;
        }
        self.str(doc, key)
    }

    /// An optional integer.
    pub fn int(&mut self, doc: &mut Doc<'_>, key: &'static str) -> Option<At<i64>> {
        let v = self.get(key)?;
        match integer(v.get_ref()) {
            Some(n) => Some(At { value: n, span: v.span() }),
            None if v.get_ref().is_integer() => {
                doc.error(v.span(), format!("`{key}` is {}", out_of_range(v.get_ref())));
                None
            }
            None => {
                self.wrong_type(doc, key, v, "an integer");
                None
            }
        }
    }

    /// A required integer.
    pub fn req_int(&mut self, doc: &mut Doc<'_>, key: &'static str) -> Option<At<i64>> {
        if self.map.get(key).is_none() {
            self.get(key);
            self.missing(doc, key, "an integer");
            return None;
        }
        self.int(doc, key)
    }

    /// An optional boolean.
    pub fn bool(&mut self, doc: &mut Doc<'_>, key: &'static str) -> Option<At<bool>> {
        let v = self.get(key)?;
        match v.get_ref() {
            DeValue::Boolean(b) => Some(At { value: *b, span: v.span() }),
            _ => {
                self.wrong_type(doc, key, v, "a boolean (true or false)");
                None
            }
        }
    }

    /// An optional array.
    pub fn array(&mut self, doc: &mut Doc<'_>, key: &'static str) -> Option<At<&'t DeArray<'s>>> {
        let v = self.get(key)?;
        match v.get_ref() {
            DeValue::Array(a) => Some(At { value: a, span: v.span() }),
            _ => {
                self.wrong_type(doc, key, v, "an array");
                None
            }
        }
    }

    /// An optional array of strings; wrong elements are reported and skipped.
    pub fn str_list(&mut self, doc: &mut Doc<'_>, key: &'static str) -> Option<Vec<At<&'t str>>> {
        let arr = self.array(doc, key)?;
        Some(str_items(doc, key, arr.value))
    }

    /// An optional table.
    pub fn table(&mut self, doc: &mut Doc<'_>, key: &'static str) -> Option<&'t Spanned<DeValue<'s>>> {
        let v = self.get(key)?;
        if v.get_ref().is_table() {
            Some(v)
        } else {
            self.wrong_type(doc, key, v, "a table");
            None
        }
    }

    /// Reports keys that were never asked for, naming the expected ones.
    pub fn finish(self, doc: &mut Doc<'_>) {
        // A key past a syntax error may only look unknown because the error moved it (`[base`
        // without its `]` leaves `edition` at the top): `Doc::error` drops it.
        for (k, _) in self.map.iter() {
            if !self.asked.contains(&k.get_ref().as_ref()) {
                let mut expected = self.asked.clone();
                expected.sort_unstable();
                let expected = if expected.is_empty() {
                    "it takes none".to_string()
                } else {
                    format!("{}expected one of: {}", did_you_mean(k.get_ref(), &expected), expected.join(", "))
                };
                doc.error(k.span(), format!("unknown key `{}` in {}; {expected}", k.get_ref(), self.what));
            }
        }
    }

    /// The keys of the table in file order, with their values (for tables keyed by user ids).
    pub fn entries(&self) -> impl Iterator<Item = (At<&'t str>, &'t Spanned<DeValue<'s>>)> {
        self.map.iter().map(|(k, v)| (At { value: k.get_ref().as_ref(), span: k.span() }, v))
    }
}

/// "did you mean `x`? " when one of `known` is a likely slip of `word` (a letter wrong, missing,
/// extra or two swapped; any case), else nothing: put before the list of what was expected.
pub fn did_you_mean(word: &str, known: &[&str]) -> String {
    meant(&near(word, known))
}

/// `text` as a message quotes it: whole, or its first `max` bytes (at a character's boundary)
/// and `…` when it is longer. A name a script passes may be a megabyte long; its start names it
/// well enough.
pub fn clipped(text: &str, max: usize) -> std::borrow::Cow<'_, str> {
    if text.len() <= max {
        return std::borrow::Cow::Borrowed(text);
    }
    let cut = floor_char_boundary(text, max.saturating_sub(1));
    std::borrow::Cow::Owned(format!("{}…", &text[..cut]))
}

/// A quoted TOML string on one line: a basic string, with quotes, backslashes and control
/// characters escaped (the toml crate writes a string holding a newline over several lines).
pub fn string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_string(s, &mut out);
    out
}

/// Appends `s` as [`string`] writes it.
pub fn push_string(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A key as TOML writes it: bare where it may be (`V`, `A-cowshed`), else quoted (`"base:V"`).
pub fn key(key: &str) -> String {
    let bare = !key.is_empty() && key.chars().all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    if bare { key.to_string() } else { string(key) }
}

/// "did you mean `a` or `b`? " for names found by [`near`], else nothing.
pub fn meant(names: &[&str]) -> String {
    if names.is_empty() {
        return String::new();
    }
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    format!("did you mean {}? ", quoted.join(" or "))
}

/// The names of `known` that `word` is a likely slip of, the nearest only: none when none is
/// near, or when more than three are as near (no hint then). Failing a slip, a name the word
/// begins like, word for word (`dependencies` for `depends`).
pub fn near<'k>(word: &str, known: &[&'k str]) -> Vec<&'k str> {
    // A word far longer than every name is none of them: and measuring its distance to each
    // would take as long as it is (a script may pass a string of a million letters).
    let longest = known.iter().map(|k| k.len()).max().unwrap_or(0);
    if word.len() > 2 * longest + 8 {
        return Vec::new();
    }
    let slipped = slipped(word, known);
    if slipped.is_empty() { same_stem(word, known) } else { slipped }
}

/// The names of `known` nearest `word` by [`slips`], as [`near`] takes them.
fn slipped<'k>(word: &str, known: &[&'k str]) -> Vec<&'k str> {
    let word = word.to_lowercase();
    // Longer names take more slips before a suggestion stops being likely.
    let allowed = match word.chars().count() {
        // A name of a letter or two is another name after one slip: only its case may differ.
        0..=2 => 0,
        3..=4 => 1,
        5..=8 => 2,
        _ => 3,
    };
    if allowed == 0 {
        // A key pressed twice is a slip even in a short name (`UU` for the tile `U`).
        let doubled: Vec<&str> = known.iter().filter(|k| typed_twice(&word, &k.to_lowercase())).copied().collect();
        if (1..=3).contains(&doubled.len()) {
            return doubled;
        }
    }
    let distances: Vec<(usize, &str)> =
        known.iter().map(|k| (slips(&word, &k.to_lowercase()), *k)).filter(|(d, _)| *d <= allowed).collect();
    let Some(best) = distances.iter().map(|(d, _)| *d).min() else { return Vec::new() };
    let mut nearest: Vec<&str> = distances.iter().filter(|(d, _)| *d == best).map(|(_, k)| *k).collect();
    nearest.dedup();
    // Many names as near are no hint: the list that follows says as much.
    if nearest.len() > 3 {
        return Vec::new();
    }
    nearest
}

/// Whether `word` is `name` with one of its characters typed twice.
fn typed_twice(word: &str, name: &str) -> bool {
    let w: Vec<char> = word.chars().collect();
    w.len() == name.chars().count() + 1
        && (0..w.len() - 1).any(|i| w[i] == w[i + 1] && w[..i].iter().chain(&w[i + 1..]).copied().eq(name.chars()))
}

/// The one name of `known` that shares with `word` a beginning of six characters or more, and
/// most of the shorter of the two: another form of the same word (`dependencies`, `depends`).
fn same_stem<'k>(word: &str, known: &[&'k str]) -> Vec<&'k str> {
    let word = word.to_lowercase();
    let shared = |k: &str| word.chars().zip(k.to_lowercase().chars()).take_while(|(a, b)| a == b).count();
    let stems: Vec<&str> = known
        .iter()
        .filter(|k| {
            let (n, shorter) = (shared(k), word.chars().count().min(k.chars().count()));
            n >= 6 && 4 * n >= 3 * shorter
        })
        .copied()
        .collect();
    if stems.len() == 1 { stems } else { Vec::new() }
}

/// The edits that turn `a` into `b`: a character changed, added or dropped, or two side by side
/// swapped (optimal string alignment distance).
fn slips(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // Three rows: the one before the previous is needed for swaps.
    let mut before: Vec<usize> = Vec::new();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let change = usize::from(a[i - 1] != b[j - 1]);
            row[j] = (prev[j] + 1).min(row[j - 1] + 1).min(prev[j - 1] + change);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                row[j] = row[j].min(before[j - 2] + 1);
            }
        }
        before = std::mem::replace(&mut prev, row);
    }
    prev[b.len()]
}

/// The strings of an array; other elements are reported.
pub fn str_items<'t, 's>(doc: &mut Doc<'_>, key: &str, arr: &'t DeArray<'s>) -> Vec<At<&'t str>> {
    let mut out = Vec::new();
    for item in arr.iter() {
        match item.get_ref() {
            DeValue::String(s) => out.push(At { value: s.as_ref(), span: item.span() }),
            other => doc.error(item.span(), format!("`{key}` must hold strings, found {}", type_name(other))),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_long_text_is_quoted_by_its_start() {
        assert_eq!(clipped("short", 8), "short");
        assert_eq!(clipped("exactly8", 8), "exactly8");
        assert_eq!(clipped("nine char", 8), "nine ch…");
        // Cut at a character's boundary, never inside one.
        assert_eq!(clipped("ééééé", 4), "é…");
    }

    #[test]
    fn a_likely_slip_is_suggested_and_an_unlikely_one_is_not() {
        let keys = ["player", "place", "figure", "offer", "expect"];
        assert_eq!(did_you_mean("plaec", &keys), "did you mean `place`? ");
        assert_eq!(did_you_mean("Figur", &keys), "did you mean `figure`? ");
        assert_eq!(did_you_mean("expects", &keys), "did you mean `expect`? ");
        assert_eq!(did_you_mean("colour", &keys), "");
        assert_eq!(did_you_mean("x", &keys), "");
        assert_eq!(did_you_mean("ofer", &keys), "did you mean `offer`? ");
        assert_eq!(did_you_mean("C4", &["C1", "C2"]), "");
        // A key pressed twice, even in a name of a letter.
        assert_eq!(did_you_mean("UU", &["U", "V", "U-garden"]), "did you mean `U`? ");
        assert_eq!(did_you_mean("C33", &["C1", "C2", "C3"]), "did you mean `C3`? ");
        assert_eq!(did_you_mean("UV", &["U", "V"]), "", "not a key pressed twice");
        // Equally near names are all given.
        assert_eq!(did_you_mean("cat", &["bat", "hat", "cattle"]), "did you mean `bat` or `hat`? ");
        assert_eq!(did_you_mean("cat", &["bat", "hat", "mat", "rat"]), "", "too many to be a hint");
        assert_eq!(did_you_mean("c3", &["C1", "C2", "C3"]), "did you mean `C3`? ");
        // Another form of the word.
        let manifest = ["depends", "optional_depends", "conflicts", "editions"];
        assert_eq!(did_you_mean("dependencies", &manifest), "did you mean `depends`? ");
        assert_eq!(did_you_mean("optional_dependencies", &manifest), "did you mean `optional_depends`? ");
        assert_eq!(did_you_mean("conflicting", &manifest), "did you mean `conflicts`? ");
        assert_eq!(did_you_mean("edit", &manifest), "", "too short a beginning");
    }

    #[test]
    fn slips_count_swaps_as_one() {
        assert_eq!(slips("abcd", "abdc"), 1);
        assert_eq!(slips("", "abc"), 3);
        assert_eq!(slips("kitten", "sitting"), 3);
        assert_eq!(slips("same", "same"), 0);
    }

    #[test]
    fn line_and_column_are_one_based() {
        let at = |text: &str, offset| Doc::parse("t.toml", text).line_col(offset);
        assert_eq!(at("ab\ncd", 0), (1, 1));
        assert_eq!(at("ab\ncd", 2), (1, 3), "the line's end");
        assert_eq!(at("ab\ncd", 3), (2, 1));
        assert_eq!(at("ab\ncd", 4), (2, 2));
        assert_eq!(at("ab\ncd", 99), (2, 3), "past the end: the end");
        assert_eq!(at("é\nx", 3), (2, 1));
        assert_eq!(at("aé=", 2), (1, 2), "inside a character: at it");
    }

    #[test]
    fn control_characters_in_a_problem_are_shown_escaped() {
        let mut doc = Doc::parse("t.toml", "x = 1\n");
        doc.error(0..1, "no option `a\nb\u{0}`");
        assert_eq!(doc.finish().unwrap_err().to_string(), "t.toml:1:1: no option `a\\nb\\u{0}`");
    }

    #[test]
    fn locations_asked_in_any_order_agree_with_a_scan_from_the_line_start() {
        let text = "a = [\"é\", \"b\", \"ü\"]\nc = 1\n  d = \"ß\"\n";
        let doc = Doc::parse("t.toml", text);
        let fresh = |offset| Doc::parse("t.toml", text).line_col(offset);
        let offsets: Vec<usize> = (0..=text.len()).chain((0..=text.len()).rev()).chain([5, 30, 2, 7, 7, 0]).collect();
        for offset in offsets {
            assert_eq!(doc.line_col(offset), fresh(offset), "offset {offset}");
        }
    }

    #[test]
    fn a_syntax_error_is_told_once_for_its_line() {
        // An array left open: the parser then stumbles over `seed = 3` three more times.
        let report = Doc::parse("t.toml", "players = [\"a\", \"b\"\nseed = 3\n").finish().unwrap_err();
        assert_eq!(
            report.to_string(),
            "t.toml:2:1: TOML syntax: missing comma between array elements, expected `,`, or a `]` to close the array above"
        );
        // Inside a line, a missing comma is only that.
        let report = Doc::parse("t.toml", "players = [\"a\" \"b\"]\n").finish().unwrap_err();
        assert_eq!(report.to_string(), "t.toml:1:16: TOML syntax: missing comma between array elements, expected `,`");
        // So is an inline table left open.
        let report = Doc::parse("t.toml", "e = [\n  { id = \"a\" \n]\n").finish().unwrap_err();
        assert_eq!(
            report.to_string(),
            "t.toml:3:1: TOML syntax: invalid inline table element, expected `,`, or a `}` to close the inline table above"
        );
    }

    #[test]
    fn another_kind_of_file_is_not_told_line_by_line() {
        let report =
            Doc::parse("game.json", "{\n  \"format\": \"meeple-replay\",\n  \"seed\": 3\n}\n").finish().unwrap_err();
        assert_eq!(report.to_string(), "game.json:1:1: this is JSON (it starts with `{`), not TOML");
        let prose: String = (1..=30).map(|i| format!("line {i} of some prose\n")).collect();
        let report = Doc::parse("README.md", &prose).finish().unwrap_err();
        assert_eq!(report.diagnostics.len(), 21, "{report}");
        assert_eq!(report.diagnostics[19].line, 20);
        assert_eq!(report.diagnostics[20].message, "TOML syntax: problems on 10 more lines (is this a TOML file?)");
        // Lines, not errors: one more line with several errors on it.
        let crowded: String = (1..=21).map(|i| format!("a{i} = {{b = 1 c = 2 d = 3}}\n")).collect();
        let report = Doc::parse("t.toml", &crowded).finish().unwrap_err();
        assert_eq!(report.diagnostics[20].message, "TOML syntax: problems on 1 more line (is this a TOML file?)");
        // Keys given twice are counted with them.
        let twice: String = (1..=30).map(|_| "x = 1\n").collect();
        let report = Doc::parse("t.toml", &twice).finish().unwrap_err();
        assert_eq!(report.diagnostics.len(), 21, "{report}");
        assert_eq!(report.diagnostics[20].message, "TOML syntax: problems on 9 more lines (is this a TOML file?)");
        // JSON after a byte-order mark is JSON too.
        let report = Doc::parse("r.json", "\u{feff}{\"a\": 1}").finish().unwrap_err();
        assert_eq!(report.to_string(), "r.json:1:2: this is JSON (it starts with `{`), not TOML");
    }

    #[test]
    fn past_a_syntax_error_only_syntax_is_reported() {
        // The unclosed list reads on over the next lines: `seed` would look like a bad name.
        let mut doc = Doc::parse("t.toml", "players = [\"a\", \"b\"\nseed = true\nyyy = 1\n");
        let root = doc.root();
        let mut t = doc.table(&root, "the file");
        let _ = t.str_list(&mut doc, "players");
        t.finish(&mut doc);
        let report = doc.finish().unwrap_err();
        assert!(report.diagnostics.iter().all(|d| d.message.starts_with("TOML syntax")), "{report}");
    }

    #[test]
    fn a_value_that_runs_into_a_syntax_error_is_not_judged() {
        // The list was cut short by the error: "one player" would be a problem of its own.
        let mut doc = Doc::parse("t.toml", "seed = true\nplayers = [\"a\"");
        let root = doc.root();
        let mut t = doc.table(&root, "the file");
        let seed = t.get("seed").unwrap().span();
        let players = t.get("players").unwrap().span();
        doc.error(seed, "a seed is a number");
        doc.error(players, "a game needs 2 to 6 players, not 1");
        let report = doc.finish().unwrap_err();
        let messages: Vec<&str> = report.diagnostics.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages, ["a seed is a number", "TOML syntax: unclosed array, expected `]`"]);
    }

    #[test]
    fn a_table_given_twice_is_one_problem_at_its_header() {
        let text = "seed = 1\n[base]\nedition = \"C3\"\n[base] # again\nedition = \"C2\"\n[x]\ny = 1\ny = 2\n";
        let doc = Doc::parse("t.toml", text);
        let report = doc.finish().unwrap_err().to_string();
        assert_eq!(
            report,
            "t.toml:4:2: table `[base]` is given twice; TOML takes each table once\n\
             t.toml:8:1: `y` is given twice in one table; TOML takes each key once"
        );
    }

    #[test]
    fn a_key_given_twice_hides_nothing_after_it() {
        let mut doc = Doc::parse("t.toml", "seed = 1\nseed = 2\nyyy = 1\n[base]\n\"foo\" = 1\n\"foo\" = 2\n");
        let root = doc.root();
        let mut t = doc.table(&root, "the file");
        assert_eq!(t.int(&mut doc, "seed").map(|s| s.value), Some(1), "the first stays");
        let base = t.get("base").unwrap();
        let base = doc.table_in(base, "[base]").unwrap();
        base.finish(&mut doc);
        t.finish(&mut doc);
        let report = doc.finish().unwrap_err().to_string();
        assert_eq!(
            report,
            "t.toml:2:1: `seed` is given twice in one table; TOML takes each key once\n\
             t.toml:3:1: unknown key `yyy` in the file; expected one of: base, seed\n\
             t.toml:5:1: unknown key `foo` in [base]; it takes none\n\
             t.toml:6:1: `foo` is given twice in one table; TOML takes each key once"
        );
    }

    #[test]
    fn unknown_keys_and_wrong_types_are_all_reported() {
        let mut doc = Doc::parse("t.toml", "a = 1\nb = true\nc = 3\n");
        let root = doc.root();
        let mut t = doc.table(&root, "the file");
        assert!(t.str(&mut doc, "a").is_none());
        t.req_int(&mut doc, "missing");
        t.finish(&mut doc);
        let report = doc.finish().unwrap_err();
        let lines: Vec<String> = report.diagnostics.iter().map(|d| d.to_string()).collect();
        assert_eq!(
            lines,
            [
                "t.toml:1:1: the file needs `missing` (an integer)",
                "t.toml:1:5: `a` must be a string, found an integer",
                "t.toml:2:1: unknown key `b` in the file; expected one of: a, missing",
                "t.toml:3:1: unknown key `c` in the file; expected one of: a, missing",
            ]
        );
    }

    #[test]
    fn syntax_errors_are_located() {
        let doc = Doc::parse("bad.toml", "x = \n");
        let report = doc.finish().unwrap_err();
        assert_eq!(report.diagnostics[0].line, 1);
        assert!(report.diagnostics[0].message.starts_with("TOML syntax"));
    }

    #[test]
    fn a_key_without_a_value_is_told_so() {
        for text in ["seed = \nplayers = 2\n", "seed =   # the seed\n", "[base]\nedition =\n"] {
            let report = Doc::parse("t.toml", text).finish().unwrap_err();
            let key = if text.contains("edition") { "edition" } else { "seed" };
            let said = &report.diagnostics[0].message;
            assert!(
                said.starts_with(&format!("TOML syntax: `{key} =` has no value; write one after the `=`")),
                "{said}"
            );
        }
        // A value the parser cannot read is still told in its words.
        let report = Doc::parse("t.toml", "seed = abc\n").finish().unwrap_err();
        assert!(!report.diagnostics[0].message.contains("has no value"), "{report}");
    }

    #[test]
    fn integers_in_any_radix() {
        let text = "a = 0x10\nb = -1_000\nc = 0x0b\nd = 0x0b03\ne = 0o17\nf = 0b101\ng = -9223372036854775808\n";
        let doc = Doc::parse("n.toml", text);
        let root = doc.root();
        let get = |k: &str| integer(root.get_ref().get(k).unwrap().get_ref());
        assert_eq!(get("a"), Some(16));
        assert_eq!(get("b"), Some(-1000));
        assert_eq!(get("c"), Some(11), "a hex 0b is digits, not a prefix");
        assert_eq!(get("d"), Some(0x0b03));
        assert_eq!(get("e"), Some(15));
        assert_eq!(get("f"), Some(5));
        assert_eq!(get("g"), Some(i64::MIN));
    }
}
