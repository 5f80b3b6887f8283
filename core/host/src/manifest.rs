//! `expansion.toml`, schema v1 (`docs/manifest.md`): what an expansion is, which editions it
//! has and the tileset of each, its figures, tokens, score categories and typed options, and
//! where its code is (a Luau script or a native library).
//!
//! Everything declarative lives here so that the core checks it natively (figure strength and
//! placement rules, token supplies) and scripts are called only for real rules.

use meeple_core::Value;
use meeple_core::figures::{FigureKind, Placement, Stays, kinds};
use meeple_core::rules::Noun;
use meeple_core::tileset::SegmentKind;
use meeple_toml::{At, DeValue, Diagnostic, Doc, Report, Span, Spanned, Table, integer};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The manifest schema / hook API version this engine speaks.
pub const API_VERSION: i64 = 1;

/// Where an expansion's code is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Entry {
    /// Declarations only (the base game; tile-only expansions).
    None,
    /// A Luau script, relative to the manifest's folder.
    Script(PathBuf),
    /// A native library, by name (`libNAME.so`, `NAME.dll`, `libNAME.dylib`).
    Native(String),
    /// Rust code compiled into the program that loads the expansion, by name.
    Builtin(String),
}

/// One edition of an expansion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Edition {
    /// Its name, e.g. `C3`.
    pub name: String,
    /// Its tileset file, if it adds tiles.
    pub tileset: Option<PathBuf>,
    /// The edition inside the tileset file (default: the same name).
    pub tileset_edition: String,
    /// Expansions this edition brings along (added to a game that does not choose them).
    pub with: Vec<String>,
    /// Tilesets added only when another expansion is played too (`[[editions.X.if_chosen]]`).
    pub if_chosen: Vec<IfChosen>,
    /// The editions of other expansions this edition was made for (`[[editions.X.made_for]]`):
    /// played with another, the game runs, with a warning.
    pub made_for: Vec<MadeFor>,
}

/// The editions of another expansion an edition was made for: The Tollkeepers counts the small
/// illustrations of the base game's C2 and C3 tiles, which C1 tiles do not show.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MadeFor {
    /// The other expansion.
    pub expansion: String,
    /// Its editions (empty: any).
    pub editions: Vec<String>,
    /// Values of its enum options, each with the values it was made for: the Traders & Builders
    /// pig is defined for the base game's current farm rules only.
    pub options: Vec<(String, Vec<String>)>,
    /// What goes otherwise with another edition or value, for the warning.
    pub why: Option<String>,
}

/// A tileset an edition adds only when another expansion is in the game (the C3.1 Traders &
/// Builders river tile joins The River's tiles).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IfChosen {
    /// The other expansion.
    pub expansion: String,
    /// The tileset file.
    pub tileset: PathBuf,
    /// The edition inside it (default: the edition's name).
    pub tileset_edition: String,
}

/// How an expansion changes the draw (`[draw]`): The River is laid and drawn first.
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct DrawDef {
    /// A tile of this expansion's tileset laid first, instead of the base game's start tile.
    pub start: Option<String>,
    /// Tiles with this tag (from any tileset) are drawn before all others…
    pub first: Option<String>,
    /// … those with this tag last among them.
    pub last: Option<String>,
    /// What becomes of the replaced start tile: fixed, or the value of an option.
    pub replaced_start: ReplacedStartDef,
}

/// `replaced_start = "discard"`, `"shuffle-in"`, or `{ option = "name" }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplacedStartDef {
    /// Always this.
    Fixed(meeple_core::rules::ReplacedStart),
    /// The value of this enum option (`discard` or `shuffle-in`).
    Option(String),
}

impl Default for ReplacedStartDef {
    fn default() -> Self {
        ReplacedStartDef::Fixed(meeple_core::rules::ReplacedStart::Discard)
    }
}

/// A typed option.
#[derive(Clone, Debug, PartialEq)]
pub enum OptionType {
    /// `true` / `false`.
    Bool,
    /// An integer in a range.
    Int {
        /// Smallest allowed.
        min: i64,
        /// Largest allowed.
        max: i64,
    },
    /// One of a list of strings.
    Enum(Vec<String>),
}

/// An option an expansion declares.
#[derive(Clone, Debug, PartialEq)]
pub struct OptionDef {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: OptionType,
    /// Its default value.
    pub default: Value,
    /// Defaults of particular editions, over `default` (a rule whose editions differ).
    pub edition_defaults: BTreeMap<String, Value>,
    /// The editions it plays in, when not all: set in another, it changes nothing, which a
    /// game config is warned of.
    pub editions: Option<Vec<String>>,
    /// What it does, for people.
    pub help: String,
}

impl OptionDef {
    /// The default in an edition: its own, or the option's.
    pub fn default_in(&self, edition: &str) -> &Value {
        self.edition_defaults.get(edition).unwrap_or(&self.default)
    }

    /// Checks a value against the option's type; the error says what was expected.
    pub fn check(&self, v: &Value) -> Result<(), String> {
        match (&self.ty, v) {
            (OptionType::Bool, Value::Bool(_)) => Ok(()),
            (OptionType::Int { min, max }, Value::Int(n)) if n >= min && n <= max => Ok(()),
            (OptionType::Enum(values), Value::Str(s)) if values.contains(s) => Ok(()),
            (ty, v) => {
                let not = describe_value(v).map(|v| format!(", not {v}")).unwrap_or_default();
                Err(format!("option `{}` expects {}{not}", self.name, describe_type(ty)))
            }
        }
    }
}

/// A value as the error of an option that does not take it shows it: `40`, `"3"` (a string),
/// `true`, `a list`; nothing for a value that could not be read (an integer too large for any).
pub(crate) fn describe_value(v: &Value) -> Option<String> {
    Some(match v {
        Value::Null => return None,
        Value::Bool(b) => b.to_string(),
        Value::Int(n) => n.to_string(),
        Value::Str(s) => format!("{s:?}"),
        Value::List(_) => "a list".into(),
        Value::Map(_) => "a table".into(),
    })
}

/// An integer option's range in few words, its open ends left out: "1 to 20", "0 or more",
/// "5 or less"; nothing when both ends are open.
pub fn range_words(min: i64, max: i64) -> Option<String> {
    match (min, max) {
        (i64::MIN, i64::MAX) => None,
        (min, i64::MAX) => Some(format!("{min} or more")),
        (i64::MIN, max) => Some(format!("{max} or less")),
        (min, max) => Some(format!("{min} to {max}")),
    }
}

/// "a boolean", "an integer from 1 to 20", "an integer, 0 or more", "one of: a, b".
pub fn describe_type(ty: &OptionType) -> String {
    match ty {
        OptionType::Bool => "a boolean (true or false)".into(),
        OptionType::Int { min, max } => match range_words(*min, *max) {
            None => "an integer".into(),
            Some(range) if *min > i64::MIN && *max < i64::MAX => format!("an integer from {range}"),
            Some(range) => format!("an integer, {range}"),
        },
        OptionType::Enum(values) => {
            format!("one of: {}", values.iter().map(|v| format!("\"{v}\"")).collect::<Vec<_>>().join(", "))
        }
    }
}

/// A figure kind declared by an expansion, possibly only in some editions.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FigureDef {
    /// The kind; its id is already namespaced (`traders-builders:builder`).
    pub kind: FigureKind,
    /// The editions that have it (all when `None`).
    pub editions: Option<Vec<String>>,
}

/// A token supply declared by an expansion.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TokenDef {
    /// Namespaced id (`traders-builders:wine`).
    pub id: String,
    /// What players call it.
    pub name: Noun,
    /// How many exist.
    pub supply: u32,
    /// The editions that have it (all when `None`).
    pub editions: Option<Vec<String>>,
}

