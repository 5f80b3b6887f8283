//! Where a native plugin's library is found on disk. Kept apart from `native`, whose calls
//! across the ABI are the hot path: code added here does not change how that is compiled.

use crate::native::{PluginLib, open};
use crate::paths::{data_root, display_path};
use std::path::{Path, PathBuf};

/// Where a library named `name` is looked for, in order.
pub fn search_dirs(manifest_dir: &Path) -> Vec<PathBuf> {
    let extra = std::env::var_os("MEEPLE_PLUGIN_DIR").map(|e| std::env::split_paths(&e).collect()).unwrap_or_default();
    let exe = std::env::current_exe().ok();
    dirs_in_order(manifest_dir, extra, exe.as_deref(), std::env::var_os("CARGO_TARGET_DIR").map(PathBuf::from))
}

/// [`search_dirs`] from the environment's values: the folders of `MEEPLE_PLUGIN_DIR`, the
/// running program, `CARGO_TARGET_DIR`.
fn dirs_in_order(
    manifest_dir: &Path,
    extra: Vec<PathBuf>,
    exe: Option<&Path>,
    cargo_target: Option<PathBuf>,
) -> Vec<PathBuf> {
    // The manifest's folder, then the builds of a plugin crate kept there (outside this workspace).
    let mut dirs =
        vec![manifest_dir.to_path_buf(), manifest_dir.join("target/release"), manifest_dir.join("target/debug")];
    dirs.extend(extra);
    // Beside the running program, as an installed meeple keeps its plugins; its build folder
    // (target/<profile>/…), then the source tree's builds: each build with its deps/ folder,
    // where Cargo leaves the plugins that are dependencies of meeple.
    dirs.extend(exe.and_then(Path::parent).map(Path::to_path_buf));
    let mut builds = Vec::new();
    if let Some(profile) = exe.and_then(|e| {
        e.ancestors().find(|a| matches!(a.file_name().and_then(|n| n.to_str()), Some("debug" | "release")))
    }) {
        builds.push(profile.to_path_buf());
    }
    // A program of the user's own built elsewhere (`CARGO_TARGET_DIR`) finds the plugins that
    // the source tree's commands built.
    for target in cargo_target.into_iter().chain([data_root().join("target")]) {
        builds.push(target.join("release"));
        builds.push(target.join("debug"));
    }
    for build in builds {
        let deps = build.join("deps");
        dirs.extend([build, deps]);
    }
    // The program's own build is often also the source tree's: each folder once.
    let mut seen = std::collections::HashSet::new();
    dirs.retain(|d| seen.insert(d.canonicalize().unwrap_or_else(|_| d.clone())));
    dirs
}

/// Finds and opens the library of a manifest's `[native] library`. Once found for a manifest,
/// the same library serves it for the rest of the process, wherever a newer build appears
/// later (a copy in `deps/` newer than the one beside it, say): a running program plays the
/// build it first loaded, as `meeple play --watch` tells when a library changes on disk.
pub fn find(name: &str, manifest_dir: &Path) -> Result<&'static PluginLib, String> {
    let key = found_key(name, manifest_dir);
    if let Some(lib) = FOUND.lock().ok().and_then(|f| f.as_ref()?.get(&key).copied()) {
        return Ok(lib);
    }
    let path = locate(name, manifest_dir)?;
    // Which build a program plays is not always the one its author means (another checkout's
    // `target/`, an old copy beside the manifest): `-v` tells.
    tracing::info!(target: "meeple::plugin", "library `{name}`: {}", display_path(&path));
    let lib = open(&path)?;
    if let Ok(mut found) = FOUND.lock() {
        found.get_or_insert_with(Default::default).insert(key, lib);
    }
    Ok(lib)
}

/// The libraries [`find`] found, by library name and manifest folder.
type Found = std::collections::HashMap<(String, PathBuf), &'static PluginLib>;
static FOUND: std::sync::Mutex<Option<Found>> = std::sync::Mutex::new(None);

