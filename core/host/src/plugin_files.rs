//! Where a native plugin's library is found on disk. Kept apart from `native`, whose calls
//! across the ABI are the hot path: code added here does not change how that is compiled.

use crate::native::{PluginLib, open};
use crate::paths::{data_root, display_path};
use std::path::{Path, PathBuf};

/// Where a library named `name` is looked for, in order.
pub fn search_dirs(manifest_dir: &Path) -> Vec<PathBuf> {
    // The manifest's folder, then the builds of a plugin crate kept there (outside this workspace).
    let mut dirs =
        vec![manifest_dir.to_path_buf(), manifest_dir.join("target/release"), manifest_dir.join("target/debug")];
    if let Some(extra) = std::env::var_os("MEEPLE_PLUGIN_DIR") {
        dirs.extend(std::env::split_paths(&extra));
    }
    // Beside the running program (target/<profile>/…), then the source tree's builds; each with
    // its deps/ folder, where Cargo leaves the plugins that are dependencies of meeple.
    let mut builds = Vec::new();
    if let Ok(exe) = std::env::current_exe()
        && let Some(profile) =
            exe.ancestors().find(|a| matches!(a.file_name().and_then(|n| n.to_str()), Some("debug" | "release")))
    {
        builds.push(profile.to_path_buf());
    }
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| data_root().join("target"), PathBuf::from);
    builds.push(target.join("release"));
    builds.push(target.join("debug"));
    for build in builds {
        let deps = build.join("deps");
        dirs.extend([build, deps]);
    }
    // The program's own build is often also the source tree's: each folder once.
    let mut seen = std::collections::HashSet::new();
    dirs.retain(|d| seen.insert(d.canonicalize().unwrap_or_else(|_| d.clone())));
    dirs
}

/// Finds and opens the library of a manifest's `[native] library`.
pub fn find(name: &str, manifest_dir: &Path) -> Result<&'static PluginLib, String> {
    let file = libloading::library_filename(name);
    let dirs = search_dirs(manifest_dir);
    let Some(path) = dirs.iter().map(|d| d.join(&file)).find(|p| p.is_file()) else {
        let looked: Vec<String> = dirs.iter().map(|d| display_path(d)).collect();
        // Cargo names the library of crate `long-roads` `liblong_roads.so`.
        let underscored = name.replace('-', "_");
        let hint = if underscored != name
            && dirs.iter().any(|d| d.join(libloading::library_filename(&underscored)).is_file())
        {
            format!("; Cargo writes `-` in a crate's name as `_`: did you mean `library = \"{underscored}\"`?")
        } else {
            "; build it (`cargo build --release` in its crate), or name the folder holding it in \
             MEEPLE_PLUGIN_DIR"
                .to_string()
        };
        return Err(format!(
            "native library `{}` not found (looked in: {}){hint}",
            file.to_string_lossy(),
            looked.join(", ")
        ));
    };
    open(&path)
}
