//! The README's "From Rust" example, word for word between the markers (a test checks that the
//! two agree), so that the example a library user copies first compiles against the crates as
//! they are: `cargo run --release -p meeple-tests --example readme` (from the repository root).

use meeple_core::{
    Game,
    bots::{Bot, RandomBot},
};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // README begin
    // The path is read from the current folder; `&[]`: no folders of mods beyond the built-in ones.
    let loaded = meeple_host::load::from_config_file("configs/traders-builders-tollkeepers.toml".as_ref(), &[])?;
    for seed in 0..3 {
        // `setup_seeded(seed)` deals this seed's game; `setup(seed)` keeps a config's own `seed`,
        // which would make every game the same one.
        let mut game = Game::new(loaded.rules.clone(), loaded.setup_seeded(seed))?;
        let mut bot = RandomBot::new(seed);
        // `to_act`: whoever must act, not always the player whose turn it is (a question may go to another).
        while let Some(_player) = game.to_act() {
            let action = bot.choose(&game); // or pick from game.legal_actions()
            game.apply(action)?; // transactional: an error changes nothing; returns the events
        }
        println!("{:?}", game.state().scores());
    }
    // README end
    Ok(())
}
