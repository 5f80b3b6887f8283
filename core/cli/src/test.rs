//! `meeple test PATH…`: run scenario files (a mod's rule tests).

use crate::common::{CliError, say};
use meeple_host::load::from_config;
use meeple_host::scenario::{run_scenario, scenario_files};
use std::path::PathBuf;

/// Arguments of `meeple test`.
#[derive(clap::Args)]
pub struct Args {
    /// Scenario files, or folders searched for them.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
}

/// Runs every scenario; fails if one does.
pub fn run(args: Args, mods: &[PathBuf]) -> Result<(), CliError> {
    let missing: Vec<String> = args
        .paths
        .iter()
        .filter(|p| !p.exists())
        .map(|p| format!("{}: no such file or folder{}", p.display(), meeple_host::paths::hint_for_missing(p)))
        .collect();
    if !missing.is_empty() {
        return Err(CliError::Usage(missing.join("\n")));
    }
    let (mut files, mut empty) = (Vec::new(), Vec::new());
    for p in &args.paths {
        if !p.is_dir() {
            files.push(p.clone());
            continue;
        }
        let found = scenario_files(p);
        // A folder named by mistake must not pass as a test run of nothing.
        if found.is_empty() {
            let place = if p.join("expansion.toml").is_file() { "in its tests/ folder" } else { "under it" };
            empty.push(format!("{}: no scenario files (`*.toml`) {place}", p.display()));
        }
        files.extend(found);
    }
    if !empty.is_empty() {
        return Err(CliError::Usage(empty.join("\n")));
    }
    // A mod outside the mod folders is found from the scenarios inside it.
    let mods = meeple_host::check::mods_holding(&files, mods);
    // A library that looks out of date is told once, before the first scenario that plays it.
    let told = std::cell::RefCell::new(std::collections::BTreeSet::new());
    let load = |config: &meeple_host::GameConfig| {
        let loaded = from_config(config, &mods)?;
        for warning in loaded.stale_libraries() {
            if told.borrow_mut().insert(warning.clone()) {
                say!("warning: {warning}");
            }
        }
        Ok(loaded)
    };
    let mut failed = 0;
    for f in &files {
        if let Some(warning) = meeple_host::check::scenario_misses_its_mod(f) {
            say!("warning: {warning}");
        }
        match run_scenario(f, &load) {
            Ok(()) => say!("ok      {}", f.display()),
            Err(e) => {
                failed += 1;
                say!(
                    "FAILED  {}\n{}\n",
                    f.display(),
                    e.lines().map(|l| format!("        {l}")).collect::<Vec<_>>().join("\n")
                );
            }
        }
    }
    let noun = if files.len() == 1 { "scenario" } else { "scenarios" };
    say!("{} {noun}, {} failed", files.len(), failed);
    if failed > 0 { Err(CliError::Reported) } else { Ok(()) }
}
