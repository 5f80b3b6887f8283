//! Game configs (schema v1, `docs/config.md`): who plays, the seed, the base edition, which
//! expansions with which editions and options, and for tests a fixed draw order or tile limit.
//!
//! Reading checks the syntax and types of every key and reports all problems at once; whether
//! expansions, editions and options exist is checked against the manifests when the ruleset is
//! built (`crate::ruleset`), with the same `file:line:col` locations.

use meeple_core::Value;
use meeple_toml::{At, DeValue, Doc, Report, Span, Spanned, Table, integer, out_of_range, type_name};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The only config schema version so far.
pub const CONFIG_VERSION: i64 = 1;

/// Fewest and most players a config may name.
pub const PLAYERS: std::ops::RangeInclusive<usize> = 2..=6;

/// A character a name is not shown right with: a control character (a newline breaks the score
/// table's line), or one that turns the direction of the text after it (so that a name reads as
/// another in every frontend).
fn unprintable(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200E}' | '\u{200F}' | '\u{061C}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// The longest player name, in characters: names head the columns of score tables.
pub const NAME_CHARS: usize = 40;

/// An option value as written, with where it was written.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OptionValue {
    /// The value.
    pub value: Value,
    /// Its location in the config, `file:line:col` (for errors found later).
    #[serde(skip)]
    pub at: Option<Location>,
    /// Where its name is written: an unknown option is reported there.
    #[serde(skip)]
    pub name_at: Option<Location>,
}

/// A place in a file, for errors found after parsing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Location {
    /// The file.
    pub file: String,
    /// 1-based line.
    pub line: usize,
    /// 1-based column.
    pub col: usize,
}

impl std::fmt::Display for Location {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}:{}", self.file, self.line, self.col)
    }
}

/// One expansion chosen in a config (the base game is one too).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpansionChoice {
    /// The expansion's id.
    pub id: String,
    /// The edition, or the expansion's default.
    pub edition: Option<String>,
    /// Options by name.
    pub options: BTreeMap<String, OptionValue>,
    /// Where the choice was written.
    #[serde(skip)]
    pub at: Option<Location>,
    /// Where its `id` was written.
    #[serde(skip)]
    pub id_at: Option<Location>,
    /// Where its `edition` was written.
    #[serde(skip)]
    pub edition_at: Option<Location>,
    /// How many boxes of the expansion's tiles to play (each tile kind's count times this; the
    /// start tile still once). `None`: one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub copies: Option<u32>,
    /// Where `copies` was written.
    #[serde(skip)]
    pub copies_at: Option<Location>,
    /// Tile kinds played in another number than the edition's (after `copies`), by their id in
    /// the expansion's tilesets; 0 leaves a kind out.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub tiles: BTreeMap<String, u32>,
    /// Where each of `tiles` was written: its name and its count.
    #[serde(skip)]
    pub tiles_at: BTreeMap<String, (Location, Location)>,
}

impl ExpansionChoice {
    /// A choice made in code (no file location).
    pub fn new(id: &str) -> ExpansionChoice {
        ExpansionChoice {
            id: id.to_string(),
            edition: None,
            options: BTreeMap::new(),
            at: None,
            id_at: None,
            edition_at: None,
            copies: None,
            copies_at: None,
            tiles: BTreeMap::new(),
            tiles_at: BTreeMap::new(),
        }
    }
}

/// The largest seed: what a config file can hold (a TOML integer from 0). Seeds given elsewhere
/// (`meeple play --seed`, the protocol's `create`) keep to it, since a game's replay carries its
/// seed in its config.
pub const MAX_SEED: u64 = i64::MAX as u64;

/// A game config.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
// As data (a replay's config), too, a misspelt field is a mistake, not a default; so in
// its choices and options.
#[serde(deny_unknown_fields)]
pub struct GameConfig {
    /// The file it came from (for messages).
    pub file: String,
    /// Player names in turn order.
    pub players: Vec<String>,
    /// The seed, if the config fixes one.
    pub seed: Option<u64>,
    /// The base game's edition and options.
    pub base: ExpansionChoice,
    /// Expansions in the order written.
    pub expansions: Vec<ExpansionChoice>,
    /// A fixed draw order (tests, puzzles).
    pub draw: Option<Vec<String>>,
    /// Where each tile of `draw` was written.
    #[serde(skip)]
    pub draw_at: Vec<Location>,
    /// End after this many tiles.
    pub tile_limit: Option<u32>,
}