/// A validated manifest.
#[derive(Clone, Debug, PartialEq)]
pub struct Manifest {
    /// The manifest file.
    pub path: PathBuf,
    /// The expansion's id.
    pub id: String,
    /// Its name for people.
    pub name: String,
    /// Its version.
    pub version: String,
    /// Expansions it needs.
    pub depends: Vec<String>,
    /// Expansions it works with when present (they load first).
    pub optional_depends: Vec<String>,
    /// Expansions it cannot be played with.
    pub conflicts: Vec<String>,
    /// Its `final_scoring` is part of the base game's end scoring (an edition variant that
    /// scores fields its own way): it runs before every other expansion's, and what it scores
    /// counts in `score_before_final`.
    pub final_scoring_with_base: bool,
    /// Its editions.
    pub editions: Vec<Edition>,
    /// The edition used when a config names none.
    pub default_edition: String,
    /// Its figures.
    pub figures: Vec<FigureDef>,
    /// Its token supplies.
    pub tokens: Vec<TokenDef>,
    /// Extra score categories.
    pub categories: Vec<String>,
    /// Its options in file order.
    pub options: Vec<OptionDef>,
    /// How it changes the draw, if it does.
    pub draw: Option<DrawDef>,
    /// Its code.
    pub entry: Entry,
    /// Where some keys were written (`id`, `script.entry`, `editions.C2.tileset`, …), so that a problem
    /// found after reading, such as a missing file, is reported at the key that names it.
    pub places: Vec<(String, (usize, usize))>,
}

impl Manifest {
    /// The file on disk and the line of a failing hook of this expansion's scripts. A script
    /// names its place by the expansion's id (`chapels/init.luau:38`), which is a path only when
    /// the mod's folder has that name.
    pub fn script_line(&self, e: &meeple_core::HookError) -> Option<(PathBuf, usize)> {
        let (file, line) = e.location.as_deref()?.rsplit_once(':')?;
        let file = file.strip_prefix(&format!("{}/", self.id)).filter(|_| e.expansion == self.id)?;
        let path = self.dir().join(file);
        path.is_file().then_some((path, line.parse().ok()?))
    }

    /// The folder holding the manifest.
    pub fn dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }

    /// An edition by name.
    pub fn edition(&self, name: &str) -> Option<&Edition> {
        self.editions.iter().find(|e| e.name == name)
    }

    /// Every option with its default value in an edition, by name.
    pub fn default_options(&self, edition: &str) -> BTreeMap<String, Value> {
        self.options.iter().map(|o| (o.name.clone(), o.default_in(edition).clone())).collect()
    }

    /// An option by name.
    pub fn option(&self, name: &str) -> Option<&OptionDef> {
        self.options.iter().find(|o| o.name == name)
    }

    /// The namespaced form of one of its ids: `base` keeps ids bare (`meeple`).
    pub fn qualify(&self, local: &str) -> String {
        if self.id == "base" { local.to_string() } else { format!("{}:{local}", self.id) }
    }

    /// Line and column of `key` (a name in [`Manifest::places`]); 1:1 when it was not written.
    pub fn place(&self, key: &str) -> (usize, usize) {
        self.places.iter().find(|(k, _)| k == key).map_or((1, 1), |(_, at)| *at)
    }

    /// A problem with what the manifest says at `key` (a name in [`Manifest::places`]), located
    /// there, or at the file's start when the key was not written.
    pub fn problem_at(&self, key: &str, message: impl Into<String>) -> Diagnostic {
        let (line, col) = self.place(key);
        Diagnostic { file: crate::paths::display_path(&self.path), line, col, message: message.into() }
    }

    /// Reads and validates a manifest; `path` locates it for file names in errors and relative paths.
    pub fn parse(path: &Path, text: &str) -> Result<Manifest, Report> {
        let (m, report) = Manifest::parse_lenient(path, text);
        if report.is_empty() { Ok(m) } else { Err(report) }
    }

    /// Reads a manifest, keeping what could be read when it has problems: `meeple check` goes on
    /// to the tilesets and scripts it names, so that every problem of a mod shows at once.
    pub fn parse_lenient(path: &Path, text: &str) -> (Manifest, Report) {
        let file = crate::paths::display_path(path);
        let mut doc = Doc::parse(&file, text);
        let root = doc.root();
        let mut top = doc.table(&root, "the manifest");
        let mut m = Manifest {
            path: path.to_path_buf(),
            id: String::new(),
            name: String::new(),
            version: String::new(),
            depends: Vec::new(),
            optional_depends: Vec::new(),
            final_scoring_with_base: false,
            conflicts: Vec::new(),
            editions: Vec::new(),
            default_edition: String::new(),
            figures: Vec::new(),
            tokens: Vec::new(),
            categories: Vec::new(),
            options: Vec::new(),
            draw: None,
            entry: Entry::None,
            places: Vec::new(),
        };
        let mut edition_names: Vec<At<&str>> = Vec::new();
        match top.get("expansion") {
            Some(v) => read_header(&mut doc, v, &mut m, &mut edition_names),
            None => doc.error(top.span(), "a manifest needs an [expansion] table (id, name, version, api, editions)"),
        }
        if let Some(v) = top.table(&mut doc, "editions") {
            read_editions(&mut doc, v, &mut m, &edition_names);
        }
        for e in &edition_names {
            if m.edition(e.value).is_none() {
                m.editions.push(Edition {
                    name: e.value.to_string(),
                    tileset: None,
                    tileset_edition: e.value.to_string(),
                    with: Vec::new(),
                    if_chosen: Vec::new(),
                    made_for: Vec::new(),
                });
            }
        }
        if let Some(list) = top.array(&mut doc, "figures") {
            for v in list.value.iter() {
                read_figure(&mut doc, v, &mut m, &edition_names);
            }
        }
        if let Some(list) = top.array(&mut doc, "tokens") {
            for v in list.value.iter() {
                read_token(&mut doc, v, &mut m, &edition_names);
            }
        }
        if let Some(v) = top.table(&mut doc, "options") {
            read_options(&mut doc, v, &mut m, &edition_names);
        }
        if let Some(v) = top.table(&mut doc, "draw") {
            read_draw(&mut doc, v, &mut m);
        }
        let script = top.table(&mut doc, "script");
        let native = top.table(&mut doc, "native");
        let builtin = top.table(&mut doc, "builtin");
        read_entry(&mut doc, [script, native, builtin], &mut m);
        top.finish(&mut doc);
        let report = doc.finish().err().unwrap_or_default();
        (m, report)
    }
}

/// Remembers where a key was written (see [`Manifest::places`]).
fn mark(doc: &Doc<'_>, m: &mut Manifest, key: String, span: &std::ops::Range<usize>) {
    m.places.push((key, doc.line_col(span.start)));
}

