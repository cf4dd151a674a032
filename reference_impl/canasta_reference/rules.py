"""The variant's parameters as one typed value: every number and choice the engine uses.

Nothing here is a rule fact: all values come from the spec's parameter catalogue and the
variant's overrides (see ``spec/parameters.yaml``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from canasta_conformance.cards import RED_SUITS, Card


@dataclass(frozen=True)
class InitialMeldRow:
    from_score: int | None  # None: every score below the next row
    minimum: int


@dataclass(frozen=True)
class Rules:
    players: int
    sides: int
    packs: int
    jokers: int
    wild_ranks: frozenset[str]
    value_by_rank: Mapping[str, int]
    black_three_value: int
    hand_size: int
    first_player: str
    upcard_enabled: bool
    upcard_cover: frozenset[str]
    draw_count: int
    red_three_bonus: int
    red_three_all_four_total: int
    red_three_doubled_from: int
    red_three_negative_without_meld: bool
    red_three_dealt_timing: str
    red_three_last_stock_card: str
    black_three_effect: str
    black_three_meld_only_going_out: bool
    meld_min_cards: int
    meld_min_naturals: int
    meld_max_wilds: int
    wilds_not_more_than_naturals: bool
    canasta_min_cards: int
    natural_canasta_bonus: int
    mixed_canasta_bonus: int
    initial_meld_table: tuple[InitialMeldRow, ...]
    pile_top_counts: bool
    take_unfrozen_with: frozenset[str]
    frozen_by_wild: bool
    frozen_by_red_three: bool
    frozen_for_unmelded_side: bool
    always_frozen: bool
    one_card_rule: bool
    canastas_to_go_out: int
    final_discard_required: bool
    going_out_bonus: int
    concealed_extra_bonus: int
    ask_partner: bool
    concealed_if_partner_melded: bool
    end_of_stock: str
    forced_take: bool
    game_target: int
    max_hands: int | None
    tie: str

    @classmethod
    def from_parameters(cls, p: Mapping[str, Any]) -> Rules:
        high, low = p["card_value.king_to_eight"], p["card_value.seven_to_four"]
        values = {"JK": p["card_value.joker"], "2": p["card_value.two"], "A": p["card_value.ace"]}
        values.update({rank: high for rank in ("K", "Q", "J", "T", "9", "8")})
        values.update({rank: low for rank in ("7", "6", "5", "4")})
        table = tuple(InitialMeldRow(row["from"], row["minimum"]) for row in p["initial_meld.table"])
        return cls(
            players=p["players"], sides=p["sides"], packs=p["deck.packs"], jokers=p["deck.jokers"],
            wild_ranks=frozenset(p["cards.wild_ranks"]), value_by_rank=values,
            black_three_value=p["card_value.black_three"], hand_size=p["deal.hand_size"],
            first_player=p["deal.first_player"], upcard_enabled=p["upcard.enabled"],
            upcard_cover=frozenset(p["upcard.cover"]), draw_count=p["draw.count"],
            red_three_bonus=p["red_three.bonus"], red_three_all_four_total=p["red_three.all_four_total"],
            red_three_doubled_from=p["red_three.doubled_from_count"],
            red_three_negative_without_meld=p["red_three.negative_without_meld"],
            red_three_dealt_timing=p["red_three.dealt_timing"],
            red_three_last_stock_card=p["red_three.last_stock_card"],
            black_three_effect=p["black_three.discard_effect"],
            black_three_meld_only_going_out=p["black_three.meld_only_going_out"],
            meld_min_cards=p["meld.min_cards"], meld_min_naturals=p["meld.min_naturals"],
            meld_max_wilds=p["meld.max_wilds"], wilds_not_more_than_naturals=p["meld.wilds_not_more_than_naturals"],
            canasta_min_cards=p["canasta.min_cards"], natural_canasta_bonus=p["canasta.natural_bonus"],
            mixed_canasta_bonus=p["canasta.mixed_bonus"], initial_meld_table=table,
            pile_top_counts=p["initial_meld.pile_top_counts"], take_unfrozen_with=frozenset(p["pile.take_unfrozen_with"]),
            frozen_by_wild=p["pile.frozen_by_wild"], frozen_by_red_three=p["pile.frozen_by_red_three"],
            frozen_for_unmelded_side=p["pile.frozen_for_unmelded_side"], always_frozen=p["pile.always_frozen"],
            one_card_rule=p["pile.one_card_rule"], canastas_to_go_out=p["going_out.canastas_required"],
            final_discard_required=p["going_out.final_discard"] == "required", going_out_bonus=p["going_out.bonus"],
            concealed_extra_bonus=p["going_out.concealed_extra_bonus"], ask_partner=p["going_out.ask_partner"] == "optional",
            concealed_if_partner_melded=p["going_out.concealed_if_partner_melded"],
            end_of_stock=p["end_of_stock.mode"], forced_take=p["end_of_stock.forced_take"], game_target=p["game.target"],
            max_hands=p["game.max_hands"], tie=p["game.tie"],
        )

    # --- card facts --------------------------------------------------------------------------
    def is_wild(self, card: Card) -> bool:
        return card.rank in self.wild_ranks

    def is_natural(self, card: Card) -> bool:
        """Aces down to fours (and threes are neither natural meld cards nor wild)."""
        return card.rank not in self.wild_ranks and card.rank != "3"

    def value(self, card: Card) -> int:
        """Card value (eq.value.*): the same for melds, hands and the initial-meld count."""
        if card.rank == "3":
            return 0 if card.is_red_three else self.black_three_value
        return self.value_by_rank[card.rank]

    def initial_minimum(self, score: int) -> int:
        """initial.table: the minimum count for a side with this cumulative score."""
        minimum = self.initial_meld_table[0].minimum
        for row in self.initial_meld_table:
            if row.from_score is None or score >= row.from_score:
                minimum = row.minimum
        return minimum

    @property
    def all_four(self) -> int:
        """"All four red threes" (red3.all-four): the red threes of the standard two packs."""
        return len(RED_SUITS) * 2
