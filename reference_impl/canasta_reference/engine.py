"""The reference engine: applies actions to a hand, rule by rule.

Each action handler first checks every obligation (raising :class:`Illegal` with the rule ID, or
:class:`Malformed`) and only then changes the state, so a rejected action leaves the position
exactly as it was. Forced steps (exposing red threes and drawing replacements) happen inside the
action that causes them. An action that ``legal_actions()`` listed for the very position (the same
object) is committed without its checks: the generator proved it legal (see ``_listed_commit``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

from canasta_conformance.contract.cards import Card
from canasta_conformance.contract.engine_protocol import Capabilities, DealSetup, OperationUnsupported, cannot_play
from canasta_conformance.contract.model import (
    WILD_MELD,
    Action,
    Answer,
    Ask,
    Decline,
    Discard,
    Draw,
    EndTurn,
    HandEnd,
    Meld,
    MeldGroup,
    NextHand,
    Outcome,
    Position,
    ScoreSheet,
    SpecialHand,
    TakePile,
)
from canasta_conformance.contract.scenario import impossible, setup_problems
from canasta_conformance.contract.spec import Spec, load_spec
from canasta_conformance.contract.variant_rules import VariantRules

from . import engine_version
from ._build import mypyc_attr
from .errors import Illegal, Malformed
from .going_out import can_go_out
from .melds import MeldPlan, check_card_in_hand, check_in_hand, count, listed_plan, plan_melds, tally
from .move_rules import take_is_forced
from .movegen import legal_actions as list_legal_actions
from .movegen import take_actions
from .penalties import PenaltyCommit, penalise_or_raise
from .pile import cards_into_hand, check_one_card_rule, check_take_cards, check_top_not_blocked
from .position_facts import Facts
from .scoring import score_hand
from .sequences import check_take_lays_no_sequence
from .setup import deal_hand, expose_red_threes
from .special_hands import check_special_hand
from .state import RED_THREES, HandState
from .three_player import form_lone_hand

Commit = Callable[[], None]


@mypyc_attr(allow_interpreted_subclasses=True)  # a compiled build may still be subclassed, as the pure one
class ReferenceEngine:
    """The oracle engine. ``ReferenceEngine(spec)``; the harness builds it with no argument."""

    def __init__(self, spec: Spec | None = None) -> None:
        self.spec = spec or load_spec()
        self.state: HandState | None = None
        self._capabilities: Capabilities | None = None
        self._playable: set[tuple[str, str]] = set()

    # --- protocol ------------------------------------------------------------------------------
    def capabilities(self) -> Capabilities:
        if self._capabilities is None:
            self._capabilities = self._declare()
        return self._capabilities

    def _declare(self) -> Capabilities:
        return Capabilities(
            name="canasta-reference", version=engine_version(),
            variants=tuple(sorted(v for v in self.spec.variants if self.supports(v))),
            options=tuple(name for name, p in self.spec.parameters.items() if p.implemented),
            features=("legal_actions", "deal", "cites_rules"), spec_version=self.spec.version,
        )

    def supports(self, variant: str, options: dict[str, Any] | None = None) -> bool:
        """A variant is supported when every parameter it changes is one the engine implements."""
        params = self.spec.variant_parameters(variant, options)
        return all(
            p.implemented or params[name] == p.default for name, p in self.spec.parameters.items()
        )

    def rules_for(self, variant: str, options: dict[str, Any]) -> VariantRules:
        key = (variant, repr(sorted(options.items())))
        if key not in self._playable:
            refused = cannot_play(self.spec, self.capabilities(), variant, options)
            if refused:  # never play a rule set silently in part
                raise OperationUnsupported(refused)
            self._playable.add(key)
        return self.spec.variant_rules(variant, options)

    def load(self, position: Position) -> None:
        rules = self.rules_for(position.variant, dict(position.options))
        _refuse_impossible("the position", setup_problems(position, self.spec))
        state = HandState.from_position(position, rules)
        if rules.red_three_dealt_timing == "first_turn" and state.phase == "draw":
            # red3.dealt.expose (Hoyle): a position at the start of a turn is before the forced
            # step that opens it, so the player to move lays down dealt red threes now, as the
            # turn change does in play
            expose_red_threes(state, state.turn)
        self.state = state

    def deal(self, setup: DealSetup) -> None:
        """Start a hand from an explicit deck order (top first)."""
        rules = self.rules_for(setup.variant, dict(setup.options))
        _refuse_impossible("the deal", setup_problems(setup, self.spec))
        self.state = deal_hand(
            rules, setup.variant, setup.options, setup.deck, setup.dealer, setup.scores, first_player=setup.first_player
        )

    def observe(self) -> Position:
        return self._state.to_position()

    def score(self) -> ScoreSheet:
        state = self._state
        if state.phase != "over":
            raise RuntimeError("the hand is not over yet: there is no score sheet")
        return score_hand(state)

    def legal_actions(self) -> list[Action]:
        """Every legal action, up to the equivalence documented in :mod:`canasta_reference.movegen`.
        The position remembers which objects were listed, until an action changes it (see
        :meth:`_listed_commit`)."""
        listed = list_legal_actions(self)
        state = self.state
        if state is not None:
            state.derived.listed = tuple(listed)  # (a copy: the caller may change its list)
        return listed

    def apply(self, action: Action) -> Outcome:
        outcome, commit = self._plan(action)
        state = self.state
        if commit is not None and state is not None:  # (a commit is planned only on a state)
            commit()
            state.forget()  # (the commit may have dealt a new hand: the state it changed forgets)
        return outcome

    def check(self, action: Action) -> Outcome:
        """What ``apply`` would answer, without changing anything."""
        return self._plan(action)[0]

    def is_legal(self, action: Action) -> bool:
        """Accepted as a legal play: an irregularity a table accepts with a penalty (penalty.*) is
        not legal, so a player choosing by this never repeats a penalised meld for ever."""
        commit = self._plan(action)[1]
        return commit is not None and not isinstance(commit, PenaltyCommit)

    def _plan(self, action: Action) -> tuple[Outcome, Commit | None]:
        name = _HANDLERS.get(type(action))
        if name is None:
            return Outcome.malformed(f"{action!r} is not an action"), None
        state = self.state
        if state is None:
            raise RuntimeError(_NO_POSITION)
        listed = state.derived.listed
        if listed is not None and type(action) in _SHORTENED:
            for candidate in listed:
                if candidate is action:
                    shortcut = self._listed_commit(state, action)
                    if shortcut is not None:
                        return _ACCEPTED, shortcut
                    break
        try:
            commit = getattr(self, name)(state, action)
        except Illegal as illegal:
            return Outcome.reject(illegal.rule, illegal.message), None
        except Malformed as malformed:
            return Outcome.malformed(str(malformed)), None
        if isinstance(commit, PenaltyCommit):  # penalty.*: accepted, with the table's penalty
            return commit.outcome, commit
        return _ACCEPTED, commit

    def _listed_commit(self, state: HandState, action: Action) -> Commit | None:
        """The commit of an action that legal_actions() listed for this very position: the same
        object, and no action has changed the position since (the list is forgotten with what else
        was derived from it). The generator checked each obligation of it (the predicates of
        move_rules, which the property tests hold to this module's checks), so what the handler
        would check again is skipped and only what the commit needs is worked out: the same commit
        as the handler's. None for the kinds of action this does not shorten (and a sequence):
        the handler checks them as it checks every action that was not listed."""
        if isinstance(action, Discard):
            talon = bool(state.talons) and state.talon_owed()
            return self._discarding(state, action.card, state.hand_size() == 1 and not talon, talon)
        if isinstance(action, Draw):
            return self._drawing(state)
        if isinstance(action, Meld):
            plan = listed_plan(action.melds, state.rules, state.melds[state.side])
            if plan is None:
                return None
            laid = len(plan.laid)
            return self._melding(state, tally(plan.laid), plan, state.hand_size() - laid)
        if isinstance(action, TakePile):
            top = state.pile[-1]
            groups = (MeldGroup(action.cards, top.rank), *action.melds) if action.cards else action.melds
            plan = listed_plan(groups, state.rules, state.melds[state.side], top)
            if plan is None:
                return None
            cards = plan.laid[1:]  # (the top card comes first)
            return self._taking(state, tally(cards), plan, state.hand_size() - len(cards) + cards_into_hand(state.pile))
        return None

    @property
    def _state(self) -> HandState:
        if self.state is None:
            raise RuntimeError(_NO_POSITION)
        return self.state

    # --- turn-level checks (each names its rule) --------------------------------------------------
    @staticmethod
    def _check_hand_not_over(state: HandState) -> None:
        if state.phase == "over":
            raise Illegal("turn.phase", "the hand is over")

    @staticmethod
    def _check_no_pending_question(state: HandState) -> None:
        """out.ask.answer-by-partner: after "may I go out?" only the partner's answer comes next."""
        if state.question == "pending":
            raise Illegal("out.ask.answer-by-partner", "the partner must answer the question first")

    @staticmethod
    def _check_phase(state: HandState, phase: str, what: str) -> None:
        """turn.phase: draw or take first, then meld and discard."""
        if state.phase != phase:
            when = "at the start of the turn" if phase == "draw" else "after drawing or taking the pile"
            raise Illegal("turn.phase", f"{what} is done {when}")

    def _start_of_action(self, state: HandState, phase: str, what: str) -> None:
        if state.phase == phase and state.question != "pending":
            return  # the hand is live, no question waits and the phase is right: every check passes
        self._check_hand_not_over(state)
        self._check_no_pending_question(state)
        self._check_phase(state, phase, what)

    # --- draw ---------------------------------------------------------------------------------------
    def _draw(self, state: HandState, action: Draw) -> Commit:
        self._start_of_action(state, "draw", "drawing")
        if state.stock_exhausted():
            raise Illegal("stock.empty.no-draw", "the stock is exhausted: take the discard pile or decline it")
        return self._drawing(state)

    def _drawing(self, state: HandState) -> Commit:
        """The draw's commit (turn.draw.count; red3.drawn.expose, red3.chain)."""

        def commit() -> None:
            need = state.rules.draw_count
            stock = state.stock
            while need and stock:
                card = stock.pop()
                if card in RED_THREES:  # red3.drawn.expose, red3.chain: expose and replace
                    state.red_threes[state.red_three_index(state.turn)].append(card)
                    if not stock and state.rules.red_three_last_stock_card == "ends_hand":
                        self._end_hand(state, HandEnd("stock_exhausted", state.turn))  # stock.last-card.red-three
                        return
                    if not stock:  # may_meld (Britannica): meld, no discard, then the hand ends
                        state.last_card_red_three = True
                    continue
                state.add_card(state.turn, card)
                need -= 1
            state.phase = "play"

        return commit

    # --- taking the discard pile -------------------------------------------------------------------
    def _take(self, state: HandState, action: TakePile) -> Commit:
        self._start_of_action(state, "draw", "taking the pile")
        rules = state.rules
        if not state.pile:
            raise Illegal("pile.empty", "the discard pile is empty")
        cards = [*action.cards, *(c for g in action.melds for c in g.cards)] if action.melds else action.cards
        taken = check_in_hand(state.hand, cards)
        top = state.pile[-1]
        check_top_not_blocked(top, rules)
        check_one_card_rule(state)
        side = state.side
        side_melds = state.melds[side]
        unmelded = not state.has_melded(side)
        if unmelded and rules.initial_meld_from_hand_only:
            raise Illegal("modern.pile.after-initial-meld", "the side has not melded from its hand yet: the pile cannot be taken")
        if action.melds and not unmelded:
            raise Illegal("pile.take.initial-meld-groups", "further groups go with a take only when it makes the side's initial meld; meld them after taking")
        check_take_lays_no_sequence(action.cards, action.melds, top, rules)
        check_take_cards(state, top, action.cards)
        plan = plan_melds(
            [*([MeldGroup(action.cards, top.rank)] if action.cards else []), *action.melds],
            rules, side_melds, _other_sides(state, side), extra=[(top.rank, top)],
            initial=unmelded, closed_ranks=state.closed_ranks(),
        )
        if unmelded:
            counted = count(plan.laid, rules) - (0 if rules.initial_meld_pile_top_counts else rules.value(top))
            minimum = state.initial_minimum()
            if counted < minimum:
                raise Illegal("pile.frozen.unmelded-needs-count", f"the initial meld counts {counted}, the side needs {minimum}")
        cards_left = state.hand_size() - len(cards) + cards_into_hand(state.pile)
        self._check_cards_left(state, cards_left, plan, going_out_now=cards_left == 0)
        return self._taking(state, taken, plan, cards_left)

    def _taking(self, state: HandState, taken: dict[Card, int], plan: MeldPlan, cards_left: int) -> Commit:
        """The take's commit: ``taken``, the cards from the hand by card, melded as ``plan`` says
        with the top card; the rest of the pile joins the hand (red3.from-pile)."""
        rest = state.pile[:-1]

        def commit() -> None:
            state.remove_cards(state.turn, taken)
            joining = []
            for card in rest:
                if card in RED_THREES:  # red3.from-pile: face up, no replacement
                    state.red_threes[state.red_three_index(state.turn)].append(card)
                else:
                    joining.append(card)
            state.add_cards(state.turn, joining)
            state.pile = []
            state.covered_black_three = False
            state.took_pile = True
            form_lone_hand(state, state.turn)  # setup.three-player.lone-hand: the first take of the hand
            self._commit_melds(state, plan)
            state.phase = "play"
            if cards_left == 0:
                self._go_out(state)

        return commit

    # --- melding ------------------------------------------------------------------------------------
    def _meld(self, state: HandState, action: Meld) -> Commit:
        self._start_of_action(state, "play", "melding")
        groups = action.melds
        if not groups:
            raise Malformed("a meld action lays at least one group")
        cards = groups[0].cards if len(groups) == 1 else [c for g in groups for c in g.cards]
        taken = check_in_hand(state.hand, cards)
        try:
            return self._meld_checked(state, action, taken, len(cards))
        except Illegal as offence:
            return penalise_or_raise(state, offence)  # penalty.illegal-meld and the like

    def _meld_checked(self, state: HandState, action: Meld, taken: dict[Card, int], laid: int) -> Commit:
        """``taken``: the cards from the hand by card, ``laid`` of them."""
        rules = state.rules
        side = state.side
        unmelded = not state.has_melded(side)
        plan = plan_melds(
            action.melds, rules, state.melds[side], _other_sides(state, side),
            initial=unmelded, closed_ranks=state.closed_ranks(),
        )
        cards_left = state.hand_size() - laid
        if unmelded:
            self._check_initial_meld(state, plan, cards_left)
        self._check_cards_left(state, cards_left, plan, going_out_now=cards_left == 0)
        return self._melding(state, taken, plan, cards_left)

    def _melding(self, state: HandState, taken: dict[Card, int], plan: MeldPlan, cards_left: int) -> Commit:
        """The meld's commit: ``taken``, the cards from the hand by card, laid as ``plan`` says."""

        def commit() -> None:
            state.remove_cards(state.turn, taken)
            self._commit_melds(state, plan)
            if cards_left == 0:
                self._go_out(state)

        return commit

    def _check_initial_meld(self, state: HandState, plan: MeldPlan, cards_left: int) -> None:
        """initial.table (with initial.several-melds and initial.card-values-only): the action that
        makes the side's initial meld counts at least the minimum, except for a concealed going
        out after a draw from the stock (initial.concealed-exception)."""
        rules = state.rules
        counted = count(plan.laid, rules)
        minimum = state.initial_minimum()
        if counted >= minimum:
            self._check_natural_meld(plan, rules)
            return
        concealed_out = (
            cards_left <= 1 and not state.took_pile and state.turn not in state.melded_seats
            and self._canastas_after(state, plan) >= max(1, rules.going_out_canastas_required)
            and any(len(plan.result[r]) >= rules.canasta_min_cards for r in plan.new_ranks)
        )
        if not concealed_out:
            raise Illegal("initial.table", f"the initial meld counts {counted}, the side needs {minimum}")
        self._check_natural_meld(plan, rules)

    @staticmethod
    def _check_natural_meld(plan: MeldPlan, rules: VariantRules) -> None:
        """modern.initial.natural-meld: the initial meld includes a natural meld of three or more."""
        if not rules.initial_meld_natural_meld_required:
            return
        for rank in plan.new_ranks:
            cards = plan.result[rank]
            if rank not in (WILD_MELD, "3") and len(cards) >= rules.meld_min_cards and not any(rules.is_wild(c) for c in cards):
                return
        raise Illegal("modern.initial.natural-meld", "the initial meld must include a meld of three or more natural cards without wild cards")

    # --- discarding ---------------------------------------------------------------------------------
    def _discard(self, state: HandState, action: Discard) -> Commit:
        self._start_of_action(state, "play", "discarding")
        check_card_in_hand(state.hand, action.card)
        if state.last_card_red_three:
            raise Illegal("stock.last-card.red-three", "after a red three drawn as the last stock card the player may meld but not discard: end the turn")
        if action.card in RED_THREES:
            raise Illegal("red3.never-in-hand", "a red three is never discarded: it is laid face up")
        self._check_empty_pile_discard(state, action)
        talon = state.talon_owed()
        going_out = state.hand_size() == 1 and not talon
        if going_out:
            try:
                self._check_may_go_out(state, state.canastas(state.side))
            except Illegal as offence:
                return penalise_or_raise(state, offence)  # penalty.out-without-canasta
        elif state.question == "yes" and can_go_out(state):
            raise Illegal("out.ask.binding", "partner said yes: the player must go out this turn")
        return self._discarding(state, action.card, going_out, talon)

    def _discarding(self, state: HandState, card: Card, going_out: bool, talon: bool) -> Commit:
        """The discard's commit: the card goes to the pile and the player goes out (``going_out``)
        or the turn ends, after the talon owed joins the hand (``talon``)."""

        def commit() -> None:
            state.remove_card(state.turn, card)
            state.pile.append(card)
            if going_out:
                self._go_out(state)
                return
            if talon:  # modern.talon.after-discard: the talon joins the hand after the discard
                for talon_card in state.talons.pop(0):
                    state.add_card(state.turn, talon_card)
                expose_red_threes(state, state.turn)
            self._end_turn(state)

        return commit

    @staticmethod
    def _check_empty_pile_discard(state: HandState, action: Discard) -> None:
        """modern.discard.empty-pile-aces-sevens: no ace or seven onto an empty pile unless the hand
        holds no other natural card."""
        rules = state.rules
        if not rules.discard_empty_pile_no_aces_sevens or state.pile or action.card.rank not in ("A", "7"):
            return
        if any(rules.is_natural(c) and c.rank not in ("A", "7") for c in state.hand):
            raise Illegal("modern.discard.empty-pile-aces-sevens", f"{action.card.token} may not be discarded onto an empty pile while the hand holds other natural cards")

    # --- special hands (Modern American) -----------------------------------------------------------
    def _special_hand(self, state: HandState, action: SpecialHand) -> Commit:
        self._start_of_action(state, "play", "laying a special hand")
        rules = state.rules
        if action.kind not in rules.special_hands:
            raise Illegal("modern.special-hand.kinds", f"this game has no special hand '{action.kind}'")
        if state.has_melded(state.side):
            raise Illegal("modern.special-hand.before-meld", "a special hand is laid only while the side has not melded")
        taken = check_in_hand(state.hand, [action.discard])
        rest = state.hand - Counter(taken)
        check_special_hand(action.kind, list(rest.elements()), rules)

        def commit() -> None:
            state.remove_card(state.turn, action.discard)
            state.pile.append(action.discard)
            self._end_hand(state, HandEnd("went_out", state.turn, False, action.kind))  # modern.special-hand.score

        return commit

    # --- asking partner -----------------------------------------------------------------------------
    def _ask(self, state: HandState, action: Ask) -> Commit:
        self._check_hand_not_over(state)
        self._check_no_pending_question(state)
        if state.rules.going_out_ask_partner != "optional" or state.partner_of(state.turn) is None:
            raise Illegal("out.ask.optional", "this game has no 'Partner, may I go out?'")
        if state.question is not None:
            raise Illegal("out.ask.window", "the question has been asked this turn already")
        if state.phase == "play" and (state.melded_ranks or state.took_pile):
            raise Illegal("out.ask.window", "the question comes before melding or taking the pile")
        return lambda: setattr(state, "question", "pending")

    def _answer(self, state: HandState, action: Answer) -> Commit:
        self._check_hand_not_over(state)
        if state.question != "pending":
            raise Illegal("out.ask.answer-by-partner", "nobody has asked to go out")
        return lambda: setattr(state, "question", "yes" if action.permit else "no")

    # --- the next hand of the game ----------------------------------------------------------------
    def _next_hand(self, state: HandState, action: NextHand) -> Commit:
        if state.phase != "over":
            raise Illegal("turn.phase", "the next hand is dealt once this hand is over")
        sheet = score_hand(state)
        if sheet.game_over:
            raise Illegal("game.target", "the game is over")
        if state.dealer is None:
            raise Malformed("the position names no dealer, so the next dealer is unknown")
        cumulative = [side.cumulative for side in sheet.sides]
        dealer = (state.dealer + 1) % state.rules.players  # setup.dealer.rotation
        try:
            new_state = deal_hand(
                state.rules, state.variant, state.options, action.deck, dealer, cumulative, state.hand_number + 1,
                action.first_player,
            )
        except ValueError as error:
            raise Malformed(str(error)) from None

        def commit() -> None:
            self.state = new_state

        return commit

    # --- ending the turn without a discard --------------------------------------------------------
    def _end_turn_now(self, state: HandState, action: EndTurn) -> Commit:
        """stock.last-card.red-three (red_three.last_stock_card may_meld): after drawing a red three
        as the last stock card the player melds or not, then ends the turn without a discard and
        the hand ends. Anywhere else a turn ends only with a discard (turn.discard.required)."""
        self._start_of_action(state, "play", "ending the turn")
        if not state.last_card_red_three:
            raise Illegal("turn.discard.required", "a turn ends with a discard")
        return lambda: self._end_hand(state, HandEnd("stock_exhausted", state.turn))

    # --- declining at the end of the stock ----------------------------------------------------------
    def _decline(self, state: HandState, action: Decline) -> Commit:
        self._start_of_action(state, "draw", "declining the pile")
        if not state.stock_exhausted():
            raise Illegal("turn.start.choice", "while the stock has cards, a turn begins by drawing or taking the pile")
        if take_is_forced(state) and self._states_after_takes(state):
            raise Illegal("stock.empty.forced-take", "with the stock exhausted the pile must be taken: its top card fits a meld of the side")
        if state.question == "yes" and self._could_go_out_by_taking(state):
            raise Illegal("out.ask.binding", "partner said yes: the player must take the pile and go out")
        return lambda: self._end_hand(state, HandEnd("stock_exhausted", state.turn))  # stock.empty.end

    def _could_go_out_by_taking(self, state: HandState) -> bool:
        """Whether some legal take leaves a hand the player can go out with (for out.ask.binding)."""
        return any(after.phase == "over" or can_go_out(after) for after in self._states_after_takes(state))

    def _states_after_takes(self, state: HandState) -> list[HandState]:
        """The position after each legal take of the pile (each tried on a copy of the position)."""
        position = self.observe()
        probe = ReferenceEngine(self.spec)
        after = []
        for take in take_actions(Facts(state)):
            probe.load(position)  # (a new state each time: those kept are left alone)
            if probe.apply(take).accepted and probe.state is not None:
                after.append(probe.state)
        return after

    # --- shared obligations ---------------------------------------------------------------------------
    def _check_cards_left(self, state: HandState, cards_left: int, plan: MeldPlan, going_out_now: bool) -> None:
        """After melding, a player keeps a card to discard unless the side may go out
        (turn.keep-a-card); melding every card is going out (out.final-discard-optional);
        black threes are melded only when going out (black3.meld.going-out-only)."""
        rules = state.rules
        if "3" in plan.result and cards_left > 1 and rules.black_three_meld_only_going_out:
            raise Illegal("black3.meld.going-out-only", "black threes are melded only by a player going out")
        if state.question == "no" and cards_left <= 1:
            raise Illegal("out.ask.binding", "partner said no: the player may not go out this turn")
        if cards_left > 1:
            return
        canastas = self._canastas_after(state, plan)
        if state.last_card_red_three and not going_out_now:
            return  # no discard follows, so no card need be kept for it
        if going_out_now:
            if rules.going_out_final_discard == "required":
                raise Illegal("turn.discard.required", "going out needs a final discard in this game")
            self._check_may_go_out(state, canastas, plan)
        elif self._talon_owed_after(state):
            return  # modern.talon.no-card-to-hold: the talon follows the discard
        elif canastas < rules.going_out_canastas_required:
            raise Illegal("turn.keep-a-card", "the side cannot go out yet, so the player keeps a card besides the discard")
        elif self._unfinished_wild_meld(state, plan):
            raise Illegal("turn.keep-a-card", "the side's wild-card meld is unfinished, so it cannot go out: the player keeps a card besides the discard")

    @staticmethod
    def _talon_owed_after(state: HandState) -> bool:
        """Whether a talon will follow this turn's discard once the meld being judged is laid (it
        makes or follows the side's initial meld of this turn)."""
        if not state.talons or state.turn_card_drawn():
            return False
        return state.talon_owed() or not state.has_melded(state.side)

    @staticmethod
    def _unfinished_wild_meld(state: HandState, plan: MeldPlan | None = None) -> bool:
        """modern.out.unfinished-wild-meld: the side's wild-card meld is not a canasta."""
        rules = state.rules
        if not rules.going_out_unfinished_wild_meld_blocks:
            return False
        melds = {**state.melds[state.side], **(plan.result if plan else {})}
        wild = melds.get(WILD_MELD)
        return wild is not None and len(wild) < rules.canasta_min_cards

    def _check_may_go_out(self, state: HandState, canastas: int, plan: MeldPlan | None = None) -> None:
        """out.requires-canasta, modern.out.unfinished-wild-meld and out.ask.binding."""
        if canastas < state.rules.going_out_canastas_required:
            need = state.rules.going_out_canastas_required
            raise Illegal("out.requires-canasta", f"going out needs {need} canasta{'s' if need > 1 else ''} of the side")
        if self._unfinished_wild_meld(state, plan):
            raise Illegal("modern.out.unfinished-wild-meld", "the side's wild-card meld is not a canasta yet: the side cannot go out")
        if state.question == "no":
            raise Illegal("out.ask.binding", "partner said no: the player may not go out this turn")

    def _canastas_after(self, state: HandState, plan: MeldPlan) -> int:
        melds = {**state.melds[state.side], **plan.result}
        return sum(1 for cards in melds.values() if len(cards) >= state.rules.canasta_min_cards)

    # --- state changes --------------------------------------------------------------------------------
    @staticmethod
    def _commit_melds(state: HandState, plan: MeldPlan) -> None:
        side = state.melds[state.side]
        for before, after in plan.renamed:  # a sequence extended downwards changes its key
            side.pop(before, None)
            if before in state.new_ranks:
                state.new_ranks.add(after)
            state.melded_ranks.discard(before)
            state.new_ranks.discard(before)
        side.update(plan.result)
        state.melded_ranks.update(plan.result)
        if plan.new_ranks:
            state.new_ranks.update(plan.new_ranks)

    def _go_out(self, state: HandState) -> None:
        """out.definition: the hand ends when the player's hand is empty (setup.three-player.out-first:
        in the three-player game a player going out before anyone took the pile is the lone hand)."""
        form_lone_hand(state, state.turn)
        self._end_hand(state, HandEnd("went_out", state.turn, self._is_concealed(state)))

    @staticmethod
    def _is_concealed(state: HandState) -> bool:
        """out.concealed.definition / out.concealed.own-canasta /
        out.concealed.partner-may-have-melded."""
        rules = state.rules
        if state.turn in state.melded_seats or state.melded_ranks - state.new_ranks:
            return False
        if state.took_pile and not rules.going_out_concealed_allowed_with_pile:  # out.concealed.with-pile
            return False
        if not rules.going_out_concealed_if_partner_melded and set(state.melds[state.side]) - state.new_ranks:
            return False
        return any(len(state.melds[state.side][r]) >= rules.canasta_min_cards for r in state.new_ranks)

    @staticmethod
    def _end_hand(state: HandState, ended: HandEnd) -> None:
        state.phase = "over"
        state.ended = ended

    def _end_turn(self, state: HandState) -> None:
        if state.melded_ranks:
            state.melded_seats.add(state.turn)
            state.melded_ranks = set()
        if state.new_ranks:
            state.new_ranks = set()
        state.took_pile = False
        state.question = None
        state.last_card_red_three = False
        if state.stock_exhausted() and state.rules.end_of_stock_mode == "end_hand":
            self._end_hand(state, HandEnd("stock_exhausted", state.turn))
            return
        state.turn = state.next_seat(state.turn)
        state.phase = "draw"
        if state.rules.red_three_dealt_timing == "first_turn":
            expose_red_threes(state, state.turn)  # dealt red threes, on the holder's first turn



#: each action's handler, by method name so that a subclass's override is the one called (the test
#: mutants override handlers): it checks every obligation (raising Illegal or Malformed) and returns the commit
_HANDLERS: dict[type, str] = {
    Draw: "_draw", TakePile: "_take", Meld: "_meld", Discard: "_discard", Ask: "_ask", Answer: "_answer",
    Decline: "_decline", NextHand: "_next_hand", SpecialHand: "_special_hand", EndTurn: "_end_turn_now",
}
#: the kinds of action whose commit _listed_commit makes for a listed action (the others' checks are few)
_SHORTENED = frozenset({Discard, Draw, Meld, TakePile})
_ACCEPTED = Outcome.accept()
_NO_POSITION = "no position loaded: call load() or deal() first"


def _other_sides(state: HandState, side: int) -> list[dict[str, list[Card]]]:
    """The melds of every side but ``side`` (meld.no-opponent)."""
    melds = state.melds
    return melds[:side] + melds[side + 1:]


def _refuse_impossible(what: str, problems: list[str]) -> None:
    """A position or deal that cannot exist (as canasta validate says of a scenario) is refused."""
    if problems:
        raise ValueError(impossible(what, problems))
