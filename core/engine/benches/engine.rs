//! Engine speed: random playouts, legal placements at several board sizes, apply, clone.
//! Run with `cargo bench -p meeple-core`; figures go to `docs/performance.md`.

use criterion::{BatchSize, BenchmarkId, Criterion, criterion_group, criterion_main};
use meeple_core::bots::{Bot, RandomBot};
use meeple_core::{Game, Rules, Setup, Stage, Tileset};
use std::hint::black_box;
use std::sync::Arc;

fn rules() -> Arc<Rules> {
    let ts = Tileset::parse("base.toml", include_str!("../../../tilesets/base.toml")).unwrap();
    Arc::new(Rules::base(&ts, "C3").unwrap())
}

/// An expansion subscribed to every hook that does nothing: the cost of the hook machinery itself.
struct NoOp;

impl meeple_core::Expansion for NoOp {
    fn id(&self) -> &str {
        "noop"
    }
    fn hooks(&self) -> meeple_core::HookSet {
        meeple_core::HookKind::ALL.iter().fold(meeple_core::HookSet::NONE, |s, h| s.with(*h))
    }
}

fn rules_with_noop() -> Arc<Rules> {
    let ts = Tileset::parse("base.toml", include_str!("../../../tilesets/base.toml")).unwrap();
    let mut b = Rules::builder();
    b.tileset(&ts, "C3").unwrap();
    b.expansion(Arc::new(NoOp));
    Arc::new(b.build().unwrap())
}

fn play(rules: &Arc<Rules>, seed: u64) -> Game {
    let mut game = Game::new(rules.clone(), Setup::players(2, seed)).unwrap();
    let mut bot = RandomBot::new(seed);
    while !game.is_over() {
        let a = bot.choose(&game);
        game.apply(a).unwrap();
    }
    game
}

/// A game with at least `n` tiles on the board and a tile waiting to be placed.
fn position(rules: &Arc<Rules>, n: usize, seed: u64) -> Game {
    let mut game = Game::new(rules.clone(), Setup::players(2, seed)).unwrap();
    let mut bot = RandomBot::new(seed);
    while !(game.state().board().tiles().len() >= n && game.state().turn().stage == Stage::PlaceTile) {
        let a = bot.choose(&game);
        game.apply(a).unwrap();
    }
    game
}

fn benches(c: &mut Criterion) {
    let rules = rules();
    let mut seed = 0;
    c.bench_function("random_game_2p_base", |b| {
        b.iter(|| {
            seed += 1;
            black_box(play(&rules, seed))
        })
    });

    let noop = rules_with_noop();
    c.bench_function("random_game_2p_base_noop_rust_expansion", |b| {
        b.iter(|| {
            seed += 1;
            black_box(play(&noop, seed))
        })
    });

    let mut group = c.benchmark_group("legal_placements");
    for n in [5, 15, 30, 50, 70] {
        let game = position(&rules, n, 11);
        let sides = rules.tile(game.state().turn().tile.unwrap()).sides;
        let mut buf = Vec::with_capacity(256);
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                buf.clear();
                game.state().board().placements_into(black_box(&sides), &mut buf);
                black_box(buf.len())
            })
        });
    }
    group.finish();

    let game = position(&rules, 30, 11);
    let place = game.legal_actions()[0];
    c.bench_function("apply_tile_at_30", |b| {
        b.iter_batched_ref(|| game.clone(), |g| black_box(g.apply(place).is_ok()), BatchSize::SmallInput)
    });
    let mut after_place = game.clone();
    after_place.apply(place).unwrap();
    c.bench_function("apply_pass_at_30", |b| {
        b.iter_batched_ref(
            || after_place.clone(),
            |g| black_box(g.apply(meeple_core::Action::Pass).is_ok()),
            BatchSize::SmallInput,
        )
    });
    c.bench_function("clone_game_at_30", |b| b.iter(|| black_box(game.clone())));
    let mut scratch = after_place.clone();
    c.bench_function("clone_from_game_at_30", |b| b.iter(|| scratch.clone_from(black_box(&game))));
    c.bench_function("state_hash_at_30", |b| b.iter(|| black_box(game.state().hash())));
}

criterion_group!(engine, benches);
criterion_main!(engine);
