//! The commands hooks give: how the core checks each one and carries it out. A command that fails
//! its check changes nothing and becomes the hook's error, which names the command and says why.

use super::{Game, MAX_DECISIONS, MAX_LOG, MAX_NESTING, MAX_OPTIONS, MAX_POINTS, MAX_STORAGE, MAX_TEXT};
use super::{log_line, no_face, too_deep};
use crate::action::{Decision, Event, Target};
use crate::expansion::{Command, HookError, HookKind, HookResult};
use crate::figures::{FigureId, Location};
use crate::state::Stage;
use crate::value::Value;

/// Why a command was not done.
enum NotDone {
    /// It failed its check: why, in words.
    Refused(String),
    /// It was carried out, and an event it set off made a hook fail.
    HookFailed(HookError),
}

impl From<HookError> for NotDone {
    fn from(e: HookError) -> NotDone {
        NotDone::HookFailed(e)
    }
}

type Outcome = Result<(), NotDone>;

fn refuse(why: impl Into<String>) -> Outcome {
    Err(NotDone::Refused(why.into()))
}

impl Game {
    /// Checks a command of expansion `e`, given in `hook`, and carries it out.
    pub(super) fn apply_command(&mut self, e: u16, hook: HookKind, c: Command) -> HookResult {
        let outcome = match &c {
            Command::AddPoints { player, points, category } => self.add_points(*player, *points, category),
            Command::GiveTokens { player, token, count } => self.give_tokens(e, *player, token, *count),
            Command::PlaceFigure { player, kind, at } => self.place_figure(e, *player, kind, at),
            Command::MoveFigure { figure, to } => self.move_figure(*figure, to),
            Command::SetAside { figure } => self.set_aside(*figure),
            Command::ReturnFigure { figure } => self.return_commanded(*figure),
            Command::SetFigureFace { figure, face } => self.set_face(*figure, *face),
            Command::ExtraTurnPart => self.play_goes_on("extra turn parts").map(|()| {
                self.state.turn.extra_part = true;
            }),
            Command::ExtraTurn { player } => {
                self.play_goes_on("extra turns").and_then(|()| self.player_exists(*player)).map(|()| {
                    self.state.turn.extra_turn = Some(*player);
                })
            }
            Command::SetStorage { key, value } => self.set_storage(e, key, value),
            Command::SetScore { .. } => refuse("set_score is only allowed in modify_score"),
            Command::Ask(q) => self.ask(
                hook,
                Decision {
                    player: q.player,
                    expansion: e,
                    kind: q.kind.clone(),
                    options: q.options.clone(),
                    data: q.data.clone(),
                    about: q.about,
                },
            ),
            Command::Log { message } => {
                let message = if message.len() > MAX_LOG { log_line(message.as_bytes()) } else { message.clone() };
                Ok(self.emit(Event::Log { expansion: e, message })?)
            }
        };
        match outcome {
            Ok(()) => Ok(()),
            Err(NotDone::Refused(why)) => Err(self.command_error(e, hook, &c, why)),
            Err(NotDone::HookFailed(error)) => Err(error),
        }
    }

    /// Refuses `what` (what only a game that goes on can give) during the final scoring: the
    /// game ends with it, so it would be dropped without a word.
    fn play_goes_on(&self, what: &str) -> Outcome {
        if self.state.turn.stage == Stage::Final {
            return refuse(format!("no {what} during the final scoring: the game ends with it"));
        }
        Ok(())
    }

    fn player_exists(&self, player: u8) -> Outcome {
        let players = self.state.players;
        if player >= players { refuse(format!("no such player: the game has {players}")) } else { Ok(()) }
    }

    fn add_points(&mut self, player: u8, points: i32, category: &str) -> Outcome {
        self.player_exists(player)?;
        let Some(cat) = self.rules.category(category) else {
            return refuse(format!("unknown score category; known: {}", self.rules.categories().join(", ")));
        };
        if points.unsigned_abs() > MAX_POINTS.unsigned_abs() {
            return refuse(format!("at most {MAX_POINTS} points either way, not {points}"));
        }
        // No points (a pig beside no completed city) change nothing: no event tells of them.
        if points == 0 {
            return Ok(());
        }
        let st = &mut self.state;
        let sum = &mut st.points[player as usize * st.categories as usize + cat as usize];
        *sum = sum.saturating_add(points);
        Ok(self.emit(Event::PointsAdded { player, points, category: cat })?)
    }

