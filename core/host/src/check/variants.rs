//! The settings of a mod other than its defaults that `meeple check` plays too: each other
//! edition, and each option at each of its other values. Code that fails only there (a branch
//! taken when an option is on) would pass a check of the defaults alone.

use crate::config::{GameConfig, OptionValue};
use crate::manifest::{Manifest, OptionDef, OptionType, describe_value};
use meeple_core::Value;

/// One setting other than the defaults.
pub(super) struct Variant {
    /// As told: `edition C2`, `lenient = true`.
    pub label: String,
    /// The editions it chooses, by expansion id: the mod's own, and for another edition, the
    /// first edition of each expansion that edition was made for (`made_for`) whose default is
    /// not one of them: played with another, it would not be the game its author meant.
    pub editions: Vec<(String, String)>,
    /// The option it sets, and to what.
    pub option: Option<(String, Value)>,
}

/// How far from its default an integer option's end may lie to be played: a bound of a million
/// would make a slow game, or an overflow, of a rule that means small numbers.
const NEAR: i64 = 100;

/// Each other edition, then each option at each of its other values, in the manifest's order;
/// `default_edition` gives the edition another expansion of the game is played in by default
/// (none for one the game does not play, which no `made_for` concerns).
pub(super) fn variants(manifest: &Manifest, default_edition: impl Fn(&str) -> Option<String>) -> Vec<Variant> {
    let default = &manifest.default_edition;
    let editions = manifest.editions.iter().filter(|e| e.name != *default).map(|e| {
        let own = (manifest.id.clone(), e.name.clone());
        let misfit =
            |m: &&crate::manifest::MadeFor| default_edition(&m.expansion).is_some_and(|d| !m.editions.contains(&d));
        let made_for =
            e.made_for.iter().filter(misfit).filter_map(|m| Some((m.expansion.clone(), m.editions.first()?.clone())));
        Variant {
            label: format!("edition {}", e.name),
            editions: std::iter::once(own).chain(made_for).collect(),
            option: None,
        }
    });
    let options = manifest.options.iter().flat_map(|o| {
        other_values(o, default).into_iter().map(|v| Variant {
            label: format!("{} = {}", o.name, describe_value(&v).unwrap_or_default()),
            editions: Vec::new(),
            option: Some((o.name.clone(), v)),
        })
    });
    editions.chain(options).collect()
}

/// The values of an option other than its default in `edition`: the other boolean, every other
/// name of an enum, and an integer's ends, each where it lies within [`NEAR`] of the default
/// (else the value next to the default on that side, as where the range is open).
pub(super) fn other_values(o: &OptionDef, edition: &str) -> Vec<Value> {
    let default = o.default_in(edition);
    let values = match &o.ty {
        OptionType::Bool => vec![Value::Bool(false), Value::Bool(true)],
        OptionType::Enum(names) => names.iter().map(|n| Value::Str(n.clone())).collect(),
        OptionType::Int { min, max } => {
            let n = default.as_int().unwrap_or(0);
            let low = if n.saturating_sub(*min) <= NEAR { *min } else { n.saturating_sub(1).max(*min) };
            let high = if max.saturating_sub(n) <= NEAR { *max } else { n.saturating_add(1).min(*max) };
            vec![Value::Int(low), Value::Int(high)]
        }
    };
    let mut others: Vec<Value> = values.into_iter().filter(|v| v != default).collect();
    others.dedup();
    others
}

impl Variant {
    /// `config` in this setting, the mod being `own`; false when the config does not choose the
    /// mod (the base game, whose choice is not among the expansions).
    pub fn apply(&self, config: &mut GameConfig, own: &str) -> bool {
        if !config.expansions.iter().any(|c| c.id == own) {
            return false;
        }
        for (id, edition) in &self.editions {
            let choice = match id.as_str() {
                "base" => Some(&mut config.base),
                _ => config.expansions.iter_mut().find(|c| c.id == *id),
            };
            // Only expansions of the game are named ([`variants`]).
            if let Some(choice) = choice {
                choice.edition = Some(edition.clone());
            }
        }
        if let Some((name, value)) = &self.option {
            let own = config.expansions.iter_mut().find(|c| c.id == own).expect("looked for above");
            own.options.insert(name.clone(), OptionValue { value: value.clone(), at: None, name_at: None });
        }
        true
    }
}

/// The config file `check` plays a game of, for the command that plays it again: two players,
/// the base game and the mod `id`, in `variant`'s setting if one is given.
pub(super) fn config_text(id: &str, variant: Option<&Variant>) -> String {
    let editions = variant.map_or(&[][..], |v| &v.editions[..]);
    let edition_of = |x: &str| editions.iter().find(|(e, _)| e == x).map(|(_, ed)| format!("edition = \"{ed}\"\n"));
    let mut text = "players = 2\n".to_string();
    if let Some(base) = edition_of("base") {
        text += &format!("[base]\n{base}");
    }
    text += &format!("[[expansions]]\nid = \"{id}\"\n{}", edition_of(id).unwrap_or_default());
    if let Some((name, value)) = variant.and_then(|v| v.option.as_ref()) {
        text += &format!("options = {{ {name} = {} }}\n", describe_value(value).unwrap_or_default());
    }
    for (other, edition) in editions.iter().filter(|(e, _)| e != "base" && e != id) {
        text += &format!("[[expansions]]\nid = \"{other}\"\nedition = \"{edition}\"\n");
    }
    text
}

/// `text` as the format of a shell's `printf '…'`: its `%` and `\` doubled, each `'` closed,
/// escaped and opened again, a line's end written `\n`.
pub(super) fn printf_format(text: &str) -> String {
    text.replace('\\', "\\\\").replace('%', "%%").replace('\'', "'\\''").replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(min: i64, max: i64, default: i64) -> OptionDef {
        OptionDef {
            name: "n".into(),
            ty: OptionType::Int { min, max },
            default: Value::Int(default),
            edition_defaults: Default::default(),
            editions: None,
            help: String::new(),
        }
    }

    fn ints(o: &OptionDef) -> Vec<i64> {
        other_values(o, "any").iter().map(|v| v.as_int().unwrap()).collect()
    }

    #[test]
    fn an_integer_is_played_at_its_ends_near_the_default_and_beside_the_default_otherwise() {
        assert_eq!(ints(&int(0, 10, 2)), [0, 10]);
        assert_eq!(ints(&int(i64::MIN, i64::MAX, 3)), [2, 4], "an open range");
        assert_eq!(ints(&int(0, i64::MAX, 1)), [0, 2], "open above");
        assert_eq!(ints(&int(0, 1_000_000, 5)), [0, 6], "an end far away");
        assert_eq!(ints(&int(0, 10, 0)), [10], "a default at an end");
        assert_eq!(ints(&int(4, 4, 4)), Vec::<i64>::new(), "one value only");
    }

    #[test]
    fn a_config_file_in_printf_keeps_its_characters() {
        assert_eq!(printf_format("a = \"50%\"\nb = 'x\\y'\n"), "a = \"50%%\"\\nb = '\\''x\\\\y'\\''\\n");
    }
}
