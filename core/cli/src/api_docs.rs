//! `meeple api-docs`: write (or check) the generated Luau API reference and definitions, and the
//! protocol's JSON Schema.

use crate::common::{CliError, say};
use meeple_host::luau::docs::{lua_api_markdown, luau_definitions};
use meeple_host::paths::data_root;

/// Arguments of `meeple api-docs`.
#[derive(clap::Args)]
pub struct Args {
    /// Only check that the committed files are up to date.
    #[arg(long)]
    check: bool,
}

/// The generated files and their contents.
fn files() -> [(std::path::PathBuf, String); 3] {
    let docs = data_root().join("docs");
    [
        (docs.join("lua-api.md"), lua_api_markdown()),
        (docs.join("meeple.d.luau"), luau_definitions()),
        (docs.join("protocol.schema.json"), meeple_protocol::messages::schema()),
    ]
}

/// Writes the files, or checks them.
pub fn run(args: Args) -> Result<(), CliError> {
    for (path, text) in files() {
        if args.check {
            let current = std::fs::read_to_string(&path).unwrap_or_default();
            if current != text {
                return Err(CliError::Usage(format!("{} is stale: run `meeple api-docs`", path.display())));
            }
            say!("{} is up to date", path.display());
        } else {
            crate::common::write_file(&path, text.as_bytes())?;
            say!("wrote {}", path.display());
        }
    }
    Ok(())
}