    fn give_tokens(&mut self, e: u16, player: u8, token: &str, count: i32) -> Outcome {
        self.player_exists(player)?;
        let Some(t) = self.rules.token_named_by(self.expansion_id(e), token) else {
            let known: Vec<&str> = self.rules.tokens().iter().map(|t| t.id.as_str()).collect();
            if known.is_empty() {
                return refuse(
                    "unknown token kind: this game has no tokens (an expansion declares its own in its \
                               expansion.toml, as `[[tokens]]`)",
                );
            }
            return refuse(format!("unknown token kind; known: {}", known.join(", ")));
        };
        let st = &mut self.state;
        let held_at = player as usize * st.token_kinds as usize + t as usize;
        let (supply, held) = (st.token_supply[t as usize], st.tokens[held_at]);
        if supply < count {
            // The size of a supply is its manifest's: where to look when it is too small.
            let declared = &self.rules.tokens()[t as usize];
            return refuse(format!(
                "not enough tokens: the supply holds {supply} of {} (`supply` of `{}` in its expansion.toml's \
                 `[[tokens]]`)",
                declared.supply, declared.id
            ));
        }
        if held + count < 0 {
            return refuse(format!("not enough tokens: the player holds {held}"));
        }
        st.tokens[held_at] += count;
        st.token_supply[t as usize] -= count;
        Ok(self.emit(Event::TokensChanged { player, token: t, delta: count })?)
    }

    fn place_figure(&mut self, e: u16, player: u8, kind: &str, at: &Target) -> Outcome {
        self.player_exists(player)?;
        let Some(k) = self.rules.figure_named_by(self.expansion_id(e), kind) else {
            let known: Vec<&str> = self.rules.figures().iter().map(|f| f.id.as_str()).collect();
            return refuse(format!("unknown figure kind; known: {}", known.join(", ")));
        };
        let Some(loc) = self.location(at) else { return refuse("no such segment or point") };
        if let Some(why) = self.may_not_stand(k, loc) {
            return refuse(why);
        }
        if self.state.supply(player, k) == 0 {
            return refuse("none left in the player's supply");
        }
        self.put_figure(player, k, loc)?;
        Ok(())
    }

    fn move_figure(&mut self, figure: FigureId, to: &Target) -> Outcome {
        let Some(f) = self.state.figures.get(figure as usize).copied() else { return refuse("no such figure") };
        let Some(loc) = self.location(to) else { return refuse("no such segment or point") };
        if let Some(why) = self.may_not_stand(f.kind, loc) {
            return refuse(why);
        }
        if f.in_supply() {
            return refuse("the figure is in its supply; use place_figure");
        }
        self.lift(figure);
        self.state.figures[figure as usize].at = loc;
        if let Location::Segment { segment } = loc
            && self.rules.figure(f.kind).follower
        {
            self.state.features.data_mut(segment).followers += 1;
        }
        self.emit(Event::FigureMoved { figure, from: f.at, to: loc })?;
        self.return_attached(figure)?;
        Ok(self.release_dependents()?)
    }

    fn set_aside(&mut self, figure: FigureId) -> Outcome {
        let Some(f) = self.state.figures.get(figure as usize).copied() else { return refuse("no such figure") };
        self.lift(figure);
        if f.in_supply() {
            self.state.supply[f.owner as usize * self.state.figure_kinds as usize + f.kind as usize] -= 1;
        }
        self.state.figures[figure as usize].at = Location::Aside;
        self.state.figures[figure as usize].attached_to = None;
        self.emit(Event::FigureMoved { figure, from: f.at, to: Location::Aside })?;
        self.return_attached(figure)?;
        Ok(self.release_dependents()?)
    }

    /// A figure back to its owner's supply, on a command.
    fn return_commanded(&mut self, figure: FigureId) -> Outcome {
        if figure as usize >= self.state.figures.len() {
            return refuse("no such figure");
        }
        self.return_figure(figure)?;
        Ok(self.release_dependents()?)
    }