impl Default for GameConfig {
    /// Two players, the base game in its default edition.
    fn default() -> GameConfig {
        GameConfig {
            file: "<built-in default>".to_string(),
            players: vec!["Player 1".into(), "Player 2".into()],
            seed: None,
            base: ExpansionChoice::new("base"),
            expansions: Vec::new(),
            draw: None,
            draw_at: Vec::new(),
            tile_limit: None,
        }
    }
}

/// The keys a game config may have at its top level, as its reader asks for them.
pub const CONFIG_KEYS: &[&str] = &["base", "draw", "expansions", "players", "seed", "tile_limit", "version"];

/// Whether a TOML file is meant as a game config: it holds one of a config's keys at its top
/// level, or it is not TOML at all (a broken config is a config to be told of). A tileset or a
/// `Cargo.toml` holds none of them; a manifest's `[draw]` is one, so a caller leaves it out.
pub fn looks_like_config(text: &str) -> bool {
    match text.parse::<toml::Table>() {
        // A tileset's `[[tiles]]` is a config's `tiles` by name: its `[tileset]` tells it apart.
        Ok(top) => !top.contains_key("tileset") && top.keys().any(|k| CONFIG_KEYS.contains(&k.as_str())),
        Err(_) => true,
    }
}

/// Whether TOML text is a tileset: it has a `[tileset]` table.
pub fn is_tileset(text: &str) -> bool {
    text.parse::<toml::Table>().is_ok_and(|top| top.get("tileset").is_some_and(toml::Value::is_table))
}

impl GameConfig {
    /// Reads a config from text; `file` names it in errors.
    pub fn parse(file: &str, text: &str) -> Result<GameConfig, Report> {
        let (cfg, report) = GameConfig::parse_lenient(file, text);
        if report.is_empty() { Ok(cfg) } else { Err(report) }
    }

    /// Reads what can be read of a config, with every problem found; a caller can go on checking
    /// the config against the installed expansions and report all problems together.
    pub fn parse_lenient(file: &str, text: &str) -> (GameConfig, Report) {
        let mut doc = Doc::parse(file, text);
        let root = doc.root();
        let t = doc.table(&root, "the game config");
        let cfg = GameConfig::read(&mut doc, t);
        let report = doc.finish().err().unwrap_or_default();
        (cfg, report)
    }

    /// Reads the config that is the table `key` of a larger file (a scenario's `[game]`), with
    /// problems at their lines in that file.
    pub fn parse_table(file: &str, text: &str, key: &str) -> (GameConfig, Report) {
        let mut doc = Doc::parse(file, text);
        let root = doc.root();
        let cfg = match root.get_ref().get(key) {
            Some(v) => match doc.table_in(v, &format!("[{key}]")) {
                Some(t) => GameConfig::read(&mut doc, t),
                None => GameConfig::default(),
            },
            None => {
                doc.error(0..0, format!("a [{key}] table is needed"));
                GameConfig::default()
            }
        };
        let report = doc.finish().err().unwrap_or_default();
        (GameConfig { file: file.to_string(), ..cfg }, report)
    }

