import copy
import json
import pickle

import pytest
from hypothesis import given

from canasta_conformance.contract.cards import cards
from canasta_conformance.contract.model import (
    FormatError,
    Meld,
    MeldGroup,
    Outcome,
    Position,
    ScoreSheet,
    TakePile,
    action_from_json,
    format_action,
)
from strategies import actions, outcomes, positions, sheets


@given(positions())
def test_positions_round_trip_through_json_text(position):
    text = json.dumps(position.to_json())
    assert Position.from_json(json.loads(text)) == position


@given(actions)
def test_actions_round_trip_through_json_text(action):
    text = json.dumps(action.to_json())
    back = action_from_json(json.loads(text))
    normalize = lambda a: action_from_json(a.to_json())  # noqa: E731 - groups compare in canonical order
    assert back == normalize(action)


@given(outcomes)
def test_outcomes_round_trip(outcome):
    assert Outcome.from_json(json.loads(json.dumps(outcome.to_json()))) == outcome


@given(sheets)
def test_score_sheets_round_trip(sheet):
    assert ScoreSheet.from_json(json.loads(json.dumps(sheet.to_json()))) == sheet


def test_positions_compare_hands_and_melds_as_multisets():
    a = Position.from_json({"hands": [["KH", "5C"], []], "melds": [[["9C", "9D", "JK"]], []], "pile": [], "stock": []})
    b = Position.from_json({"hands": [["5C", "KH"], []], "melds": [[["JK", "9D", "9C"]], []], "pile": [], "stock": []})
    assert a == b


def test_pile_and_stock_keep_their_order():
    a = Position.from_json({"hands": [[], []], "melds": [[], []], "pile": ["KH", "5C"], "stock": ["AC", "AD"]})
    b = Position.from_json({"hands": [[], []], "melds": [[], []], "pile": ["5C", "KH"], "stock": ["AC", "AD"]})
    assert a != b
    assert [c.token for c in a.pile] == ["KH", "5C"]


def test_meld_ranks_written_as_numbers_are_accepted():
    group = MeldGroup.from_json({"rank": 7, "cards": ["JK"]}, ("melds", 0))
    assert group.rank == "7"
    assert MeldGroup.from_json({"rank": 10, "cards": ["JK"]}, ("m",)).rank == "T"


@pytest.mark.parametrize(
    ("data", "path"),
    [
        ({"type": "fly"}, "action.type"),
        ({"type": "discard"}, "action"),
        ({"type": "discard", "card": "XX"}, "action.card[0]"),
        ({"type": "take", "cards": ["9H", "QQ"]}, "action.cards[1]"),
        ({"type": "answer"}, "action.permit"),
        ("draw", "action"),
    ],
)
def test_bad_actions_name_the_path(data, path):
    with pytest.raises(FormatError) as error:
        action_from_json(data)
    assert error.value.path == path


def test_format_action_reads_like_notation():
    take = TakePile(cards("9H 9S"), (MeldGroup(cards("KH KD KS")), MeldGroup(cards("JK"), "7")))
    assert format_action(take) == "take [9H 9S] + [KD KH KS] + [7: JK]"


def test_meld_of_is_the_same_value_as_meld():
    """Meld.of (the move generator's quick constructor) makes what Meld() makes: equal both ways,
    same hash, repr, JSON and type field, and it survives pickling and copying as that value."""
    groups = (MeldGroup(cards("JK KC KD")), MeldGroup(cards("2C"), "7"))
    made, quick = Meld(groups), Meld.of(groups)
    assert quick == made and made == quick and hash(quick) == hash(made)
    assert repr(quick) == repr(made) and quick.to_json() == made.to_json() and quick.type == "meld"
    assert quick != Meld.of(groups[:1])
    for back in (pickle.loads(pickle.dumps(quick)), copy.deepcopy(quick), copy.copy(quick)):
        assert back == made and back.type == "meld"
    assert action_from_json(quick.to_json()) == action_from_json(made.to_json())


def test_meld_group_of_is_the_same_value_as_meld_group():
    """MeldGroup.of (the move generator's quick constructor) makes what MeldGroup() makes: equal
    both ways, same hash, repr, JSON and sequence field, and it survives pickling and copying."""
    for args in ((cards("JK KC KD"),), (cards("2C"), "7")):
        made, quick = MeldGroup(*args), MeldGroup.of(*args)
        assert quick == made and made == quick and hash(quick) == hash(made) and quick.sequence is False
        assert repr(quick) == repr(made) and quick.to_json() == made.to_json()
        for back in (pickle.loads(pickle.dumps(quick)), copy.deepcopy(quick), copy.copy(quick)):
            assert back == made and back.sequence is False
    assert MeldGroup.of(cards("2C"), "7") != MeldGroup(cards("2C")) and MeldGroup.of(cards("2C")) != MeldGroup(cards("2C"), None, True)
