import copy
import pickle
from collections import Counter
from dataclasses import replace

import pytest

from canasta_conformance.contract.cards import (
    TOKENS,
    Card,
    CardError,
    card,
    cards,
    deck_multiplicity,
    excess_cards,
    format_cards,
    full_deck,
    sort_cards,
)


def test_there_are_53_canonical_tokens_of_two_characters():
    assert len(TOKENS) == 53 == len(set(TOKENS))
    assert all(len(t) == 2 for t in TOKENS)


@pytest.mark.parametrize(("text", "token"), [("KH", "KH"), ("kh", "KH"), ("10d", "TD"), ("10D", "TD"), ("td", "TD"), ("jk", "JK"), ("Joker", "JK"), ("3s", "3S")])
def test_lenient_parsing_writes_the_canonical_token(text, token):
    assert card(text).token == token


@pytest.mark.parametrize("text", ["", "K", "KX", "1H", "11H", "ZZ", "JKR2", "HK"])
def test_non_cards_are_rejected_with_a_helpful_message(text):
    with pytest.raises(CardError, match="is not a card"):
        card(text)


def test_every_token_round_trips():
    for token in TOKENS:
        assert card(token).token == token
        assert card(token) == card(token.lower() if token != "JK" else "jk")


def test_canonical_order_is_jokers_twos_then_aces_down_to_threes_suits_cdhs():
    assert format_cards(cards("3S KH 2D JK AC KC 2C TD")) == "JK 2C 2D AC KC KH TD 3S"
    assert list(TOKENS[:5]) == ["JK", "2C", "2D", "2H", "2S"]
    assert TOKENS[-1] == "3S"


def test_two_packs_and_four_jokers_make_108_cards():
    counts = deck_multiplicity(2, 4)
    assert sum(counts.values()) == 108 == len(full_deck())
    assert counts[card("JK")] == 4
    assert counts[card("KH")] == 2
    assert counts[card("3D")] == 2


def test_excess_cards_names_the_card_and_both_counts():
    counts = Counter(cards("KH KH KH JK JK"))
    assert excess_cards(counts) == [(card("KH"), 3, 2)]
    six_jokers = Counter([card("JK")] * 5)
    assert excess_cards(six_jokers) == [(card("JK"), 5, 4)]


def test_three_colours():
    assert card("3H").is_red_three and card("3D").is_red_three
    assert card("3S").is_black_three and card("3C").is_black_three
    assert not card("JK").is_red_three and not card("JK").is_black_three
    assert card("QH").name == "Queen of Hearts"


def test_sorting_is_stable_for_duplicates():
    assert sort_cards(cards("KH KH AS")) == cards("AS KH KH")


def test_equal_cards_are_one_object_however_they_are_made():
    made = [card("KH"), Card("K", "H"), replace(card("KS"), suit="H"), copy.copy(card("KH")),
            copy.deepcopy(card("KH")), pickle.loads(pickle.dumps(card("KH")))]
    assert all(c is made[0] for c in made)
    assert made[0] == card("kh") and made[0] != card("KS") and made[0] != "KH"
    assert len({*made, card("KS"), card("JK")}) == 3
    assert Counter([card("KH"), Card("K", "H")])[card("KH")] == 2