    fn read(doc: &mut Doc<'_>, mut t: Table<'_, '_>) -> GameConfig {
        let mut cfg = GameConfig { file: doc.name().to_string(), ..GameConfig::default() };

        if let Some(v) = t.int(doc, "version")
            && v.value != CONFIG_VERSION
        {
            doc.error(
                v.span,
                format!("config version {} is not supported; this meeple reads version {CONFIG_VERSION}", v.value),
            );
        }
        match t.get("players") {
            None => {}
            Some(v) => {
                if let Some(players) = read_players(doc, v) {
                    cfg.players = players;
                }
            }
        }
        if let Some(s) = t.int(doc, "seed") {
            if s.value < 0 {
                doc.error(s.span, "`seed` must not be negative");
            } else {
                cfg.seed = Some(s.value as u64);
            }
        }
        if let Some(v) = t.table(doc, "base")
            && let Some(choice) = read_choice(doc, v, "[base]", false)
        {
            cfg.base = ExpansionChoice { id: "base".into(), ..choice };
        }
        if let Some(list) = t.array(doc, "expansions") {
            for v in list.value.iter() {
                // `expansions = ["river"]` is the likely slip: say how an entry is written.
                if let Some(id) = v.get_ref().as_str() {
                    let how = format!("an [[expansions]] entry is a table: write `{{ id = \"{id}\" }}`, not a string");
                    doc.error(v.span(), how);
                    continue;
                }
                if let Some(choice) = read_choice(doc, v, "an [[expansions]] entry", true) {
                    cfg.expansions.push(choice);
                }
            }
        }
        if let Some(arr) = t.array(doc, "draw") {
            if arr.value.is_empty() {
                doc.error(arr.span, "`draw` must name at least one tile (without it, tiles are drawn at random)");
            }
            let list = meeple_toml::str_items(doc, "draw", arr.value);
            cfg.draw = Some(list.iter().map(|s| s.value.to_string()).collect());
            cfg.draw_at = list.iter().map(|s| location(doc, &s.span)).collect();
        }
        if let Some(n) = t.int(doc, "tile_limit") {
            if n.value <= 0 {
                doc.error(n.span, "`tile_limit` must be a positive integer");
            } else if n.value > u32::MAX as i64 {
                doc.error(n.span, format!("`tile_limit` is too large: at most {}", u32::MAX));
            } else {
                cfg.tile_limit = Some(n.value as u32);
            }
        }
        // Keys of an expansion's choice written above the first table: say where they go.
        let misplaced: Vec<(&'static str, Span)> = ["edition", "options", "copies", "tiles"]
            .into_iter()
            .filter_map(|key| t.entries().find(|(k, _)| k.value == key).map(|(k, _)| (key, k.span)))
            .collect();
        for (key, span) in misplaced {
            let why = format!("`{key}` belongs in `[base]` or an `[[expansions]]` entry, not at the top of the config");
            doc.error(span, why);
            t.allow(&[key]);
        }
        t.finish(doc);
        cfg
    }

    /// The seed to play with: the config's, else `fallback`.
    pub fn seed_or(&self, fallback: u64) -> u64 {
        self.seed.unwrap_or(fallback)
    }

    /// The config as a plain value, for replays (locations dropped).
    pub fn to_value(&self) -> Value {
        let json = serde_json::to_value(self).unwrap_or_default();
        serde_json::from_value(json).unwrap_or_default()
    }

    /// Reads a config back from a replay's value.
    pub fn from_value(v: &Value) -> Option<GameConfig> {
        serde_json::from_value(serde_json::to_value(v).ok()?).ok()
    }
}

fn read_players(doc: &mut Doc<'_>, v: &Spanned<DeValue<'_>>) -> Option<Vec<String>> {
    let wrong_count = |doc: &mut Doc<'_>, count: &dyn std::fmt::Display| {
        doc.error(v.span(), format!("a game needs {} to {} players, not {count}", PLAYERS.start(), PLAYERS.end()));
    };
    match v.get_ref() {
        DeValue::Integer(_) => match integer(v.get_ref()) {
            Some(n) if usize::try_from(n).is_ok_and(|c| PLAYERS.contains(&c)) => {
                Some((1..=n).map(|i| format!("Player {i}")).collect())
            }
            Some(n) => {
                wrong_count(doc, &n);
                None
            }
            None => {
                wrong_count(doc, &"a number that large");
                None
            }
        },
        DeValue::Array(a) => {
            // How many players were written, bad names included: a bad name is its own problem,
            // not also a wrong number of players. A list a few names too long still has its
            // names read (all problems at once); a long one (a pasted list) is not, one by one.
            if !PLAYERS.contains(&a.len()) {
                wrong_count(doc, &a.len());
                if a.len() > 4 * *PLAYERS.end() {
                    return None;
                }
            }
            let mut names: Vec<String> = Vec::new();
            for item in a.iter() {
                match item.get_ref() {
                    // Names tell the players apart in scores and logs, so each is different.
                    DeValue::String(s) if names.iter().any(|n| n.trim() == s.trim()) => {
                        doc.error(item.span(), format!("the player name \"{s}\" is given twice"));
                    }
                    DeValue::String(s) if s.chars().count() > NAME_CHARS => doc.error(
                        item.span(),
                        format!("a player name has at most {NAME_CHARS} characters, this one {}", s.chars().count()),
                    ),
                    DeValue::String(s) if s.chars().any(unprintable) => {
                        let (i, c) = s.chars().enumerate().find(|(_, c)| unprintable(*c)).expect("one is");
                        let why = format!(
                            "a player name must not hold control or text-direction characters \
                             (U+{:04X} at character {})",
                            c as u32,
                            i + 1
                        );
                        doc.error(item.span(), why)
                    }
                    DeValue::String(s) if !s.trim().is_empty() => names.push(s.to_string()),
                    DeValue::String(_) => doc.error(item.span(), "a player name must not be empty"),
                    other => doc
                        .error(item.span(), format!("`players` must hold names (strings), found {}", type_name(other))),
                }
            }
            (PLAYERS.contains(&a.len()) && names.len() == a.len()).then_some(names)
        }
        other => {
            doc.error(v.span(), format!("`players` must be a list of names or a number, found {}", type_name(other)));
            None
        }
    }
}

