//! `meeple new DIR`: a new mod from a template, ready to check, test and play.

use crate::common::{CliError, say};
use meeple_host::new_mod;
use meeple_host::paths::display_path;
use std::path::PathBuf;

/// Arguments of `meeple new`.
#[derive(clap::Args)]
pub struct Args {
    /// The new mod's folder (it must not exist, or be empty), such as mods/chapels.
    dir: PathBuf,
    /// The expansion's id (default: the folder's name).
    #[arg(long)]
    id: Option<String>,
    /// A native plugin (a Rust crate on meeple's SDK, copied from the modding guide's) rather
    /// than a Luau script.
    #[arg(long)]
    native: bool,
}

/// Copies the template into the new folder and says what to run next.
pub fn run(args: Args, mods: &[PathBuf]) -> Result<(), CliError> {
    let id = args.id.as_deref();
    let made = if args.native {
        new_mod::create_native(&new_mod::native_template_dir(), &args.dir, id, mods)
    } else {
        new_mod::create(&new_mod::template_dir(), &args.dir, id, mods)
    }
    .map_err(CliError::Usage)?;
    let dir = display_path(&made.dir);
    let from = if args.native {
        "the native plugin of docs/modding.md (a rule in Rust, a scenario test)"
    } else {
        "the template (a tile, a rule, a scenario test)"
    };
    say!("made {dir}: the expansion `{}`, copied from {from}", made.id);
    for file in &made.files {
        say!("  {}", display_path(file));
    }
    say!("next:");
    if args.native {
        say!("  cargo build --release --manifest-path {dir}/Cargo.toml   # its library");
    }
    let code = if args.native { "library" } else { "script" };
    say!("  meeple check {dir}                  # manifest, tiles and {code}; plays a hundred games with it");
    say!("  meeple test {dir}                   # its scenario test");
    say!("  {}   # a game with it", made.play_command());
    // The copy still plays the template's rule under the template's name, options and test.
    let code = if args.native { "src/lib.rs" } else { "init.luau" };
    let test = made.files.iter().find(|f| f.parent().is_some_and(|p| p.ends_with("tests")));
    let test = test.map_or(String::new(), |t| format!(", its scenario in {}", display_path(t)));
    say!("then make it yours: its `name` (shown in games) and options in {dir}/expansion.toml, the rule in");
    say!("  {dir}/{code}{test}");
    if args.native {
        say!("  the guide: {}, \"Native plugins\"", doc("docs/modding.md"));
        say!("  the API (the SDK and meeple_core): cargo doc --open --manifest-path {dir}/Cargo.toml");
    } else {
        say!("  the guide: {}", doc("docs/modding.md"));
        say!("  the API: {}", doc("docs/lua-api.md"));
        say!("  its types, for luau-lsp in an editor: {}", doc("docs/meeple.d.luau"));
    }
    say!("  the format of its scenarios ({dir}/tests/*.toml): {}", doc("docs/scenarios.md"));
    Ok(())
}

/// Where one of meeple's documents is: in its source tree (or `MEEPLE_HOME`) when that holds
/// it, so that a mod made in any folder is told a path that opens; else its place in the source.
fn doc(name: &str) -> String {
    let path = meeple_host::paths::data_root().join(name);
    if path.is_file() { display_path(&path) } else { name.to_string() }
}
