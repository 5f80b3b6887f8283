//! `docs/modding.md`, followed as a new modder would: its commands of steps 2 to 5 are read from
//! the guide itself and run in a fresh folder, the edits it asks for in words are made, and what
//! it says each step shows is checked. A guide whose commands or output drift fails here.

#![cfg(unix)] // the guide is written for a POSIX shell

mod support;

use std::path::Path;
use std::process::Command;
use tempfile::TempDir;

/// The guide's text between the headings that start with `from` and `to`.
fn section<'a>(guide: &'a str, from: &str, to: &str) -> &'a str {
    let start = guide.find(from).unwrap_or_else(|| panic!("the guide has no `{from}`"));
    let end = guide[start..].find(to).map_or(guide.len(), |e| start + e);
    &guide[start..end]
}

/// The fenced blocks of a section with their info string (`sh`, `toml`, or empty), in order.
fn blocks(text: &str) -> Vec<(&str, String)> {
    let mut found = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if let Some(info) = line.strip_prefix("```") {
            let body: Vec<&str> = lines.by_ref().take_while(|l| !l.starts_with("```")).collect();
            found.push((info.trim(), body.join("\n") + "\n"));
        }
    }
    found
}

/// The only block of `kind` in a section.
fn block<'a>(blocks: &'a [(&str, String)], kind: &str) -> &'a str {
    let of_kind: Vec<&String> = blocks.iter().filter(|(k, _)| *k == kind).map(|(_, b)| b).collect();
    assert_eq!(of_kind.len(), 1, "one `{kind}` block expected: {blocks:#?}");
    of_kind[0]
}

/// Runs a block of shell commands in `dir`, with the built `meeple` first on the `PATH`;
/// returns its exit status and what it printed.
fn shell(dir: &Path, script: &str) -> (bool, String) {
    let bin = Path::new(env!("CARGO_BIN_EXE_meeple")).parent().unwrap();
    let path = std::env::join_paths(
        std::iter::once(bin.to_path_buf()).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default())),
    )
    .unwrap();
    let out = Command::new("sh")
        .args(["-e", "-c", script])
        .current_dir(dir)
        .env("PATH", path)
        .env_remove("MEEPLE_MODS")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text)
}

/// Replaces `from` with `to` in a file, where the guide asks for that edit in words.
fn edit(file: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.contains(from), "{} has no `{from}` to change", file.display());
    std::fs::write(file, text.replacen(from, to, 1)).unwrap();
}

/// A folder standing for the root of the source tree: the built-in expansions, and nothing of
/// a modder's yet.
fn fresh_tree(name: &str) -> TempDir {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let dir = support::scratch(&format!("guide-{name}"));
    std::os::unix::fs::symlink(repo.join("scripts").canonicalize().unwrap(), dir.path().join("scripts")).unwrap();
    dir
}