/// `1`, `1.0`, `1.0.0`, with an optional pre-release or build suffix (`1.0.0-beta`).
fn is_version(s: &str) -> bool {
    let core = s.split(['-', '+']).next().unwrap_or_default();
    !core.is_empty() && core.split('.').all(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
}

/// True for a string an expansion, tileset or figure may take as its id.
pub(crate) fn is_id(s: &str) -> bool {
    !s.is_empty() && s.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
}

fn read_header<'t>(doc: &mut Doc<'_>, v: &'t Spanned<DeValue<'_>>, m: &mut Manifest, editions: &mut Vec<At<&'t str>>) {
    let Some(mut t) = doc.table_in(v, "[expansion]") else { return };
    if let Some(id) = t.req_str(doc, "id") {
        if !is_id(id.value) {
            doc.error(id.span.clone(), format!("`id = \"{}\"` must use only a-z, 0-9, '-' and '_'", id.value));
        }
        m.id = id.value.to_string();
        mark(doc, m, "id".into(), &id.span);
    }
    m.name = t.req_str(doc, "name").map(|s| s.value.to_string()).unwrap_or_default();
    if let Some(v) = t.req_str(doc, "version") {
        if !is_version(v.value) {
            doc.error(
                v.span.clone(),
                format!("`version = \"{}\"`: expected numbers joined by dots, such as \"1.0.0\"", v.value),
            );
        }
        m.version = v.value.to_string();
    }
    if let Some(api) = t.req_int(doc, "api")
        && api.value != API_VERSION
    {
        doc.error(
            api.span,
            format!(
                "`api = {}`: this meeple speaks manifest/hook API {API_VERSION}; update the expansion or meeple",
                api.value
            ),
        );
    }
    m.depends = relation(doc, &mut t, "depends", m);
    m.optional_depends = relation(doc, &mut t, "optional_depends", m);
    m.conflicts = relation(doc, &mut t, "conflicts", m);
    m.final_scoring_with_base = t.bool(doc, "final_scoring_with_base").is_some_and(|b| b.value);
    let categories = t.str_list(doc, "categories").unwrap_or_default();
    m.categories = distinct_names(doc, &categories, "`categories`");
    // Left empty when `editions` cannot be read: the editions are not known then, and nothing
    // is reported as not listed in them (see [`editions_unknown`]).
    let written = t.get("editions");
    *editions = t.str_list(doc, "editions").unwrap_or_default();
    let empty_list = written.is_some_and(|v| v.get_ref().as_array().is_some_and(|a| a.is_empty()));
    if editions.is_empty() && (written.is_none() || empty_list) {
        editions.push(At { value: "default", span: t.span() });
    }
    for (i, e) in editions.iter().enumerate() {
        if e.value.is_empty() {
            doc.error(e.span.clone(), "`editions` holds an empty name");
        } else if editions[..i].iter().any(|x| x.value == e.value) {
            doc.error(e.span.clone(), format!("edition `{}` is listed twice", e.value));
        }
    }
    m.default_edition = match t.str(doc, "default_edition") {
        Some(d) if editions_unknown(editions) || editions.iter().any(|e| e.value == d.value) => d.value.to_string(),
        Some(d) => {
            doc.error(d.span, format!("`default_edition = \"{}\"` is not one of `editions`", d.value));
            String::new()
        }
        None => editions.first().map_or_else(String::new, |e| e.value.to_string()),
    };
    t.finish(doc);
}

/// True when the manifest's editions are not known (its [expansion] table or its `editions` could
/// not be read): an edition named elsewhere is then not reported as not listed, which it may be.
fn editions_unknown(names: &[At<&str>]) -> bool {
    names.is_empty()
}

