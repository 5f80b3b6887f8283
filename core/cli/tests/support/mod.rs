//! What several of the program's test files need.

// Each test file is a crate of its own, and uses only some of these.
#![allow(dead_code)]

use std::path::Path;
use std::process::Command;

/// Builds a fixture plugin of the workspace (`meeple-fixture-…`) in the profile the tests run
/// in, where meeple looks for it: the tests that load it cannot count on another test's build.
pub fn build_fixture(package: &str) {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let mut build = Command::new(env!("CARGO"));
    build.current_dir(&repo).args(["build", "--quiet", "-p", package]);
    if !cfg!(debug_assertions) {
        build.arg("--release");
    }
    assert!(build.status().unwrap().success(), "the fixture {package} builds");
}

/// An empty folder of the test's own, `meeple-<what>-…` in the temporary folder, removed when the
/// value is dropped, whether the test passed or not.
pub fn scratch(what: &str) -> tempfile::TempDir {
    tempfile::Builder::new().prefix(&format!("meeple-{what}-")).tempdir().unwrap()
}