fn read_choice(doc: &mut Doc<'_>, v: &Spanned<DeValue<'_>>, what: &str, needs_id: bool) -> Option<ExpansionChoice> {
    let mut t = doc.table_in(v, what)?;
    let loc = |doc: &Doc<'_>, span: &Span| location(doc, span);
    let at = Some(loc(doc, &t.span()));
    let id = if needs_id { t.req_str(doc, "id") } else { None };
    let edition = t.str(doc, "edition");
    let mut options = BTreeMap::new();
    if let Some(o) = t.table(doc, "options")
        && let Some(ot) = doc.table_in(o, "`options`")
    {
        for (name, value) in ot.entries() {
            // A value of no option's type is reported, and the rest of the entry still read.
            let Some(converted) = to_value(doc, name.value, value) else { continue };
            let (at, name_at) = (Some(loc(doc, &value.span())), Some(loc(doc, &name.span)));
            options.insert(name.value.to_string(), OptionValue { value: converted, at, name_at });
        }
    }
    let copies = t.int(doc, "copies").and_then(|n| match u32::try_from(n.value) {
        Ok(c) if COPIES.contains(&c) => Some((c, loc(doc, &n.span))),
        _ => {
            let why =
                format!("`copies` must be an integer from {} to {}, not {}", COPIES.start(), COPIES.end(), n.value);
            doc.error(n.span, why);
            None
        }
    });
    let (tiles, tiles_at) = read_tiles(doc, &mut t);
    t.finish(doc);
    if needs_id && id.is_none() {
        return None;
    }
    Some(ExpansionChoice {
        id: id.as_ref().map(|i| i.value.to_string()).unwrap_or_default(),
        id_at: id.as_ref().map(|i| loc(doc, &i.span)),
        edition: edition.as_ref().map(|e| e.value.to_string()),
        edition_at: edition.as_ref().map(|e: &At<&str>| loc(doc, &e.span)),
        options,
        at,
        copies: copies.as_ref().map(|c| c.0),
        copies_at: copies.map(|c| c.1),
        tiles,
        tiles_at,
    })
}

/// How many boxes of an expansion's tiles a config may play.
pub const COPIES: std::ops::RangeInclusive<u32> = 1..=10;

/// The most copies of one tile kind a config may ask for.
pub const MAX_TILE_COUNT: u32 = 100;

/// A choice's `tiles = { D = 0, V = 12 }`: counts by tile id, with where each was written.
/// Whether the ids name tiles of the expansion is known only with its tilesets (`crate::ruleset`).
#[allow(clippy::type_complexity)]
fn read_tiles(
    doc: &mut Doc<'_>,
    t: &mut Table<'_, '_>,
) -> (BTreeMap<String, u32>, BTreeMap<String, (Location, Location)>) {
    let (mut tiles, mut at) = (BTreeMap::new(), BTreeMap::new());
    let Some(v) = t.table(doc, "tiles") else { return (tiles, at) };
    let Some(table) = doc.table_in(v, "`tiles`") else { return (tiles, at) };
    for (name, value) in table.entries() {
        let count = match value.get_ref() {
            DeValue::Integer(_) => integer(value.get_ref()),
            other => {
                let why =
                    format!("a tile's count must be an integer from 0 to {MAX_TILE_COUNT}, found {}", type_name(other));
                doc.error(value.span(), why);
                continue;
            }
        };
        match count.map(|n| (n, u32::try_from(n).ok().filter(|n| *n <= MAX_TILE_COUNT))) {
            Some((_, Some(n))) => {
                tiles.insert(name.value.to_string(), n);
                at.insert(name.value.to_string(), (location(doc, &name.span), location(doc, &value.span())));
            }
            Some((n, None)) => doc.error(
                value.span(),
                format!(
                    "a tile's count must be an integer from 0 to {MAX_TILE_COUNT} (0 leaves the tile out), not {n}"
                ),
            ),
            None => doc.error(value.span(), format!("this integer is {}", out_of_range(value.get_ref()))),
        }
    }
    (tiles, at)
}