fn found_key(name: &str, manifest_dir: &Path) -> (String, PathBuf) {
    (name.to_string(), manifest_dir.canonicalize().unwrap_or_else(|_| manifest_dir.to_path_buf()))
}

/// The file a manifest's `[native] library` plays: the one [`find`] opened for it in this
/// process, else the one it would open.
pub fn played(name: &str, manifest_dir: &Path) -> Result<PathBuf, String> {
    let key = found_key(name, manifest_dir);
    match FOUND.lock().ok().and_then(|f| Some(f.as_ref()?.get(&key)?.path.clone())) {
        Some(path) => Ok(path),
        None => locate(name, manifest_dir),
    }
}

/// The file of a manifest's `[native] library`, or why there is none: where it was looked for.
pub fn locate(name: &str, manifest_dir: &Path) -> Result<PathBuf, String> {
    let file = libloading::library_filename(name);
    let dirs = search_dirs(manifest_dir);
    let Some(path) = dirs.iter().find(|d| d.join(&file).is_file()).map(|d| newest(d, &file)) else {
        let looked: Vec<String> = dirs.iter().map(|d| display_path(d)).collect();
        // Cargo names the library of crate `long-roads` `liblong_roads.so`.
        let underscored = name.replace('-', "_");
        let crate_lib = crate_library(manifest_dir);
        let hint = if underscored != name
            && dirs.iter().any(|d| d.join(libloading::library_filename(&underscored)).is_file())
        {
            format!("; Cargo writes `-` in a crate's name as `_`: did you mean `library = \"{underscored}\"`?")
        } else if let Some(built) = crate_lib.as_deref().filter(|b| *b != name) {
            // The crate beside the manifest builds a library of another name.
            format!(
                "; the crate beside it, {}, builds `{}`: did you mean `library = \"{built}\"`?",
                display_path(&manifest_dir.join("Cargo.toml")),
                libloading::library_filename(built).to_string_lossy()
            )
        } else if crate_lib.is_some() {
            format!(
                "; build it (`cargo build --release --manifest-path {}`), or name the folder holding it in \
                 MEEPLE_PLUGIN_DIR{}",
                display_path(&manifest_dir.join("Cargo.toml")),
                elsewhere_built()
            )
        } else {
            format!(
                "; build it (`cargo build --release` in its crate), or name the folder holding it in \
                 MEEPLE_PLUGIN_DIR{}",
                elsewhere_built()
            )
        };
        return Err(format!(
            "native library `{}` not found (looked in: {}){hint}",
            file.to_string_lossy(),
            looked.join(", ")
        ));
    };
    Ok(path)
}

/// Where a build may have gone that the search does not look: with `CARGO_TARGET_DIR` set when
/// the plugin was built, but not for meeple, or a target folder set in Cargo's own config.
fn elsewhere_built() -> &'static str {
    if std::env::var_os("CARGO_TARGET_DIR").is_some() {
        ""
    } else {
        " (a build with CARGO_TARGET_DIR set, or with a target folder in Cargo's config, goes to that \
         folder: set CARGO_TARGET_DIR for meeple too)"
    }
}

/// The library name (`[native] library`) of the crate whose `Cargo.toml` is in `dir`, if there
/// is one that builds a library: its `[lib] name`, or its package's name with `-` written `_`.
fn crate_library(dir: &Path) -> Option<String> {
    let text = std::fs::read_to_string(dir.join("Cargo.toml")).ok()?;
    let doc: toml::Table = toml::from_str(&text).ok()?;
    let lib_name = doc.get("lib").and_then(|l| l.get("name")).and_then(|n| n.as_str());
    let package = doc.get("package").and_then(|p| p.get("name")).and_then(|n| n.as_str());
    Some(lib_name.or(package)?.replace('-', "_"))
}