/// The non-empty strings of a list, each once; an empty one or a repeat is reported.
fn distinct<'v>(doc: &mut Doc<'_>, list: &[At<&'v str>], what: &str) -> Vec<At<&'v str>> {
    let mut out: Vec<At<&str>> = Vec::new();
    for s in list {
        if s.value.is_empty() {
            doc.error(s.span.clone(), format!("{what} holds an empty name"));
        } else if out.iter().any(|o| o.value == s.value) {
            doc.error(s.span.clone(), format!("{what} names `{}` twice", s.value));
        } else {
            out.push(s.clone());
        }
    }
    out
}

/// The names of [`distinct`], owned.
fn distinct_names(doc: &mut Doc<'_>, list: &[At<&str>], what: &str) -> Vec<String> {
    distinct(doc, list, what).into_iter().map(|s| s.value.to_string()).collect()
}

/// `depends`, `optional_depends` or `conflicts` (read in that order): other expansions' ids,
/// each marked as `KEY.ID` for the problems found with it later (not installed, say).
fn relation(doc: &mut Doc<'_>, t: &mut Table<'_, '_>, key: &'static str, m: &mut Manifest) -> Vec<String> {
    let list = t.str_list(doc, key).unwrap_or_default();
    let mut ids = Vec::new();
    for s in distinct(doc, &list, &format!("`{key}`")) {
        if s.value == m.id {
            doc.error(s.span, format!("`{key}` names the expansion itself"));
        } else if key == "conflicts" && m.depends.iter().chain(&m.optional_depends).any(|d| d == s.value) {
            doc.error(s.span, format!("`{}` is in `conflicts` and in the expansions it depends on", s.value));
        } else {
            mark(doc, m, format!("{key}.{}", s.value), &s.span);
            ids.push(s.value.to_string());
        }
    }
    ids
}

fn read_editions(doc: &mut Doc<'_>, v: &Spanned<DeValue<'_>>, m: &mut Manifest, names: &[At<&str>]) {
    let Some(t) = doc.table_in(v, "[editions]") else { return };
    for (name, body) in t.entries() {
        if !editions_unknown(names) && !names.iter().any(|n| n.value == name.value) {
            doc.error(name.span.clone(), format!("[editions.{}] is not listed in `editions`", name.value));
            continue;
        }
        let Some(mut et) = doc.table_in(body, &format!("[editions.{}]", name.value)) else { continue };
        let key = |k: &str| format!("editions.{}.{k}", name.value);
        let tileset = et.str(doc, "tileset").map(|s| {
            mark(doc, m, key("tileset"), &s.span);
            m.dir().join(s.value)
        });
        let tileset_edition = match et.str(doc, "tileset_edition") {
            Some(s) => {
                mark(doc, m, key("tileset_edition"), &s.span);
                s.value.to_string()
            }
            None => name.value.to_string(),
        };
        let with = et.str_list(doc, "with").unwrap_or_default();
        if let Some(first) = with.first() {
            mark(doc, m, key("with"), &first.span);
        }
        for own in with.iter().filter(|w| w.value == m.id) {
            doc.error(own.span.clone(), "`with` names the expansion itself");
        }
        let with = distinct_names(doc, &with, "`with`");
        let mut if_chosen = Vec::new();
        for v in et.array(doc, "if_chosen").map(|a| a.value.iter().collect::<Vec<_>>()).unwrap_or_default() {
            let Some(mut ct) = doc.table_in(v, "an [[if_chosen]] entry") else { continue };
            let expansion = ct.req_str(doc, "expansion").map(|s| s.value.to_string());
            let file = ct.req_str(doc, "tileset").map(|s| {
                mark(doc, m, key(&format!("if_chosen.{}.tileset", if_chosen.len())), &s.span);
                m.dir().join(s.value)
            });
            let inner = match ct.str(doc, "tileset_edition") {
                Some(s) => {
                    mark(doc, m, key(&format!("if_chosen.{}.tileset_edition", if_chosen.len())), &s.span);
                    s.value.to_string()
                }
                None => name.value.to_string(),
            };
            ct.finish(doc);
            if let (Some(expansion), Some(tileset)) = (expansion, file) {
                if_chosen.push(IfChosen { expansion, tileset, tileset_edition: inner });
            }
        }
        let made_for = read_made_for(doc, &mut et, m, name.value);
        et.finish(doc);
        let name = name.value.to_string();
        m.editions.push(Edition { name, tileset, tileset_edition, with, if_chosen, made_for });
    }
}

/// An edition's `made_for` entries: `{ expansion = "base", editions = ["C2", "C3"], why = "…" }`,
/// or with `options = { farm_rules = ["current"] }` in place of or beside `editions`. Each
/// edition named is marked as `editions.EDITION.made_for.I.editions.NAME` and each option as
/// `editions.EDITION.made_for.I.options.NAME`, for a check against the other expansion's manifest.
fn read_made_for(doc: &mut Doc<'_>, et: &mut meeple_toml::Table<'_, '_>, m: &mut Manifest, own: &str) -> Vec<MadeFor> {
    let mut made_for = Vec::new();
    for v in et.array(doc, "made_for").map(|a| a.value.iter().collect::<Vec<_>>()).unwrap_or_default() {
        let Some(mut t) = doc.table_in(v, "a `made_for` entry") else { continue };
        let at = format!("editions.{own}.made_for.{}", made_for.len());
        let expansion = t.req_str(doc, "expansion").map(|s| s.value.to_string());
        let editions = t.str_list(doc, "editions");
        let options = t.table(doc, "options").map(|o| made_for_options(doc, o, m, &at));
        let editions = match (editions, &options) {
            (Some(list), _) if list.is_empty() => {
                doc.error(t.span(), "`editions` names at least one edition");
                None
            }
            (Some(list), _) => {
                for e in &list {
                    mark(doc, m, format!("{at}.editions.{}", e.value), &e.span);
                }
                Some(list.iter().map(|e| e.value.to_string()).collect())
            }
            (None, Some(_)) => Some(Vec::new()),
            (None, None) => {
                doc.error(t.span(), "a `made_for` entry needs `editions`, `options` or both");
                None
            }
        };
        let why = t.str(doc, "why").map(|s| s.value.to_string());
        t.finish(doc);
        if let (Some(expansion), Some(editions)) = (expansion, editions) {
            made_for.push(MadeFor { expansion, editions, options: options.unwrap_or_default(), why });
        }
    }
    made_for
}

/// A `made_for` entry's `options`: each an enum option of the other expansion with the values
/// this edition was made for.
fn made_for_options(
    doc: &mut Doc<'_>,
    options: &Spanned<DeValue<'_>>,
    m: &mut Manifest,
    at: &str,
) -> Vec<(String, Vec<String>)> {
    let Some(t) = doc.table_in(options, "a `made_for` entry's `options`") else { return Vec::new() };
    let mut out = Vec::new();
    for (name, value) in t.entries() {
        let values = match value.get_ref().as_array() {
            Some(list) => meeple_toml::str_items(doc, name.value, list),
            None => Vec::new(),
        };
        if values.is_empty() {
            doc.error(
                value.span(),
                format!("`options.{}` names the values of that option it was made for", name.value),
            );
            continue;
        }
        mark(doc, m, format!("{at}.options.{}", name.value), &name.span);
        out.push((name.value.to_string(), values.iter().map(|v| v.value.to_string()).collect()));
    }
    out
}

fn read_draw(doc: &mut Doc<'_>, v: &Spanned<DeValue<'_>>, m: &mut Manifest) {
    let Some(mut t) = doc.table_in(v, "[draw]") else { return };
    let own = |s: Option<At<&str>>| s.map(|s| s.value.to_string());
    // Each marked, for problems found once the game is assembled (a tag no tile carries).
    let [start, first, last] = ["start", "first", "last"].map(|key| {
        let value = t.str(doc, key);
        if let Some(v) = &value {
            mark(doc, m, format!("draw.{key}"), &v.span);
        }
        own(value)
    });
    let mut draw = DrawDef { start, first, last, ..DrawDef::default() };
    if draw.last.is_some() && draw.first.is_none() {
        doc.error(t.span(), "`last` needs `first`: it orders the tiles drawn first");
    }
    if let Some(r) = t.get("replaced_start") {
        draw.replaced_start = match r.get_ref() {
            DeValue::String(s) => {
                match replaced_start(s.as_ref()) {
                    Some(fixed) => ReplacedStartDef::Fixed(fixed),
                    None => {
                        doc.error(r.span(), format!("`replaced_start = \"{s}\"`: expected \"discard\", \"shuffle-in\" or {{ option = \"…\" }}"));
                        ReplacedStartDef::default()
                    }
                }
            }
            _ => match doc.table_in(r, "`replaced_start`") {
                Some(mut rt) => {
                    let name = rt.req_str(doc, "option");
                    rt.finish(doc);
                    match name {
                        Some(n) if m.option(n.value).is_some_and(|o| replaced_values(&o.ty)) => {
                            ReplacedStartDef::Option(n.value.to_string())
                        }
                        Some(n) => {
                            doc.error(n.span, format!("`{}` must be an option of this manifest with the values \"discard\" and \"shuffle-in\"", n.value));
                            ReplacedStartDef::default()
                        }
                        None => ReplacedStartDef::default(),
                    }
                }
                None => ReplacedStartDef::default(),
            },
        };
    }
    t.finish(doc);
    m.draw = Some(draw);
}

/// `discard` / `shuffle-in`.
pub fn replaced_start(s: &str) -> Option<meeple_core::rules::ReplacedStart> {
    match s {
        "discard" => Some(meeple_core::rules::ReplacedStart::Discard),
        "shuffle-in" => Some(meeple_core::rules::ReplacedStart::ShuffleIn),
        _ => None,
    }
}

fn replaced_values(ty: &OptionType) -> bool {
    matches!(ty, OptionType::Enum(values) if values.iter().all(|v| replaced_start(v).is_some()))
}

fn edition_filter(doc: &mut Doc<'_>, t: &mut Table<'_, '_>, names: &[At<&str>]) -> Option<Vec<String>> {
    let list = t.str_list(doc, "editions")?;
    for e in &distinct(doc, &list, "`editions`") {
        if !editions_unknown(names) && !names.iter().any(|n| n.value == e.value) {
            doc.error(e.span.clone(), format!("edition `{}` is not listed in [expansion] editions", e.value));
        }
    }
    Some(list.iter().map(|e| e.value.to_string()).collect())
}

fn read_figure(doc: &mut Doc<'_>, v: &Spanned<DeValue<'_>>, m: &mut Manifest, names: &[At<&str>]) {
    let Some(mut t) = doc.table_in(v, "a [[figures]] entry") else { return };
    let id = t.req_str(doc, "id");
    let per_player = bounded(doc, &mut t, "per_player", 1, 1, 30);
    let strength = bounded(doc, &mut t, "strength", 1, 0, 10);
    let follower = t.bool(doc, "follower").map(|b| b.value);
    let mut stands_on = Vec::new();
    let stands_on_at = t.get("stands_on").map(|v| v.span());
    let listed = t.str_list(doc, "stands_on");
    for s in distinct(doc, listed.as_deref().unwrap_or_default(), "`stands_on`") {
        match SegmentKind::parse(s.value) {
            Some(k) => stands_on.push(k),
            None => doc.error(s.span, SegmentKind::unknown(s.value)),
        }
    }
    let placement_given = t.get("placement").is_some();
    let placement = choice(
        doc,
        &mut t,
        "placement",
        &[
            ("unoccupied", Placement::Unoccupied),
            ("joins-own-follower", Placement::JoinsOwnFollower),
            ("with-follower", Placement::WithFollower),
            ("by-expansion", Placement::ByExpansion),
        ],
    );
    // A placement misspelt is told as such, not also as wanting what another would.
    let placement_read = placement.is_some() || !placement_given;
    let placement = placement.unwrap_or(Placement::Unoccupied);
    let stays = choice(
        doc,
        &mut t,
        "stays",
        &[
            ("until-scored", Stays::UntilScored),
            ("while-own-follower", Stays::WhileOwnFollower),
            ("while-attached", Stays::WhileAttached),
        ],
    )
    .unwrap_or(Stays::UntilScored);
    let faces = t
        .array(doc, "faces")
        .map(|a| {
            a.value
                .iter()
                .filter_map(|f| match integer(f.get_ref()).filter(|n| (1..=255).contains(n)) {
                    Some(n) => Some(n as u8),
                    None => {
                        doc.error(f.span(), "a face is a number from 1 to 255");
                        None
                    }
                })
                .collect()
        })
        .unwrap_or_default();
    let editions = edition_filter(doc, &mut t, names);
    let name = read_noun(doc, &mut t, id.as_ref().map(|id| id.value));
    t.finish(doc);
    let Some(id) = id else { return };
    let taken = m.figures.iter().map(|f| (f.kind.id.as_str(), &f.editions));
    if !own_id(doc, &id, &editions, "figure", taken, &m.qualify(id.value)) {
        return;
    }
    if placement_read && placement != Placement::ByExpansion {
        needs_stands_on(doc, &id, stands_on_at, listed.as_deref());
    }
    unshared_name(doc, &id, &name, "figure", m.figures.iter().map(|f| (f.kind.id.as_str(), &f.kind.name)), m);
    let kind = FigureKind {
        id: m.qualify(id.value),
        name,
        per_player: per_player as u8,
        strength: strength as u8,
        follower: follower.unwrap_or(placement == Placement::Unoccupied),
        stands_on: kinds(&stands_on),
        placement,
        stays,
        faces,
    };
    m.figures.push(FigureDef { kind, editions });
}

/// A figure's or token's `name` and `plural`, each from its id when not written (see
/// [`Noun::from_id`]; a written `name` gives the plural its `s`).
fn read_noun(doc: &mut Doc<'_>, t: &mut Table<'_, '_>, id: Option<&str>) -> Noun {
    let mut word = |key: &'static str| {
        let w = t.str(doc, key)?;
        let chars = w.value.chars().count();
        let fault = if w.value.trim().is_empty() {
            Some("is empty: write what players call it".to_string())
        } else if w.value.contains(char::is_control) {
            Some("holds a control character (a line break, a tab, an escape): write plain text on one line".into())
        } else if chars > 40 {
            Some(format!("is {chars} characters long: a word or a few for players, at most 40"))
        } else {
            None
        };
        match fault {
            Some(fault) => {
                doc.error(w.span, format!("`{key}` {fault}"));
                None
            }
            None => Some(w.value.to_string()),
        }
    };
    let (one, many) = (word("name"), word("plural"));
    let from_id = Noun::from_id(id.unwrap_or_default());
    match one {
        Some(one) => Noun { many: many.unwrap_or_else(|| format!("{one}s")), one },
        None => Noun { many: many.unwrap_or(from_id.many), one: from_id.one },
    }
}