fn location(doc: &Doc<'_>, span: &Span) -> Location {
    let (line, col) = doc.line_col(span.start);
    Location { file: doc.name().to_string(), line, col }
}

fn to_value(doc: &mut Doc<'_>, name: &str, v: &Spanned<DeValue<'_>>) -> Option<Value> {
    Some(match v.get_ref() {
        DeValue::Boolean(b) => Value::Bool(*b),
        DeValue::Integer(_) => match integer(v.get_ref()) {
            Some(n) => Value::Int(n),
            None => {
                doc.error(v.span(), format!("this integer is {}", out_of_range(v.get_ref())));
                return None;
            }
        },
        DeValue::String(s) => Value::Str(s.to_string()),
        other => {
            doc.error(
                v.span(),
                format!("option `{name}`: a value is a boolean, an integer or a string, not {}", type_name(other)),
            );
            return None;
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_config_keys_are_those_its_reader_asks_for() {
        let err = GameConfig::parse("g.toml", "zz = 1").unwrap_err().diagnostics[0].message.clone();
        let (_, listed) = err.split_once("expected one of: ").unwrap_or_else(|| panic!("no key list in: {err}"));
        assert_eq!(listed.split(", ").collect::<Vec<_>>(), CONFIG_KEYS);
    }

    #[test]
    fn a_config_is_told_from_the_other_toml_files_of_a_mod() {
        assert!(looks_like_config("players = [\"Ann\", \"Bob\"]\n"));
        assert!(looks_like_config("[[expansions]]\nid = \"chapels\"\n"));
        assert!(looks_like_config("players = = 1\n"), "a broken config is one to be told of");
        assert!(!looks_like_config("[package]\nname = \"long-roads\"\n[lib]\ncrate-type = [\"cdylib\"]\n"));
        assert!(!looks_like_config("[tileset]\nid = \"chapels\"\n"));
        // A tileset's `[[tiles]]` is no config's `tiles`.
        let tileset = "[tileset]\nid = \"chapels\"\n[[tiles]]\nid = \"chapel\"\n";
        assert!(!looks_like_config(tileset) && is_tileset(tileset));
        assert!(!is_tileset("tileset = \"x\"\n") && !is_tileset("[[tiles]]\nid = \"a\"\n"));
    }

    #[test]
    fn a_full_config_reads_back() {
        let text = "players = [\"Ann\", \"Bo\", \"Cy\"]\nseed = 7\ndraw = [\"U\", \"V\"]\ntile_limit = 2\n[base]\nedition = \"C2\"\n[[expansions]]\nid = \"traders-builders\"\nedition = \"C3\"\noptions = { builder_chain_unlimited = true }\n";
        let cfg = GameConfig::parse("g.toml", text).unwrap();
        assert_eq!(cfg.players, ["Ann", "Bo", "Cy"]);
        assert_eq!(cfg.seed, Some(7));
        assert_eq!(cfg.base.edition.as_deref(), Some("C2"));
        assert_eq!(cfg.expansions[0].id, "traders-builders");
        assert_eq!(cfg.expansions[0].options["builder_chain_unlimited"].value, Value::Bool(true));
        assert_eq!(cfg.expansions[0].options["builder_chain_unlimited"].at.as_ref().unwrap().line, 10);
        assert_eq!(cfg.draw.as_deref(), Some(&["U".to_string(), "V".to_string()][..]));
        let back = GameConfig::from_value(&cfg.to_value()).unwrap();
        assert_eq!(back.players, cfg.players);
        assert_eq!(back.expansions[0].options["builder_chain_unlimited"].value, Value::Bool(true));
    }

    #[test]
    fn keys_a_syntax_error_misplaced_are_not_called_unknown() {
        let err = GameConfig::parse("g.toml", "players = 2\n[base\nedition = \"C2\"\n").unwrap_err();
        assert_eq!(err.diagnostics.len(), 1, "{err}");
        assert!(err.diagnostics[0].message.starts_with("TOML syntax"), "{err}");
        // Before the syntax error, an unknown key is still one.
        let err = GameConfig::parse("g.toml", "colour = 1\n[base\n").unwrap_err().to_string();
        assert!(err.starts_with("g.toml:1:1: unknown key `colour`"), "{err}");
        // A value the parser could not read is not also of the wrong type, nor too large.
        for text in ["seed = 1 2\n", "seed = 01\n"] {
            let err = GameConfig::parse("g.toml", text).unwrap_err();
            assert_eq!(err.diagnostics.len(), 1, "{text}: {err}");
            assert!(err.diagnostics[0].message.starts_with("TOML syntax"), "{err}");
        }
    }

    #[test]
    fn a_bad_player_name_is_one_problem() {
        assert_eq!(problems("players = [\"Alice\", \"\"]\n"), ["g.toml:1:21: a player name must not be empty"]);
        assert_eq!(
            problems("players = [\"Alice\", 3]\n"),
            ["g.toml:1:21: `players` must hold names (strings), found an integer"]
        );
        assert_eq!(
            problems("players = [\"Alice\", \"Alice\"]\n"),
            ["g.toml:1:21: the player name \"Alice\" is given twice"]
        );
        assert_eq!(
            problems("players = [\"Al\\nice\", \"\\u202Eevil\", \"Zoë\"]\n"),
            [
                "g.toml:1:12: a player name must not hold control or text-direction characters (U+000A at character 3)",
                "g.toml:1:23: a player name must not hold control or text-direction characters (U+202E at character 1)",
            ]
        );
    }

    /// The problems of a config text, one line each.
    fn problems(text: &str) -> Vec<String> {
        let err = GameConfig::parse("g.toml", text).unwrap_err().to_string();
        err.lines().map(str::to_string).collect()
    }

    #[test]
    fn a_key_of_an_expansion_at_the_top_is_told_where_it_goes() {
        assert_eq!(
            problems("players = 2\ncopies = 2\n[base]\nedition = \"C2\"\n"),
            ["g.toml:2:1: `copies` belongs in `[base]` or an `[[expansions]]` entry, not at the top of the config"]
        );
    }

    #[test]
    fn an_expansion_named_by_a_string_is_shown_how_to_write_it() {
        assert_eq!(
            problems("expansions = [\"river\"]\n"),
            ["g.toml:1:15: an [[expansions]] entry is a table: write `{ id = \"river\" }`, not a string"]
        );
    }

    #[test]
    fn a_draw_and_a_tile_limit_must_make_a_game() {
        assert_eq!(
            problems("draw = []\ntile_limit = 100000000000\n"),
            [
                "g.toml:1:8: `draw` must name at least one tile (without it, tiles are drawn at random)",
                "g.toml:2:14: `tile_limit` is too large: at most 4294967295",
            ]
        );
    }

    #[test]
    fn a_list_of_too_many_players_still_has_its_names_checked() {
        let text = "players = [\"A\", \"A\", \"B\", \"C\", \"D\", \"E\", \"\"]\n";
        assert_eq!(
            problems(text),
            [
                "g.toml:1:11: a game needs 2 to 6 players, not 7",
                "g.toml:1:17: the player name \"A\" is given twice",
                "g.toml:1:42: a player name must not be empty",
            ]
        );
    }

    #[test]
    fn all_problems_at_once() {
        let text = "players = [\"Ann\"]\nseed = \"x\"\ncolour = 1\n[[expansions]]\nedition = 3\n";
        assert_eq!(
            problems(text),
            [
                "g.toml:1:11: a game needs 2 to 6 players, not 1",
                "g.toml:2:8: `seed` must be an integer, found a string",
                "g.toml:3:1: unknown key `colour` in the game config; expected one of: base, draw, expansions, players, seed, tile_limit, version",
                "g.toml:4:1: an [[expansions]] entry needs `id` (a string)",
                "g.toml:5:11: `edition` must be a string, found an integer",
            ]
        );
    }
}
