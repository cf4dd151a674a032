"""The obligations the move generator checks, as non-raising predicates: one function per
obligation, each naming its rules (``apply`` in engine.py raises the same rules, with messages;
the property tests hold the two to the same answers)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from canasta_conformance.contract.cards import Card
from canasta_conformance.contract.model import WILD_MELD
from canasta_conformance.contract.variant_rules import VariantRules

from .pile import is_frozen_for, one_card_rule_applies
from .position_facts import Facts
from .state import HandState

if TYPE_CHECKING:
    from .engine import ReferenceEngine


def may_ask(state: HandState) -> bool:
    """out.ask.optional, out.ask.window: asked once a turn, before melding or taking the pile."""
    if state.question is not None or state.rules.going_out_ask_partner != "optional":
        return False
    return not (state.phase == "play" and (state.melded_ranks or state.took_pile)) and state.partner_of(state.turn) is not None


def group_is_legal(f: Facts, rank: str, naturals: int, wilds: int, initial: bool = False) -> bool:
    """meld.min-cards, meld.min-naturals, meld.max-wilds, meld.wild-ratio (a new meld);
    meld.merge-wild-limit (an addition); black3.meld.no-wild; and Modern American's
    modern.meld.max-seven, modern.meld.closed-rank, modern.sevens.no-wilds,
    modern.aces.wilds-initial-only, modern.meld.wild-after-five and modern.wild-meld.blocks-wilds
    (the side's wild-card meld open before the action and after it). ``initial``: the action makes
    the side's initial meld."""
    rules = f.rules
    existing = f.melds.get(rank)
    size = len(existing) if existing is not None else 0
    if rank == WILD_MELD:  # modern.wild-meld.allowed: wild cards only, three to seven
        return not naturals and wilds > 0 and rules.meld_min_cards <= size + wilds <= f.max_cards
    if wilds and rank == "3":
        return False
    if size + naturals + wilds > f.max_cards or rank in f.closed:
        return False
    if wilds and f.wild_places_ruled and not modern_wilds_allowed(
        f, rank, size - (f.meld_wilds[rank] if existing is not None else 0) + naturals, initial
    ):
        return False
    if existing is None:
        if naturals < rules.meld_min_naturals or naturals + wilds < rules.meld_min_cards or wilds > rules.meld_max_wilds:
            return False
        return not (wilds > naturals and rules.meld_wilds_not_more_than_naturals)
    if not wilds:
        return naturals > 0
    total = f.meld_wilds[rank] + wilds
    if total > rules.meld_max_wilds:
        return False
    return not (rules.meld_wilds_not_more_than_naturals and 2 * total > len(existing) + naturals + wilds)


def modern_wilds_allowed(f: Facts, rank: str, naturals_after: int, initial: bool) -> bool:
    """Whether wild cards may join the meld of ``rank`` (``naturals_after`` naturals with this
    action's): modern.wild-meld.blocks-wilds, modern.sevens.no-wilds, modern.aces.wilds-initial-only,
    modern.meld.wild-after-five."""
    if f.wild_meld_open and f.rules.meld_wild_meld_blocks_wilds:
        return False
    return wilds_may_join(f.rules, rank, naturals_after, initial)


def wilds_may_join(rules: VariantRules, rank: str, naturals_after: int, initial: bool) -> bool:
    """Whether the meld of ``rank`` may take wild cards, by its rank and its naturals (``initial``:
    in the action making the side's initial meld): modern.sevens.no-wilds,
    modern.aces.wilds-initial-only, modern.meld.wild-after-five."""
    if rules.meld_sevens_no_wilds and rank == "7":
        return False
    if initial:
        return True
    if rules.meld_aces_wilds_only_in_initial_meld and rank == "A":
        return False
    need = rules.meld_wild_add_min_naturals
    return need is None or naturals_after >= need


def completes_canasta(f: Facts, rank: str, added: int) -> bool:
    """canasta.definition: the meld of ``rank`` reaches the canasta size with ``added`` cards."""
    before = len(f.melds.get(rank, ()))
    return before < f.rules.canasta_min_cards <= before + added


def reaches_minimum(f: Facts, counted: int) -> bool:
    """initial.table: the action that makes the side's initial meld counts at least the minimum."""
    return f.melded or counted >= f.minimum


def concealed_exception(f: Facts, cards_left: int, canastas_after: int, new_canasta: bool) -> bool:
    """initial.concealed-exception: below the minimum only to go out concealed after a draw, with
    a canasta among the new melds."""
    state = f.state
    if cards_left > 1 or state.took_pile or state.turn in state.melded_seats or not new_canasta:
        return False
    return canastas_after >= max(1, f.rules.going_out_canastas_required)


def cards_left_allowed(
    f: Facts, cards_left: int, canastas_after: int, black_threes: bool, going_out_now: bool, wild_meld_open_after: bool = False,
) -> bool:
    """black3.meld.going-out-only; out.ask.binding (after a "no"); turn.keep-a-card; and, for a
    player melding every card, out.requires-canasta and turn.discard.required; Modern American's
    modern.talon.no-card-to-hold (a talon follows the discard) and modern.out.unfinished-wild-meld
    (``wild_meld_open_after``: the side's wild-card meld is not a canasta after the action);
    stock.last-card.red-three (no discard follows)."""
    rules = f.rules
    if cards_left > 1:
        return not (black_threes and rules.black_three_meld_only_going_out)
    if f.state.question == "no" or (going_out_now and rules.going_out_final_discard == "required"):
        return False
    if f.state.last_card_red_three and not going_out_now:
        return True
    if not going_out_now and f.talon_after:
        return True
    if wild_meld_open_after and rules.going_out_unfinished_wild_meld_blocks:
        return False
    return canastas_after >= rules.going_out_canastas_required


def may_discard(f: Facts, going_out_possible: bool) -> bool:
    """out.requires-canasta and modern.out.unfinished-wild-meld (the last card goes out, unless a
    talon follows: modern.talon.after-discard); out.ask.binding (after a "yes" a player who can go
    out must; after a "no" the player may not); stock.last-card.red-three (no discard)."""
    state = f.state
    if state.last_card_red_three:
        return False
    if f.hand_size == 1:
        if state.talon_owed():
            return True
        if f.wild_meld_open and f.rules.going_out_unfinished_wild_meld_blocks:
            return False
        return f.canastas >= f.rules.going_out_canastas_required and state.question != "no"
    return not (state.question == "yes" and going_out_possible)


def discard_allowed(f: Facts, c: Card) -> bool:
    """red3.never-in-hand; modern.discard.empty-pile-aces-sevens: no ace or seven onto an empty
    pile while the hand holds another natural card."""
    if c.is_red_three:
        return False
    rules = f.rules
    if not rules.discard_empty_pile_no_aces_sevens or f.state.pile or c.rank not in _ACES_SEVENS:
        return True
    return all(rank in _ACES_SEVENS or rank == "3" for rank in f.naturals)


_ACES_SEVENS = ("A", "7")


def pile_can_be_taken(state: HandState) -> bool:
    """pile.empty, pile.blocked.wild-top, pile.blocked.black3-top, pile.take.top-card-first (a red
    three on top), pile.one-card-rule, modern.pile.after-initial-meld."""
    pile = state.pile
    if not pile:
        return False
    top = pile[-1]
    if top.rank in state.rules.cards_wild_ranks or top.rank == "3":
        return False
    if state.rules.initial_meld_from_hand_only and not state.has_melded(state.side):
        return False
    return not one_card_rule_applies(state)


def take_cards_allowed(
    rules: VariantRules, side_melds: Mapping[str, object], rank: str, naturals: int, wilds: int, frozen_for_side: bool,
) -> bool:
    """pile.frozen.take-with-natural-pair (and initial.pile-natural-pair): a natural pair when the
    pile is frozen against the side; otherwise one of the variant's ways (pile.unfrozen.*,
    pile.no-two-wilds)."""
    if frozen_for_side:
        return naturals >= 2
    ways = rules.pile_take_unfrozen_with
    if naturals >= 2 and "natural_pair" in ways:
        return True
    if naturals == 1 and wilds and "natural_and_wild" in ways:
        return True
    return rank in side_melds and "add_to_meld" in ways


def hand_may_take(state: HandState) -> bool:
    """take_cards_allowed for the most the hand allows (a natural pair, a natural and a wild card,
    or nothing from the hand): whether the hand holds the cards of some way of taking the top card
    at all, read without building the position's facts (most hands cannot take the pile)."""
    rules = state.rules
    rank = state.pile[-1].rank
    side = state.side_of(state.turn)
    side_melds = state.melds[side]
    view = state.view(state.turn)
    naturals = len(view.naturals.get(rank, ()))
    if not naturals and rank not in side_melds:
        return False  # every way needs a natural of the rank from the hand or a meld of the rank
    pair = min(naturals, 2)
    if take_cards_allowed(rules, side_melds, rank, pair, 0, True) and take_cards_allowed(rules, side_melds, rank, pair, 0, False):
        return True  # the hand's naturals take the top card, frozen or not
    frozen = is_frozen_for(state, side)
    if take_cards_allowed(rules, side_melds, rank, 0, 0, frozen):
        return True  # nothing from the hand (the top card joins a meld of the side)
    if not naturals:
        return False  # with no natural of the rank, every way needs what (0, 0) needed
    if take_cards_allowed(rules, side_melds, rank, pair, 0, frozen):
        return True
    wilds = sum(map(len, view.wilds.values()))
    return take_cards_allowed(rules, side_melds, rank, 1, min(wilds, rules.meld_max_wilds, 1), frozen)


def may_decline(engine: ReferenceEngine, state: HandState, some_take: bool) -> bool:
    """turn.start.choice (only with the stock exhausted), stock.empty.forced-take, out.ask.binding
    (``some_take``: a take of the pile is legal; only then can a rule oblige to take it)."""
    if some_take and take_is_forced(state):
        return False
    return not (some_take and state.question == "yes" and engine._could_go_out_by_taking(state))


def take_is_forced(state: HandState) -> bool:
    """stock.empty.forced-take: with the stock exhausted, the top card can join a meld of the side
    and the pile is not frozen, so the pile must be taken: obliging, that is, when a take is legal
    (the listing and apply's decline each ask that too). A meld no card may join does not oblige
    (modern.meld.closed-rank, modern.meld.max-seven), nor a one-card hand and pile
    (stock.empty.one-card-exception)."""
    rules = state.rules
    if not rules.end_of_stock_forced_take or not state.pile:
        return False
    top = state.pile[-1]
    meld = state.melds[state.side].get(top.rank)
    if not rules.is_natural(top) or meld is None or top.rank in state.closed_ranks():
        return False
    if rules.meld_max_cards is not None and len(meld) >= rules.meld_max_cards:
        return False
    return not is_frozen_for(state, state.side) and not one_card_rule_applies(state)