/// Refuses a name players could not tell from another kind's of the manifest (the same kind
/// declared again for other editions may share it), or, outside the base game, from the meeple.
fn unshared_name<'a>(
    doc: &mut Doc<'_>,
    id: &At<&str>,
    name: &Noun,
    what: &str,
    mut others: impl Iterator<Item = (&'a str, &'a Noun)>,
    m: &Manifest,
) {
    let own = m.qualify(id.value);
    let meeple = m.id != "base" && FigureKind::meeple().name.clashes_with(name);
    let other = others.find(|(other, n)| *other != own && n.clashes_with(name));
    let clash = match other {
        Some((other, _)) => format!("{what} `{other}`"),
        None if meeple => "the base game's meeple".to_string(),
        None => return,
    };
    doc.error(
        id.span.clone(),
        format!(
            "{what} `{}` is called `{}` (`{}` for several), as {clash} is: players could not tell them apart; give it a `name` and `plural` of its own",
            id.value, name.one, name.many
        ),
    );
}

fn bounded(doc: &mut Doc<'_>, t: &mut Table<'_, '_>, key: &'static str, default: i64, min: i64, max: i64) -> i64 {
    match t.int(doc, key) {
        Some(n) if n.value >= min && n.value <= max => n.value,
        Some(n) => {
            doc.error(n.span, format!("`{key}` must be from {min} to {max}"));
            default
        }
        None => default,
    }
}

fn choice<T: Copy>(doc: &mut Doc<'_>, t: &mut Table<'_, '_>, key: &'static str, options: &[(&str, T)]) -> Option<T> {
    let s = t.str(doc, key)?;
    let found = options.iter().find(|(n, _)| *n == s.value).map(|(_, v)| *v);
    if found.is_none() {
        let names: Vec<&str> = options.iter().map(|(n, _)| *n).collect();
        let hint = meeple_toml::did_you_mean(s.value, &names);
        doc.error(s.span, format!("`{key} = \"{}\"`: {hint}expected one of: {}", s.value, names.join(", ")));
    }
    found
}

/// Checks the id of a figure or token: the characters of an expansion id, and not declared
/// twice for one edition (`taken`: the ids and editions declared before it).
fn own_id<'a>(
    doc: &mut Doc<'_>,
    id: &At<&str>,
    editions: &Option<Vec<String>>,
    what: &str,
    mut taken: impl Iterator<Item = (&'a str, &'a Option<Vec<String>>)>,
    qualified: &str,
) -> bool {
    if !is_id(id.value) {
        doc.error(id.span.clone(), format!("{what} id `{}` must use only a-z, 0-9, '-' and '_'", id.value));
        return false;
    }
    let overlap = taken.any(|(other, theirs)| {
        other == qualified
            && match (theirs, editions) {
                (Some(a), Some(b)) => a.iter().any(|e| b.contains(e)),
                _ => true,
            }
    });
    if overlap {
        doc.error(id.span.clone(), format!("{what} `{}` is declared twice for the same edition", id.value));
    }
    !overlap
}

fn read_token(doc: &mut Doc<'_>, v: &Spanned<DeValue<'_>>, m: &mut Manifest, names: &[At<&str>]) {
    let Some(mut t) = doc.table_in(v, "a [[tokens]] entry") else { return };
    let id = t.req_str(doc, "id");
    let supply = bounded(doc, &mut t, "supply", 0, 0, 10_000);
    let editions = edition_filter(doc, &mut t, names);
    let name = read_noun(doc, &mut t, id.as_ref().map(|id| id.value));
    t.finish(doc);
    if let Some(id) = id
        && own_id(
            doc,
            &id,
            &editions,
            "token",
            m.tokens.iter().map(|t| (t.id.as_str(), &t.editions)),
            &m.qualify(id.value),
        )
    {
        unshared_name(doc, &id, &name, "token", m.tokens.iter().map(|t| (t.id.as_str(), &t.name)), m);
        m.tokens.push(TokenDef { id: m.qualify(id.value), name, supply: supply as u32, editions });
    }
}