/// Why the library a manifest's `[native] library` finds may not be the build its author
/// means, if it may not: its crate's sources (a `Cargo.toml` and `src/` beside the manifest)
/// changed after it was built, or a later folder of the search holds a newer copy, which the
/// first one found hides. Nothing when the library is not found (loading says that).
pub fn stale(name: &str, manifest_dir: &Path) -> Vec<String> {
    let Ok(found) = played(name, manifest_dir) else { return Vec::new() };
    let Some(built) = modified(&found) else { return Vec::new() };
    let shown = display_path(&found);
    let file = libloading::library_filename(name);
    // Reversed: of copies as new (a build and its hard link in `deps/`), the first is named.
    let newer = search_dirs(manifest_dir)
        .iter()
        .flat_map(|d| [d.join(&file), d.join("deps").join(&file)])
        .rev()
        .filter_map(|p| Some((modified(&p)?, p)))
        .filter(|(t, p)| *t > built && !crate::paths::same_file(p, &found) && !other_profile(p, &found))
        .max_by_key(|(t, _)| *t);
    let mut out = Vec::new();
    if crate_library(manifest_dir).as_deref() == Some(name) {
        let mut sources = vec![manifest_dir.join("Cargo.toml")];
        crate::ruleset::collect_files(&manifest_dir.join("src"), "rs", &mut sources);
        let changed =
            sources.iter().filter_map(|s| Some((s, modified(s)?))).filter(|(_, t)| *t > built).max_by_key(|(_, t)| *t);
        // Rebuilt since, into a folder the search comes to later: the warning below says so,
        // and a rebuild would go there again.
        let rebuilt = |changed: std::time::SystemTime| newer.as_ref().is_some_and(|(t, _)| *t >= changed);
        if let Some((source, _)) = changed.filter(|(_, t)| !rebuilt(*t)) {
            out.push(format!(
                "{shown} was built before {} last changed: rebuild it (`cargo build --release --manifest-path {}`)",
                display_path(source),
                display_path(&manifest_dir.join("Cargo.toml"))
            ));
        }
    }
    if let Some((_, newer)) = newer {
        out.push(format!(
            "{shown} is played, but {} is newer: the first folder of the search that holds the library wins \
             (docs/modding.md, \"Native plugins\"); delete the copy that is out of date",
            display_path(&newer)
        ));
    }
    out
}

/// Whether two libraries are builds of one target folder (`target/release` and `target/debug`):
/// those are two profiles of the same sources, not a copy left behind.
fn other_profile(a: &Path, b: &Path) -> bool {
    let target = |p: &Path| {
        p.ancestors()
            .find(|a| matches!(a.file_name().and_then(|n| n.to_str()), Some("debug" | "release")))
            .and_then(Path::parent)
            .map(|t| t.canonicalize().unwrap_or_else(|_| t.to_path_buf()))
    };
    target(a).is_some_and(|t| Some(t) == target(b))
}

fn modified(p: &Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(p).and_then(|m| m.modified()).ok()
}

/// A source file a plugin names (a panic's place: relative to its Cargo workspace, the crate's
/// own folder or meeple's source tree, or absolute) as a path inside `dir`, if it is a file there.
pub(crate) fn in_folder(file: &Path, dir: &Path) -> Option<PathBuf> {
    let dir = dir.canonicalize().ok()?;
    [dir.join(file), data_root().join(file)]
        .into_iter()
        .filter_map(|p| p.canonicalize().ok())
        .find(|p| p.is_file() && p.starts_with(&dir))
        .and_then(|p| p.strip_prefix(&dir).ok().map(Path::to_path_buf))
}

/// The library in a folder, or the one in its `deps/` if that is newer. Cargo rebuilds a
/// plugin that meeple depends on in `deps/` and refreshes the copy beside it only when the
/// plugin is built on its own, so the copy beside it can be an old build.
fn newest(dir: &Path, file: &std::ffi::OsStr) -> PathBuf {
    let (beside, deps) = (dir.join(file), dir.join("deps").join(file));
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if deps.is_file() && modified(&deps) > modified(&beside) { deps } else { beside }
}