#[test]
fn the_modding_guide_works_as_written() {
    let guide = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/modding.md")).unwrap();
    let tmp = fresh_tree("script");
    let dir = tmp.path();

    // 2. Copy the template under its own id: what the guide shows is printed (up to its `…`),
    // and the copy names itself everywhere the template named itself.
    let copy = blocks(section(&guide, "## 2.", "## 3."));
    let (ok, out) = shell(dir, block(&copy, "sh"));
    assert!(ok, "step 2: {out}");
    let shown = block(&copy, "");
    let shown = &shown[..shown.find("  …").expect("step 2's output ends in `…`")];
    assert!(out.starts_with(shown), "step 2 prints what the guide shows:\n{out}");
    let chapels = dir.join("mods/chapels");
    let scenario = chapels.join("tests/chapel-beside-city.toml");
    for file in [chapels.join("expansion.toml"), chapels.join("tiles.toml"), scenario.clone()] {
        let text = std::fs::read_to_string(&file).unwrap();
        assert!(text.contains("id = \"chapels\"") && !text.contains("\"template\""), "{}:\n{text}", file.display());
    }
    let text = std::fs::read_to_string(&scenario).unwrap();
    assert!(text.contains("source = \"mods/chapels/init.luau\""), "{text}");

    // 3. Check it: the output is the guide's, line for line.
    let check = blocks(section(&guide, "## 3.", "## 4."));
    let (ok, out) = shell(dir, block(&check, "sh"));
    assert!(ok, "step 3: {out}");
    assert_eq!(out, block(&check, ""), "step 3 prints what the guide shows");

    // 4. Play it: the game config step 2 wrote is the guide's; with the bonus the guide asks for,
    // the rule's log line shows.
    let play = blocks(section(&guide, "## 4.", "## 5."));
    let game = chapels.join("game.toml");
    let written = std::fs::read_to_string(&game).unwrap();
    let config: String = written.lines().filter(|l| !l.starts_with('#')).map(|l| format!("{l}\n")).collect();
    assert_eq!(config, block(&play, "toml"), "step 4 shows the game config step 2 wrote");
    assert!(section(&guide, "## 4.", "## 5.").contains("`options = { bonus = 3 }` under `id = \"chapels\"`"));
    edit(&game, "id = \"chapels\"\n", "id = \"chapels\"\noptions = { bonus = 3 }\n");
    let (ok, out) = shell(dir, block(&play, "sh"));
    assert!(ok, "step 4: {out}");
    let said = section(&guide, "## 4.", "## 5.");
    let example = said.split("e.g.\n`").nth(1).and_then(|s| s.split('`').next()).expect("step 4's example line");
    let rule = example.trim_end_matches(char::is_numeric);
    assert!(out.contains(rule), "step 4 shows `{rule}…`:\n{out}");
    assert!(out.contains("completed monastery") || out.contains("unfinished monastery"), "{out}");

    // 5. Test it: the scenario passes on the copy.
    let test = blocks(section(&guide, "## 5.", "## 6."));
    let (ok, out) = shell(dir, block(&test, "sh"));
    assert!(ok && out.contains("1 scenario, 0 failed"), "step 5: {out}");
    // A mod in a folder meeple searches anyway is not found twice from its scenarios.
    let template = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/template/tests");
    let (ok, out) = shell(dir, &format!("meeple test {}", template.display()));
    assert!(ok && out.contains("1 scenario, 0 failed"), "the template's own scenario: {out}");

    // 6. The edit the guide suggests is one a modder can make where it says, and it takes: a
    // monastery scored unfinished no longer gets the bonus, so the scenario's numbers change.
    let init = chapels.join("init.luau");
    let handler = std::fs::read_to_string(&init).unwrap();
    let ifs: Vec<&str> =
        handler[handler.find("meeple.on(\"modify_score\"").unwrap()..].lines().filter(|l| l.contains("if ")).collect();
    assert!(section(&guide, "## 6.", "## What").contains("or not scoring.completed"), "the suggested edit");
    let first = ifs.first().expect("an `if` in the modify_score handler");
    edit(&init, first, &first.replace(" then", " or not scoring.completed then"));
    let (ok, out) = shell(dir, block(&test, "sh"));
    assert!(!ok && out.contains("expected [8, 0], got [6, 0]"), "the changed rule shows in the test: {out}");
}

#[test]
fn the_game_a_new_native_plugin_comes_with_shows_its_rule() {
    // The copy's own crate would take minutes to build: its game config is played with the
    // template it copies, the long-roads fixture, which is the same code.
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    support::build_fixture("meeple-fixture-long-roads");
    let tmp = fresh_tree("native");
    let dir = tmp.path();
    let (ok, out) = shell(dir, "meeple new mods/bridges --native");
    assert!(ok, "{out}");
    let written = std::fs::read_to_string(dir.join("mods/bridges/game.toml")).unwrap();
    let config = written.replace("id = \"bridges\"", "id = \"long-roads\"");
    assert_ne!(config, written, "{written}");
    std::fs::write(dir.join("long-roads.toml"), config).unwrap();
    let fixtures = repo.join("plugins/fixtures").canonicalize().unwrap();
    let (ok, out) = shell(dir, &format!("meeple play --mods {} long-roads.toml -o game.json", fixtures.display()));
    assert!(ok, "{out}");
    assert!(out.contains("a long road: +1 each"), "the guide says it shows beside the roads it scores:\n{out}");
}
