//! Runs every scenario in `tests/scenarios/` (format: `tests/README.md`), in each shipped
//! expansion's `tests/` and in each test expansion's (`tests/mods/*/tests`).

use meeple_tests::{repo, run_scenario, scenario_files};

#[test]
fn every_scenario_holds() {
    let mut files = scenario_files(&repo().join("tests/scenarios"));
    // Each expansion's own scenarios: the shipped ones (the template's among them) and the test
    // expansions, whose Rust code only this crate holds.
    for root in ["scripts", "plugins", "tests/mods"] {
        for dir in std::fs::read_dir(repo().join(root)).unwrap().flatten() {
            files.extend(scenario_files(&dir.path().join("tests")));
        }
    }
    assert!(files.len() >= 10, "scenario files are missing");
    let failures: Vec<String> = files
        .iter()
        .filter_map(|f| {
            run_scenario(f).err().map(|e| format!("{}:\n{e}", f.strip_prefix(repo()).unwrap_or(f).display()))
        })
        .collect();
    assert!(
        failures.is_empty(),
        "{} of {} scenarios failed:\n\n{}",
        failures.len(),
        files.len(),
        failures.join("\n\n")
    );
}