    fn set_face(&mut self, figure: FigureId, face: u8) -> Outcome {
        let Some(f) = self.state.figures.get(figure as usize) else { return refuse("no such figure") };
        let kind = self.rules.figure(f.kind);
        if !kind.faces.contains(&face) {
            return refuse(no_face(kind, face));
        }
        self.state.figures[figure as usize].face = face;
        Ok(self.emit(Event::FigureTurned { figure, face })?)
    }

    /// Sets (or, with null, removes) a key of the expansion's storage, within its size.
    fn set_storage(&mut self, e: u16, key: &str, value: &Value) -> Outcome {
        if value.nests_deeper_than(MAX_NESTING) {
            return refuse(too_deep());
        }
        let e = e as usize;
        let removed = self.state.storage[e].get(key).map_or(0, |v| key.len() + v.size());
        let added = if *value == Value::Null { 0 } else { key.len() + value.size() };
        let bytes = self.state.storage_bytes[e] - removed + added;
        if bytes > MAX_STORAGE {
            return refuse(format!("an expansion's storage holds at most {} KiB", MAX_STORAGE >> 10));
        }
        self.state.storage_bytes[e] = bytes;
        let store = &mut self.state.storage[e];
        if *value == Value::Null {
            store.remove(key);
        } else {
            store.insert(key.to_string(), value.clone());
        }
        self.state.storage_versions[e] = crate::state::next_storage_version();
        Ok(())
    }

    /// Adds a decision for a player to the pending ones.
    fn ask(&mut self, hook: HookKind, d: Decision) -> Outcome {
        if d.player >= self.state.players || d.options.is_empty() {
            return refuse("a decision needs an existing player and at least one option");
        }
        if hook == HookKind::Setup {
            return refuse("no decisions during setup");
        }
        self.play_goes_on("decisions")?;
        if !self.rules.expansions()[d.expansion as usize].hooks().contains(HookKind::OnDecision) {
            return refuse("the expansion has no `on_decision` handler: nothing would take the answer");
        }
        if d.kind.len() > MAX_TEXT || d.options.len() > MAX_OPTIONS || d.options.iter().any(|o| o.len() > MAX_TEXT) {
            return refuse(format!(
                "a decision has at most {MAX_OPTIONS} options, its kind and each option {MAX_TEXT} bytes"
            ));
        }
        if let Some(about) = d.about
            && !self.exists(about)
        {
            return refuse("what a decision is about must be on the board: a figure, or a segment or point of a tile");
        }
        if self.state.turn.decisions >= MAX_DECISIONS {
            return refuse(format!("a turn asks at most {MAX_DECISIONS} decisions (does an answer ask again?)"));
        }
        self.state.turn.decisions += 1;
        let requested = Event::DecisionRequested {
            player: d.player,
            expansion: d.expansion,
            kind: d.kind.as_str().into(),
            about: d.about,
        };
        self.state.pending.push(d);
        Ok(self.emit(requested)?)
    }

    /// Whether a target names something there is: a figure, or a segment or point of a placed
    /// tile (`none` names nothing, and is not one).
    fn exists(&self, t: Target) -> bool {
        match t {
            Target::Figure { figure } => (figure as usize) < self.state.figures.len(),
            Target::None => false,
            board => self.location(&board).is_some(),
        }
    }

    /// Resolves a target on the board to a figure location.
    fn location(&self, t: &Target) -> Option<Location> {
        match *t {
            Target::Segment { pos, segment } => {
                let ti = self.state.board.index_at(pos)?;
                let n = self.rules.tile(self.state.board.tile(ti).tile).def.segments.len();
                ((segment as usize) < n).then(|| Location::Segment { segment: self.state.segment_of(ti, segment) })
            }
            Target::Point { pos, point } => {
                let ti = self.state.board.index_at(pos)?;
                let n = self.rules.tile(self.state.board.tile(ti).tile).def.points.len();
                ((point as usize) < n).then_some(Location::Point { tile: ti, point })
            }
            Target::None | Target::Figure { .. } => None,
        }
    }
}