fn read_options(doc: &mut Doc<'_>, v: &Spanned<DeValue<'_>>, m: &mut Manifest, editions: &[At<&str>]) {
    let Some(t) = doc.table_in(v, "[options]") else { return };
    for (name, body) in t.entries() {
        let Some(mut ot) = doc.table_in(body, &format!("[options.{}]", name.value)) else { continue };
        let help = ot.str(doc, "help").map(|h| h.value.to_string()).unwrap_or_default();
        let plays_in = ot.str_list(doc, "editions").map(|list| {
            for e in list.iter().filter(|e| !editions_unknown(editions) && !editions.iter().any(|x| x.value == e.value))
            {
                doc.error(e.span.clone(), format!("edition `{}` is not listed in [expansion] editions", e.value));
            }
            list.iter().map(|e| e.value.to_string()).collect::<Vec<_>>()
        });
        let mut int_out_of_order = false;
        let ty = match ot.req_str(doc, "type") {
            Some(k) if k.value == "bool" => Some(OptionType::Bool),
            Some(k) if k.value == "int" => {
                let min = ot.int(doc, "min").map_or(i64::MIN, |n| n.value);
                let max = ot.int(doc, "max");
                if let Some(m) = &max
                    && m.value < min
                {
                    // No default could fit the range: that is not a second problem (one that
                    // is no integer is, below).
                    doc.error(m.span.clone(), format!("`max = {}` is below `min = {min}`", m.value));
                    int_out_of_order = true;
                    None
                } else {
                    Some(OptionType::Int { min, max: max.map_or(i64::MAX, |n| n.value) })
                }
            }
            Some(k) if k.value == "enum" => {
                let given = ot.get("values");
                let values = ot.str_list(doc, "values").unwrap_or_default();
                let values = distinct_names(doc, &values, "`values`");
                if values.is_empty() {
                    match given {
                        Some(v) if v.get_ref().as_array().is_some_and(|a| a.is_empty()) => {
                            doc.error(v.span(), "`values` is empty: an enum needs at least one value")
                        }
                        // A list of wrong values was reported value by value.
                        Some(_) => {}
                        None => doc.error(ot.span(), format!("[options.{}] of type enum needs `values`", name.value)),
                    }
                    None
                } else {
                    Some(OptionType::Enum(values))
                }
            }
            Some(k) => {
                let meant = match k.value {
                    "boolean" => "; did you mean `bool`?",
                    "integer" | "number" | "i64" => "; did you mean `int`?",
                    "string" | "choice" | "str" => "; did you mean `enum`?",
                    _ => "",
                };
                doc.error(k.span, format!("option type `{}`: expected bool, int or enum{meant}", k.value));
                // The keys of the type meant are not also unknown.
                ot.allow(&["min", "max", "values"]);
                None
            }
            // Missing (perhaps misspelt, which is reported too): the keys of any type are not
            // also unknown.
            None => {
                ot.allow(&["min", "max", "values"]);
                None
            }
        };
        let default = ot.get("default");
        let per_edition = ot.get("edition_defaults");
        ot.finish(doc);
        let Some(default) = default.or_else(|| {
            doc.error(body.span(), format!("[options.{}] needs a `default`", name.value));
            None
        }) else {
            continue;
        };
        let Some(ty) = ty else {
            if int_out_of_order && !matches!(default.get_ref(), DeValue::Integer(_)) {
                doc.error(default.span(), "the default does not fit: expected a whole number");
            }
            continue;
        };
        let mut def = OptionDef {
            name: name.value.to_string(),
            ty,
            default: option_value(default),
            edition_defaults: BTreeMap::new(),
            editions: plays_in,
            help,
        };
        if let Err(e) = def.check(&def.default) {
            doc.error(default.span(), format!("the default does not fit: {e}"));
        }
        if let Some(t) =
            per_edition.and_then(|v| doc.table_in(v, &format!("[options.{}] edition_defaults", name.value)))
        {
            for (edition, value) in t.entries() {
                let v = option_value(value);
                if !editions_unknown(editions) && !editions.iter().any(|e| e.value == edition.value) {
                    doc.error(
                        edition.span,
                        format!("edition `{}` is not listed in [expansion] editions", edition.value),
                    );
                } else if let Err(e) = def.check(&v) {
                    doc.error(value.span(), format!("the default of edition `{}` does not fit: {e}", edition.value));
                } else {
                    def.edition_defaults.insert(edition.value.to_string(), v);
                }
            }
        }
        m.options.push(def);
    }
}

/// Tells a figure that players place (`placement` other than `by-expansion`) that has no
/// segment kind to stand on, which players could never place: `stands_on` left out (`at` none)
/// or empty. A list of the wrong type (`listed` none) has been told already.
fn needs_stands_on(doc: &mut Doc<'_>, id: &At<&str>, at: Option<Span>, listed: Option<&[At<&str>]>) {
    let only = "only a figure placed `by-expansion` may have none";
    match (at, listed) {
        (None, _) => {
            let why = format!(
                "figure `{}` needs `stands_on`, the segment kinds players may put it on (as `stands_on = [\"road\"]`); \
                 {only}",
                id.value
            );
            doc.error(id.span.clone(), why);
        }
        (Some(at), Some([])) => {
            doc.error(at, format!("`stands_on` names no segment kind, so players could never place it; {only}"));
        }
        _ => {}
    }
}

/// An option's value as written (a type it cannot have, or an integer too large for any range,
/// reads as null, which no type fits).
fn option_value(v: &Spanned<DeValue<'_>>) -> Value {
    match v.get_ref() {
        DeValue::Boolean(b) => Value::Bool(*b),
        DeValue::Integer(_) => integer(v.get_ref()).map_or(Value::Null, Value::Int),
        DeValue::String(s) => Value::Str(s.to_string()),
        _ => Value::Null,
    }
}

