//! `meeple simulate`: the tallies of many games agree with one another.

use std::process::Command;

/// The `--json` summary of `meeple simulate ARGS`, run from the repository's root.
fn summary(args: &[&str]) -> serde_json::Value {
    let out = Command::new(env!("CARGO_BIN_EXE_meeple"))
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../.."))
        .args(["simulate", "--json"])
        .args(args)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn the_points_by_category_add_up_to_the_scores_and_name_the_expansions_categories() {
    let s = summary(&["configs/traders-builders-tollkeepers.toml", "-n", "40", "-j", "2"]);
    let games = s["games"].as_u64().unwrap();
    let sum = |v: &serde_json::Value, field: &str| -> f64 {
        v.as_array().unwrap().iter().map(|x| if field.is_empty() { x } else { &x[field] }.as_f64().unwrap()).sum()
    };
    // A score is the sum of its categories: the means agree (to rounding).
    let (scores, points) = (sum(&s["mean_scores"], ""), sum(&s["categories"], "mean_points"));
    assert!((scores - points).abs() < 1e-6, "scores {scores}, categories {points}");
    let categories: Vec<&str> =
        s["categories"].as_array().unwrap().iter().map(|c| c["category"].as_str().unwrap()).collect();
    assert_eq!(categories[..4], ["roads", "cities", "monasteries", "fields"], "the base game's first");
    assert!(categories.contains(&"tollkeepers") && categories.contains(&"goods"), "{categories:?}");
    for c in s["categories"].as_array().unwrap() {
        let scored = c["games_scored"].as_u64().unwrap();
        assert!(scored <= games, "{c}");
        // A category that gave points in no game gave none on average.
        if scored == 0 {
            assert_eq!(c["mean_points"].as_f64().unwrap(), 0.0, "{c}");
        }
    }
}
