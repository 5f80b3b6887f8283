//! Where meeple finds its data: built-in expansions, tilesets and configs, and extra mod folders.

use std::path::{Component, Path, PathBuf};

/// The folder holding `scripts/`, `plugins/`, `tilesets/` and `configs/`: `$MEEPLE_HOME` if set,
/// else the source tree meeple was built from, else the current folder.
pub fn data_root() -> PathBuf {
    if let Some(home) = std::env::var_os("MEEPLE_HOME") {
        return PathBuf::from(home);
    }
    let built = normalise(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."));
    if built.join("scripts").is_dir() {
        return built;
    }
    std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."))
}

/// Folders searched for expansions, in order: the built-in `scripts/` and `plugins/`, the
/// folders in `$MEEPLE_MODS` (separated like `PATH`), then `extra` (`--mods DIR`).
pub fn mod_roots(extra: &[PathBuf]) -> Vec<PathBuf> {
    let root = data_root();
    let mut roots = vec![root.join("scripts"), root.join("plugins")];
    roots.extend(mods_from_env());
    roots.extend(extra.iter().cloned());
    roots
}

/// The folders of `$MEEPLE_MODS` (separated like `PATH`), none when it is not set.
pub fn mods_from_env() -> Vec<PathBuf> {
    std::env::var_os("MEEPLE_MODS").map(|v| std::env::split_paths(&v).collect()).unwrap_or_default()
}

/// For a relative path that is not there: the same path below [`data_root`] when that one is,
/// told as a hint to append to "no such file" (the README's paths are relative to the source
/// tree, and are tried from other folders too). Empty otherwise.
pub fn hint_for_missing(path: &Path) -> String {
    let home = data_root().join(path);
    if path.is_relative() && !path.exists() && home.exists() {
        format!("; meeple's own is {}", display_path(&home))
    } else {
        String::new()
    }
}

/// A path as people want to read it: relative to the current folder when possible, `..` folded.
pub fn display_path(path: &Path) -> String {
    let clean = normalise(path);
    let cwd = std::env::current_dir().map(|c| normalise(&c)).unwrap_or_default();
    let shown = clean.strip_prefix(&cwd).unwrap_or(&clean).display().to_string();
    // The working directory itself is `.`, not nothing.
    if shown.is_empty() { ".".to_string() } else { shown }
}

/// Folds `.` and `..` without touching the file system.
pub fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            // Above the root is the root; above the start of a relative path is `..`.
            Component::ParentDir => match out.components().next_back() {
                Some(Component::Normal(_)) => {
                    out.pop();
                }
                Some(Component::RootDir | Component::Prefix(_)) => {}
                _ => out.push(".."),
            },
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Whether two paths name one file (Cargo hard-links a build into `target/release` from `deps/`).
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) if a == b => true,
        _ => {
            #[cfg(unix)]
            {
                use std::os::unix::fs::MetadataExt;
                matches!((std::fs::metadata(a), std::fs::metadata(b)), (Ok(x), Ok(y)) if x.dev() == y.dev() && x.ino() == y.ino())
            }
            #[cfg(not(unix))]
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::normalise;
    use std::path::Path;

    #[test]
    fn dot_dot_is_folded_and_kept_where_it_leads_out() {
        assert_eq!(normalise(Path::new("m/a/../b/./c")), Path::new("m/b/c"));
        assert_eq!(normalise(Path::new("m/a/../../../etc/x")), Path::new("../etc/x"));
        assert_eq!(normalise(Path::new("../../x")), Path::new("../../x"));
        assert_eq!(normalise(Path::new("/a/../../etc")), Path::new("/etc"));
    }
}