fn read_entry(doc: &mut Doc<'_>, entries: [Option<&Spanned<DeValue<'_>>>; 3], m: &mut Manifest) {
    let [script, native, builtin] = entries;
    // Each table is still read, so that its own problems are told with this one.
    let second = entries.iter().flatten().nth(1);
    if let Some(second) = second {
        doc.error(second.span(), "an expansion has at most one of [script], [native] and [builtin]");
    }
    if let Some(s) = script
        && let Some(mut t) = doc.table_in(s, "[script]")
    {
        let entry = t.req_str(doc, "entry");
        if let Some(lang) = t.str(doc, "lang")
            && lang.value != "luau"
        {
            doc.error(lang.span, "only `lang = \"luau\"` is supported");
        }
        t.finish(doc);
        if let Some(e) = entry {
            mark(doc, m, "script.entry".into(), &e.span);
            if e.value.contains("..") || Path::new(e.value).is_absolute() {
                doc.error(e.span, "`entry` must be a file inside the expansion's folder");
            } else if !e.value.ends_with(".luau") {
                // Only `.luau` files are read as scripts: another would be told missing.
                let why = format!("`entry = \"{}\"`: a script is a Luau file, whose name ends in `.luau`", e.value);
                doc.error(e.span, why);
            } else {
                m.entry = Entry::Script(PathBuf::from(e.value));
            }
        }
    }
    if let Some(n) = native
        && let Some(mut t) = doc.table_in(n, "[native]")
    {
        let lib = t.req_str(doc, "library");
        t.finish(doc);
        if let Some(l) = lib {
            mark(doc, m, "native.library".into(), &l.span);
            // The name as Cargo's crate gives it; the platform's prefix and suffix are added.
            let file = [".so", ".dylib", ".dll"].iter().any(|ext| l.value.ends_with(ext));
            if file {
                let bare = l.value.strip_prefix("lib").unwrap_or(l.value).split('.').next().unwrap_or_default();
                let message = format!(
                    "`library = \"{}\"`: give the bare name, as `library = \"{bare}\"` for lib{bare}.so or {bare}.dll",
                    l.value
                );
                doc.error(l.span.clone(), message);
            } else {
                // A file name is not also looked for (and not found) as a bare one.
                m.entry = Entry::Native(l.value.to_string());
            }
        }
    }
    if let Some(b) = builtin
        && let Some(mut t) = doc.table_in(b, "[builtin]")
    {
        let name = t.req_str(doc, "name");
        t.finish(doc);
        if let Some(n) = name {
            mark(doc, m, "builtin.name".into(), &n.span);
            m.entry = Entry::Builtin(n.value.to_string());
        }
    }
    if second.is_some() {
        m.entry = Entry::None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = r#"
[expansion]
id = "demo"
name = "Demo"
version = "0.1.0"
api = 1
depends = ["base"]
editions = ["A", "B"]
default_edition = "B"

[editions.B]
tileset = "tiles.toml"

[[figures]]
id = "helper"
per_player = 2
strength = 0
stands_on = ["road", "city"]
placement = "joins-own-follower"
stays = "while-own-follower"
editions = ["B"]

[[tokens]]
id = "gold"
supply = 5

[options.bonus]
type = "int"
min = 0
max = 5
default = 1
help = "Extra points"

[script]
entry = "init.luau"
"#;

    #[test]
    fn a_manifest_reads_back() {
        let m = Manifest::parse(Path::new("mods/demo/expansion.toml"), GOOD).unwrap();
        assert_eq!(m.id, "demo");
        assert_eq!(m.default_edition, "B");
        assert_eq!(m.edition("B").unwrap().tileset.as_deref(), Some(Path::new("mods/demo/tiles.toml")));
        assert_eq!(m.edition("A").unwrap().tileset, None);
        let f = &m.figures[0];
        assert_eq!(f.kind.id, "demo:helper");
        assert!(!f.kind.follower);
        assert_eq!(f.kind.placement, Placement::JoinsOwnFollower);
        assert_eq!(m.tokens[0].id, "demo:gold");
        assert_eq!(
            m.option("bonus").unwrap().check(&Value::Int(9)).unwrap_err(),
            "option `bonus` expects an integer from 0 to 5, not 9"
        );
        assert_eq!(m.entry, Entry::Script("init.luau".into()));
    }

    #[test]
    fn two_entries_are_refused_with_the_problems_of_each() {
        let text = GOOD.replace(
            "[script]\nentry = \"init.luau\"\n",
            "[script]\nentry = \"init.lua\"\n\n[native]\nlibrary = \"libfoo.so\"\n",
        );
        let err = Manifest::parse(Path::new("x/expansion.toml"), &text).unwrap_err().to_string();
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 3, "{err}");
        assert!(lines[0].ends_with("a script is a Luau file, whose name ends in `.luau`"), "{err}");
        assert!(lines[1].ends_with("an expansion has at most one of [script], [native] and [builtin]"), "{err}");
        assert!(lines[2].ends_with("give the bare name, as `library = \"foo\"` for libfoo.so or foo.dll"), "{err}");
    }

    #[test]
    fn made_for_reads_back_and_its_mistakes_are_located() {
        let with = |entry: &str| {
            GOOD.replace("tileset = \"tiles.toml\"\n", &format!("tileset = \"tiles.toml\"\nmade_for = [{entry}]\n"))
        };
        let m = Manifest::parse(Path::new("x/expansion.toml"), &with("{ expansion = \"base\", editions = [\"C2\"] }"))
            .unwrap();
        let made_for = &m.edition("B").unwrap().made_for;
        let c2 = MadeFor { expansion: "base".into(), editions: vec!["C2".into()], options: Vec::new(), why: None };
        assert_eq!(made_for, &[c2]);
        let entry = "{ expansion = \"base-c1\", options = { farm_rules = [\"current\"] } }";
        let m = Manifest::parse(Path::new("x/expansion.toml"), &with(entry)).unwrap();
        let options = vec![("farm_rules".to_string(), vec!["current".to_string()])];
        let farms = MadeFor { expansion: "base-c1".into(), editions: Vec::new(), options, why: None };
        assert_eq!(m.edition("B").unwrap().made_for, [farms], "options alone, for any edition");
        let err = |entry: &str| Manifest::parse(Path::new("x/expansion.toml"), &with(entry)).unwrap_err().to_string();
        assert_eq!(
            err("{ expansion = \"base\", editions = [] }"),
            "x/expansion.toml:13:13: `editions` names at least one edition"
        );
        assert!(err("{ expansion = \"base\" }").ends_with("a `made_for` entry needs `editions`, `options` or both"));
        assert!(
            err("{ expansion = \"base\", options = { farm_rules = [] } }")
                .ends_with("`options.farm_rules` names the values of that option it was made for")
        );
        assert!(
            err("{ expansion = \"base\", editions = [\"C2\"], because = \"x\" }").contains("unknown key `because`")
        );
    }

    #[test]
    fn a_misspelt_option_type_is_the_one_problem_of_its_option() {
        // `min` and `max` belong to a type, so they are not also unknown keys.
        let bad = GOOD.replace("type = \"int\"", "tpye = \"int\"");
        let err = Manifest::parse(Path::new("x/expansion.toml"), &bad).unwrap_err().to_string();
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 2, "{err}");
        assert!(lines[0].ends_with("[options.bonus] needs `type` (a string)"), "{err}");
        assert!(lines[1].contains("unknown key `tpye` in [options.bonus]; did you mean `type`?"), "{err}");
    }

    #[test]
    fn figures_and_tokens_are_named_for_players_from_their_ids_unless_named() {
        let m = Manifest::parse(Path::new("x/expansion.toml"), GOOD).unwrap();
        assert_eq!(m.figures[0].kind.name, Noun { one: "helper".into(), many: "helpers".into() });
        assert_eq!(m.tokens[0].name, Noun { one: "gold".into(), many: "golds".into() });
        let named = GOOD
            .replace("id = \"helper\"\n", "id = \"helper\"\nname = \"little helper\"\n")
            .replace("id = \"gold\"\n", "id = \"gold\"\nplural = \"gold\"\n");
        let m = Manifest::parse(Path::new("x/expansion.toml"), &named).unwrap();
        assert_eq!(m.figures[0].kind.name, Noun { one: "little helper".into(), many: "little helpers".into() });
        assert_eq!(m.tokens[0].name, Noun { one: "gold".into(), many: "gold".into() });
        let bad = GOOD.replace("id = \"helper\"\n", "id = \"helper\"\nname = \"\"\nplural = \"a\\nb\"\n");
        let err = Manifest::parse(Path::new("x/expansion.toml"), &bad).unwrap_err().to_string();
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 2, "{err}");
        assert!(lines[0].starts_with("x/expansion.toml:16:8: `name` is empty"), "{err}");
        assert!(lines[1].starts_with("x/expansion.toml:17:10: `plural` holds a control character"), "{err}");
        let long = GOOD.replace("id = \"helper\"\n", &format!("id = \"helper\"\nname = \"{}\"\n", "x".repeat(41)));
        let err = Manifest::parse(Path::new("x/expansion.toml"), &long).unwrap_err().to_string();
        assert!(err.starts_with("x/expansion.toml:16:8: `name` is 41 characters long"), "{err}");
    }

    #[test]
    fn a_figure_players_place_needs_the_kinds_it_stands_on() {
        let without = GOOD.replace("stands_on = [\"road\", \"city\"]\n", "");
        let err = Manifest::parse(Path::new("x/expansion.toml"), &without).unwrap_err().to_string();
        assert_eq!(
            err,
            "x/expansion.toml:15:6: figure `helper` needs `stands_on`, the segment kinds players may put it on (as \
             `stands_on = [\"road\"]`); only a figure placed `by-expansion` may have none"
        );
        // One only the expansion's commands place (a tollhouse, at a village) may have none.
        let by_expansion = without.replace("placement = \"joins-own-follower\"", "placement = \"by-expansion\"");
        assert!(Manifest::parse(Path::new("x/expansion.toml"), &by_expansion).unwrap().figures[0].kind.stands_on == 0);
        // An empty list is told at the list; a list of the wrong type or a misspelt placement
        // only as what they are.
        let err = |from: &str, to: &str| {
            let text = GOOD.replace(from, to);
            Manifest::parse(Path::new("x/expansion.toml"), &text).unwrap_err().to_string()
        };
        let empty = err("stands_on = [\"road\", \"city\"]", "stands_on = []");
        assert_eq!(
            empty,
            "x/expansion.toml:18:13: `stands_on` names no segment kind, so players could never place it; only a \
             figure placed `by-expansion` may have none"
        );
        let typed = err("stands_on = [\"road\", \"city\"]", "stands_on = \"road\"");
        assert_eq!(typed.lines().count(), 1, "{typed}");
        let misspelt =
            err("stands_on = [\"road\", \"city\"]\nplacement = \"joins-own-follower\"", "placement = \"byexpansion\"");
        assert_eq!(misspelt.lines().count(), 1, "{misspelt}");
        assert!(
            misspelt.contains("`placement = \"byexpansion\"`: did you mean `by-expansion`? expected one of"),
            "{misspelt}"
        );
    }

    #[test]
    fn a_kind_named_as_another_is_refused() {
        let second = "\n[[figures]]\nid = \"aide\"\nname = \"helper\"\nplural = \"aides\"\nstands_on = [\"road\"]\n";
        let twice = GOOD.replace("\n[[tokens]]", &format!("{second}\n[[tokens]]"));
        let err = Manifest::parse(Path::new("x/expansion.toml"), &twice).unwrap_err().to_string();
        assert!(
            err.starts_with(
                "x/expansion.toml:24:6: figure `aide` is called `helper` (`aides` for several), as figure `demo:helper` is"
            ),
            "{err}"
        );
        let meeple = GOOD.replace("id = \"gold\"\n", "id = \"gold\"\nplural = \"meeples\"\n");
        let err = Manifest::parse(Path::new("x/expansion.toml"), &meeple).unwrap_err().to_string();
        assert!(
            err.contains("token `gold` is called `gold` (`meeples` for several), as the base game's meeple is"),
            "{err}"
        );
    }

    #[test]
    fn a_misspelt_kind_to_stand_on_names_the_one_meant() {
        let bad = GOOD.replace("stands_on = [\"road\", \"city\"]", "stands_on = [\"road\", \"monastry\"]");
        let err = Manifest::parse(Path::new("x/expansion.toml"), &bad).unwrap_err().to_string();
        assert_eq!(
            err,
            "x/expansion.toml:18:22: unknown segment kind `monastry`; did you mean `monastery`? expected one of: city, \
             road, field, monastery, river, garden"
        );
    }

    #[test]
    fn every_problem_is_located() {
        let bad = GOOD
            .replace("api = 1", "api = 2")
            .replace("placement = \"joins-own-follower\"", "placement = \"sometimes\"")
            .replace("default = 1", "default = 9")
            .replace("[script]", "[scripts]");
        let err = Manifest::parse(Path::new("x/expansion.toml"), &bad).unwrap_err().to_string();
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(lines.len(), 4, "{err}");
        assert!(lines[0].starts_with("x/expansion.toml:6:7: `api = 2`"), "{err}");
        assert!(lines[1].starts_with("x/expansion.toml:19:13: `placement = \"sometimes\"`: expected one of"), "{err}");
        assert!(lines[2].starts_with("x/expansion.toml:31:11: the default does not fit"), "{err}");
        assert!(lines[3].starts_with("x/expansion.toml:34:2: unknown key `scripts` in the manifest"), "{err}");
    }

    #[test]
    fn a_range_out_of_order_hides_no_default_of_the_wrong_type() {
        let parse = |default: &str| {
            let bad = GOOD.replace("min = 0\nmax = 5\ndefault = 1", &format!("min = 5\nmax = 1\ndefault = {default}"));
            Manifest::parse(Path::new("x/expansion.toml"), &bad).unwrap_err().to_string()
        };
        // Any integer misses an empty range: one problem.
        assert_eq!(parse("3"), "x/expansion.toml:30:7: `max = 1` is below `min = 5`");
        let err = parse("\"a\"");
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(
            lines,
            [
                "x/expansion.toml:30:7: `max = 1` is below `min = 5`",
                "x/expansion.toml:31:11: the default does not fit: expected a whole number"
            ]
        );
    }

    #[test]
    fn editions_that_cannot_be_read_are_not_known_and_nothing_is_unlisted_in_them() {
        let only = |bad: &str| {
            let err = Manifest::parse(Path::new("x/expansion.toml"), bad).unwrap_err().to_string();
            err.lines().map(str::to_string).collect::<Vec<_>>()
        };
        // `editions` of the wrong type: [editions.B], the figure's and the option's edition and
        // the default edition are not each reported as not listed.
        let bad = GOOD
            .replace("editions = [\"A\", \"B\"]", "editions = \"A, B\"")
            .replace("default = 1\n", "default = 1\nedition_defaults = { A = 2 }\n");
        assert_eq!(only(&bad), ["x/expansion.toml:8:12: `editions` must be an array, found a string"]);
        // No readable [expansion] at all.
        let bad = GOOD.replace("[expansion]", "[[expansion]]");
        assert_eq!(only(&bad), ["x/expansion.toml:2:1: [expansion] must be a table, found an array"]);
    }

    #[test]
    fn a_default_too_large_for_any_integer_does_not_fit() {
        let huge = "99999999999999999999";
        let bad = GOOD.replace("default = 1\n", &format!("default = {huge}\nedition_defaults = {{ A = {huge} }}\n"));
        let err = Manifest::parse(Path::new("x/expansion.toml"), &bad).unwrap_err().to_string();
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(
            lines,
            [
                "x/expansion.toml:31:11: the default does not fit: option `bonus` expects an integer from 0 to 5",
                "x/expansion.toml:32:26: the default of edition `A` does not fit: option `bonus` expects an integer from 0 to 5",
            ],
            "{err}"
        );
    }

    #[test]
    fn an_option_may_have_another_default_in_an_edition() {
        let with =
            |defaults: &str| GOOD.replace("default = 1\n", &format!("default = 1\nedition_defaults = {defaults}\n"));
        let m = Manifest::parse(Path::new("x/expansion.toml"), &with("{ A = 3 }")).unwrap();
        assert_eq!(m.option("bonus").unwrap().default_in("A"), &Value::Int(3));
        assert_eq!(m.option("bonus").unwrap().default_in("B"), &Value::Int(1));
        assert_eq!(m.default_options("A")["bonus"], Value::Int(3));

        let err = Manifest::parse(Path::new("x/expansion.toml"), &with("{ A = 9, C = 2 }")).unwrap_err().to_string();
        let lines: Vec<&str> = err.lines().collect();
        assert_eq!(
            lines,
            [
                "x/expansion.toml:32:26: the default of edition `A` does not fit: option `bonus` expects an integer from 0 to 5, not 9",
                "x/expansion.toml:32:29: edition `C` is not listed in [expansion] editions",
            ],
            "{err}"
        );
    }

    #[test]
    fn an_option_may_play_in_some_editions_only() {
        let with = |editions: &str| {
            GOOD.replace(
                "default = 1
",
                &format!(
                    "default = 1
editions = {editions}
"
                ),
            )
        };
        let m = Manifest::parse(Path::new("x/expansion.toml"), &with("[\"A\"]")).unwrap();
        assert_eq!(m.option("bonus").unwrap().editions, Some(vec!["A".to_string()]));
        let plain = Manifest::parse(Path::new("x/expansion.toml"), GOOD).unwrap();
        assert_eq!(plain.option("bonus").unwrap().editions, None, "all of them");
        let err = Manifest::parse(Path::new("x/expansion.toml"), &with("[\"A\", \"D\"]")).unwrap_err().to_string();
        assert_eq!(err, "x/expansion.toml:32:18: edition `D` is not listed in [expansion] editions");
    }
}
