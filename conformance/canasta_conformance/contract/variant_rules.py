"""One typed view of a variant: every parameter of ``spec/parameters.yaml`` as a typed field.

:class:`VariantRules` is what the reference engine, the scenario checks, the site and the
mutation tests read. It is filled generically from the resolved parameter mapping
(:meth:`Spec.variant_rules <canasta_conformance.contract.spec.Spec.variant_rules>`): each catalogue
parameter becomes the field named by a mechanical rule, its dots replaced by underscores
(``meld.max_wilds`` -> ``meld_max_wilds``). Adding a parameter is a catalogue entry plus a typed
field here; ``tests/test_variant_rules.py`` checks that the fields and the catalogue match
exactly, name for name and type for schema.

Derived facts (a card's value, the initial-meld minimum for a score, which cards freeze the
pile, what shape a meld must have) are methods, so each rule fact is written once.
Nothing here is a rule number: every value comes from the spec.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any, Literal, NamedTuple

from . import sequences
from .cards import JOKER, RANKS, RED_SUITS, Card, format_cards

WildRank = Literal["JK", "2"]
TakeWay = Literal["natural_pair", "natural_and_wild", "add_to_meld"]
CoverKind = Literal["wild", "red_three", "black_three"]

#: The ranks that share one parameter of value (``card_value.king_to_eight`` and ``card_value.seven_to_four``).
KING_TO_EIGHT = RANKS[RANKS.index("K"):RANKS.index("8") + 1]
SEVEN_TO_FOUR = RANKS[RANKS.index("7"):RANKS.index("4") + 1]


def field_name(parameter: str) -> str:
    """The typed field of a catalogue parameter: ``meld.max_wilds`` -> ``meld_max_wilds``."""
    return parameter.replace(".", "_")


@dataclass(frozen=True)
class InitialMeldRow:
    """One row of ``initial_meld.table``: from this cumulative score on, this minimum count."""

    from_score: int | None  # None: every score below the next row (including negative scores)
    minimum: int

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> InitialMeldRow:
        return cls(data["from"], data["minimum"])


class Fault(NamedTuple):
    """A broken rule: its ID and why (the engine raises it, the scenario checks report it)."""

    rule: str
    message: str


@dataclass(frozen=True)
class VariantRules:
    """Every parameter of a variant (with its options), typed; field order follows the catalogue."""

    # players and deck
    players: int
    sides: int
    deck_packs: int
    deck_jokers: int
    cards_wild_ranks: frozenset[WildRank]
    # card values
    card_value_joker: int
    card_value_two: int
    card_value_ace: int
    card_value_king_to_eight: int
    card_value_seven_to_four: int
    card_value_black_three: int
    # deal and upcard
    deal_hand_size: int
    deal_first_player: Literal["dealer_left", "random"]
    upcard_enabled: bool
    upcard_cover: frozenset[CoverKind]
    # the turn
    draw_count: int
    # red threes
    red_three_bonus: int
    red_three_all_four_total: int
    red_three_negative_without_meld: bool
    red_three_last_stock_card: Literal["ends_hand", "may_meld"]
    # black threes
    black_three_discard_effect: Literal["block", "freeze"]
    black_three_meld_only_going_out: bool
    # melds and canastas
    meld_min_cards: int
    meld_min_naturals: int
    meld_max_wilds: int
    meld_wilds_not_more_than_naturals: bool
    canasta_min_cards: int
    canasta_natural_bonus: int
    canasta_mixed_bonus: int
    # initial meld
    initial_meld_table: tuple[InitialMeldRow, ...]
    initial_meld_pile_top_counts: bool
    # the discard pile
    pile_take_unfrozen_with: frozenset[TakeWay]
    pile_frozen_by_wild: bool
    pile_frozen_by_red_three: bool
    pile_frozen_for_unmelded_side: bool
    pile_always_frozen: bool
    pile_one_card_rule: bool
    # going out
    going_out_canastas_required: int
    going_out_final_discard: Literal["optional", "required"]
    going_out_bonus: int
    going_out_concealed_extra_bonus: int
    going_out_ask_partner: Literal["optional", "not_used"]
    going_out_concealed_if_partner_melded: bool
    # end of the stock, the game
    end_of_stock_mode: Literal["continue", "end_hand"]
    end_of_stock_forced_take: bool
    game_target: int
    # parameters of other variants and sources
    deal_first_dealer: Literal["random", "right_of_high_drawer"]
    deal_cut_by: Literal["dealer_right", "dealer_left"]
    upcard_mode: Literal["cover", "return_to_stock"]
    upcard_covered_black_three_freezes: bool
    draw_lone_last_card_full_draw: bool
    red_three_dealt_timing: Literal["before_play", "first_turn"]
    red_three_positive_requires_canasta: bool
    red_three_negative_cap: int | None
    red_three_doubled_from_count: int
    red_three_per_player: bool
    black_three_in_hand_value: int
    meld_max_cards: int | None
    meld_closed_rank_after_canasta: bool
    meld_wild_only_melds: bool
    meld_sevens_no_wilds: bool
    meld_wild_add_min_naturals: int | None
    meld_sequences: bool
    canasta_sequence_bonus: int
    canasta_wild_card_bonus: int | None
    initial_meld_from_hand_only: bool
    initial_meld_basis: Literal["side", "player"]
    initial_meld_natural_meld_required: bool
    going_out_concealed_allowed_with_pile: bool
    score_melds_require_canasta: bool
    bonus_talon_first_side: int
    bonus_talon_second_side: int
    special_hands_enabled: bool
    three_player_lone_hand: bool
    table_sit_out: int
    pile_look_back_cards: int
    game_max_hands: int | None
    game_tie: Literal["another_hand", "draw"]
    penalty_table_penalties: bool
    penalty_red_three_undeclared: int
    penalty_illegal_meld: int
    penalty_out_without_canasta: int
    penalty_insufficient_initial_increment: int
    # Modern American
    bonus_talon_turn_card_from_bottom: int | None
    meld_aces_wilds_only_in_initial_meld: bool
    meld_wild_meld_blocks_wilds: bool
    canasta_wild_card_all_twos_bonus: int | None
    canasta_wild_card_four_jokers_bonus: int | None
    canasta_sevens_bonus: int | None
    canasta_aces_bonus: int | None
    penalty_unfinished_sevens: int
    penalty_unfinished_aces: int
    penalty_unfinished_wild_meld: int
    going_out_unfinished_wild_meld_blocks: bool
    discard_empty_pile_no_aces_sevens: bool
    special_hands_values: Mapping[str, int]
    special_hands_garbage_groups: tuple[int, ...]

    # derived once, not parameters
    _value_by_rank: Mapping[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        values = {"JK": self.card_value_joker, "2": self.card_value_two, "A": self.card_value_ace}
        values.update(dict.fromkeys(KING_TO_EIGHT, self.card_value_king_to_eight))
        values.update(dict.fromkeys(SEVEN_TO_FOUR, self.card_value_seven_to_four))
        object.__setattr__(self, "_value_by_rank", types.MappingProxyType(values))

    def coherence_problems(self) -> list[str]:
        """What makes this rule set one no game can follow, each naming the parameters at fault.
        Jokers in the deck are wild cards: no source has them play as anything else (a joker has
        no rank of its own to meld), so wild ranks that leave them out need a deck without them."""
        if self.deck_jokers and JOKER not in self.cards_wild_ranks:
            wild = json.dumps(sorted(self.cards_wild_ranks))
            return [f"cards.wild_ranks: {wild} leaves the deck's jokers without a rank (deck.jokers: {self.deck_jokers}): "
                    f"add {JOKER}, or set deck.jokers: 0"]
        return []

    @classmethod
    def from_parameters(cls, parameters: Mapping[str, Any]) -> VariantRules:
        """Fill every field from a resolved parameter mapping (dotted names, JSON values)."""
        converters = _converters()
        missing = sorted(set(converters) - {field_name(name) for name in parameters})
        if missing:
            raise KeyError(f"the parameters lack {', '.join(missing)}")
        values = {field_name(name): value for name, value in parameters.items()}
        unknown = sorted(set(values) - set(converters))
        if unknown:
            raise KeyError(f"no typed field for {', '.join(unknown)} (add it to VariantRules)")
        return cls(**{name: convert(values[name]) for name, convert in converters.items()})

    # --- cards -------------------------------------------------------------------------------
    def is_wild(self, card: Card) -> bool:
        return card.rank in self.cards_wild_ranks

    def is_natural(self, card: Card) -> bool:
        """Aces down to fours (threes are neither natural meld cards nor wild)."""
        return card.rank not in self.cards_wild_ranks and card.rank != "3"

    def value(self, card: Card) -> int:
        """Card value (card_value.*): the same for melds, hands and the initial-meld count."""
        if card.rank == "3":
            return 0 if card.is_red_three else self.card_value_black_three
        return self._value_by_rank[card.rank]

    def count(self, cards: Iterable[Card]) -> int:
        return sum(self.value(c) for c in cards)

    # --- the initial meld --------------------------------------------------------------------
    def initial_minimum(self, score: int) -> int:
        """initial.table: the minimum count for a side with this cumulative score."""
        minimum = self.initial_meld_table[0].minimum
        for row in self.initial_meld_table:
            if row.from_score is None or score >= row.from_score:
                minimum = row.minimum
        return minimum

    # --- the discard pile --------------------------------------------------------------------
    def freezes_pile(self, card: Card) -> bool:
        """pile.frozen.by-wild, pile.frozen.by-red3-upcard and freezing black threes: ``card``
        in the discard pile freezes it (and is laid crosswise)."""
        return (
            (self.pile_frozen_by_wild and self.is_wild(card))
            or (self.pile_frozen_by_red_three and card.is_red_three)
            or (self.black_three_discard_effect == "freeze" and card.is_black_three)
        )

    def pile_frozen_by(self, pile: Iterable[Card]) -> bool:
        """The pile is frozen for everyone: always in some variants, or by a card in it."""
        return self.pile_always_frozen or any(self.freezes_pile(c) for c in pile)

    # --- melds and canastas ------------------------------------------------------------------
    def meld_shape_fault(self, cards: Sequence[Card]) -> Fault | None:
        """meld.min-cards, meld.min-naturals, then the wild-card limits: what a meld must be."""
        if len(cards) < self.meld_min_cards:
            return Fault("meld.min-cards", f"a meld needs at least {self.meld_min_cards} cards: [{format_cards(cards)}]")
        naturals = sum(1 for c in cards if not self.is_wild(c))
        if naturals < self.meld_min_naturals:
            return Fault("meld.min-naturals", f"a meld needs at least {self.meld_min_naturals} natural cards: [{format_cards(cards)}]")
        return self.wild_limit_fault(cards)

    def wild_limit_fault(self, cards: Sequence[Card], rule: str = "meld.max-wilds") -> Fault | None:
        """meld.max-wilds (or ``rule``, e.g. meld.merge-wild-limit for additions), and
        meld.wild-ratio when the variant forbids more wild cards than naturals."""
        wilds = sum(1 for c in cards if self.is_wild(c))
        if wilds > self.meld_max_wilds:
            return Fault(rule, f"a meld holds at most {self.meld_max_wilds} wild cards: [{format_cards(cards)}] has {wilds}")
        if self.meld_wilds_not_more_than_naturals and wilds > len(cards) - wilds:
            return Fault("meld.wild-ratio", f"wild cards may not outnumber natural cards: [{format_cards(cards)}]")
        return None

    def sequence_cards_fault(self, cards: Sequence[Card]) -> Fault | None:
        """meld.sequence.naturals-only, meld.sequence.one-suit, meld.sequence.consecutive: what
        any cards laid into a sequence must be, before they are joined to it: natural cards of one
        suit, one card of each rank."""
        if any(not self.is_natural(c) for c in cards):
            return Fault("meld.sequence.naturals-only", f"a sequence holds natural cards only (no wild card, no three): [{format_cards(cards)}]")
        if len({c.suit for c in cards}) > 1:
            return Fault("meld.sequence.one-suit", f"a sequence is of one suit: [{format_cards(cards)}]")
        if len({c.rank for c in cards}) < len(cards):
            return Fault("meld.sequence.consecutive", f"a sequence holds one card of each rank: [{format_cards(cards)}]")
        return None

    def sequence_fault(self, cards: Sequence[Card], new: bool) -> Fault | None:
        """meld.sequence.*: what a sequence must be (``cards`` the whole sequence after the
        action; ``new``: started by it): natural cards only, one suit, distinct ranks in
        consecutive order, at least meld.min_cards when started, at most a canasta's cards."""
        if not self.meld_sequences:
            return Fault("eq.no-sequences", f"this variant has no sequences: [{format_cards(cards)}]")
        if (fault := self.sequence_cards_fault(cards)) is not None:
            return fault
        if not sequences.is_run(cards, self.is_natural):
            return Fault("meld.sequence.consecutive", f"a sequence runs in consecutive rank order, one card of each rank: [{format_cards(cards)}]")
        if new and len(cards) < self.meld_min_cards:
            return Fault("meld.sequence.min-cards", f"a new sequence needs at least {self.meld_min_cards} cards: [{format_cards(cards)}]")
        if len(cards) > self.canasta_min_cards:
            return Fault("meld.sequence.max-seven", f"a sequence ends at {self.canasta_min_cards} cards, a sequence canasta: [{format_cards(cards)}] has {len(cards)}")
        return None

    def is_canasta(self, cards: Sequence[Card]) -> bool:
        """canasta.definition: seven or more cards."""
        return len(cards) >= self.canasta_min_cards

    def is_natural_canasta(self, cards: Sequence[Card]) -> bool:
        return self.is_canasta(cards) and not any(self.is_wild(c) for c in cards)

    # --- Modern American ---------------------------------------------------------------------
    @property
    def talon_sizes(self) -> tuple[int, ...]:
        """modern.deal.talons: the bonus talons dealt, in the order they are taken (none: no talons)."""
        return tuple(n for n in (self.bonus_talon_first_side, self.bonus_talon_second_side) if n)

    @property
    def special_hands(self) -> Mapping[str, int]:
        """modern.special-hand.kinds: the special hands allowed and their values (none unless enabled)."""
        return self.special_hands_values if self.special_hands_enabled else types.MappingProxyType({})

    # --- red threes --------------------------------------------------------------------------
    @property
    def all_four(self) -> int:
        """"All four red threes" (red3.all-four): the red threes of the standard two packs."""
        return len(RED_SUITS) * 2


Converter = Callable[[Any], Any]


def _converter(annotation: Any) -> Converter:
    origin = typing.get_origin(annotation)
    if origin is frozenset:
        return frozenset
    if origin is Mapping:
        return lambda value: types.MappingProxyType(dict(value))
    if origin is tuple:
        item = typing.get_args(annotation)[0]
        if dataclasses.is_dataclass(item) and hasattr(item, "from_json"):
            from_json = item.from_json
            return lambda rows: tuple(from_json(row) for row in rows)
        return tuple
    return lambda value: value


@cache
def _converters() -> dict[str, Converter]:
    """Each parameter field of :class:`VariantRules` and how a JSON value becomes its type."""
    hints = typing.get_type_hints(VariantRules)
    return {f.name: _converter(hints[f.name]) for f in dataclasses.fields(VariantRules) if f.init}


def parameter_fields() -> tuple[dataclasses.Field[Any], ...]:
    """The fields of :class:`VariantRules` that hold parameters (in declaration order)."""
    return tuple(f for f in dataclasses.fields(VariantRules) if f.init)