/// Whether a library file holds all that its headers describe. The system's loader maps an
/// ELF file's segments as its program headers say and trusts them: a file cut short (one still
/// being written by a build) kills the program with a bus error when the loader touches the
/// missing part, before it could report anything. Other formats are left to the loader.
pub(crate) fn check_complete(path: &Path) -> Result<(), String> {
    use std::io::Read;
    let cannot = |e: std::io::Error| format!("cannot read: {e}");
    let mut file = std::fs::File::open(path).map_err(cannot)?;
    let len = file.metadata().map_err(cannot)?.len();
    // The ELF header and the program headers come first, in well under 64 KiB.
    let mut head = Vec::new();
    file.by_ref().take(64 << 10).read_to_end(&mut head).map_err(cannot)?;
    match elf_extent(&head) {
        Some(needed) if needed > len => Err(format!(
            "the library is cut short: its headers describe {needed} bytes, the file has {len} (is it still being written?)"
        )),
        _ => Ok(()),
    }
}

/// How many bytes an ELF file's program headers say it has: the end of their table or of the
/// furthest segment. `head` is the file's start; `None` for a file that is not ELF, or whose
/// header is not all in `head` (the loader refuses those with a message of its own).
fn elf_extent(head: &[u8]) -> Option<u64> {
    if head.get(..4)? != b"\x7fELF" {
        return None;
    }
    let wide = match head.get(4)? {
        1 => false,
        2 => true,
        _ => return None,
    };
    let little = *head.get(5)? == 1;
    let int = |at: usize, size: usize| -> Option<u64> {
        let raw = head.get(at..at.checked_add(size)?)?;
        Some(raw.iter().enumerate().fold(0u64, |n, (i, &byte)| {
            let shift = if little { 8 * i } else { 8 * (size - 1 - i) };
            n | (byte as u64) << shift
        }))
    };
    let word = if wide { 8 } else { 4 };
    // e_phoff, then (past e_shoff, e_flags and e_ehsize) e_phentsize and e_phnum.
    let phoff = int(0x18 + word, word)?;
    let sizes = 0x18 + 3 * word + 6;
    let (phent, phnum) = (int(sizes, 2)?, int(sizes + 2, 2)?);
    let mut end = phoff.saturating_add(phent * phnum);
    // A table that is not all in `head`: its end is what can be told (past a short file's end).
    if end > head.len() as u64 {
        return Some(end);
    }
    for i in 0..phnum {
        let h = usize::try_from(phoff + i * phent).ok()?;
        // p_offset and p_filesz of a program header.
        let (offset, size) =
            if wide { (int(h + 8, 8)?, int(h + 0x20, 8)?) } else { (int(h + 4, 4)?, int(h + 0x10, 4)?) };
        end = end.max(offset.saturating_add(size));
    }
    Some(end)
}

#[cfg(test)]
mod tests {
    use super::dirs_in_order;
    use crate::paths::data_root;
    use std::path::{Path, PathBuf};

    #[test]
    fn a_program_built_elsewhere_still_looks_in_the_source_trees_builds() {
        // The program outside both, so that only `CARGO_TARGET_DIR` names the first.
        let elsewhere = PathBuf::from("/elsewhere/target");
        let exe = PathBuf::from("/usr/local/bin/my-bot");
        let dirs = dirs_in_order(Path::new("mods/x"), vec![], Some(&exe), Some(elsewhere.clone()));
        let at = |d: &Path| dirs.iter().position(|x| x == d);
        let own = data_root().join("target/release");
        assert!(at(&elsewhere.join("release")).is_some() && at(&elsewhere.join("release")) < at(&own), "{dirs:?}");
        assert!(at(&own).is_some() && at(&own.join("deps")).is_some(), "{dirs:?}");
        assert_eq!(dirs[..3], [PathBuf::from("mods/x"), "mods/x/target/release".into(), "mods/x/target/debug".into()]);
        // An installed program's plugins are beside it, before any build.
        assert_eq!(dirs[3], PathBuf::from("/usr/local/bin"), "{dirs:?}");
    }
}
