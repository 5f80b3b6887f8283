//! The README's "From Rust" example is `examples/readme.rs` of this crate, which `cargo test`
//! builds: a change to the crates that breaks the example fails the build, and a README that
//! drifts from the example fails here.

use meeple_tests::repo;

/// The lines of `text` with their runs of spaces made one (rustfmt aligns the example's
/// comments otherwise than the README does), blank ones left out.
fn normalised(text: &str) -> Vec<String> {
    text.lines().map(|l| l.split_whitespace().collect::<Vec<_>>().join(" ")).filter(|l| !l.is_empty()).collect()
}

#[test]
fn the_readmes_rust_example_is_the_compiled_one() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let start = readme.find("```rust\n").expect("the README has a Rust example") + "```rust\n".len();
    let block = &readme[start..start + readme[start..].find("```").unwrap()];
    // Its first line is the `use` the example has too (rustfmt writes it over several lines).
    let (uses, body) = block.split_once('\n').unwrap();
    assert_eq!(uses, "use meeple_core::{Game, bots::{Bot, RandomBot}};");
    let example = std::fs::read_to_string(repo().join("tests/examples/readme.rs")).unwrap();
    let between = example.split("// README begin\n").nth(1).and_then(|r| r.split("    // README end").next());
    let between = between.expect("the example marks the README's lines");
    assert_eq!(normalised(body), normalised(between), "README.md's Rust example differs from tests/examples/readme.rs");
    assert!(example.contains("use meeple_core::{\n    Game,\n    bots::{Bot, RandomBot},\n};"), "the same `use`");
}
