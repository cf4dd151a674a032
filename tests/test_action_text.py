"""The action text form printed in every message parses back (``parse_action``)."""

from __future__ import annotations

import pytest
from hypothesis import given

from canasta_conformance.contract.cards import cards
from canasta_conformance.contract.model import (
    Answer,
    Discard,
    FormatError,
    Meld,
    MeldGroup,
    TakePile,
    action_from_json,
    action_text,
    format_action,
    parse_action,
)
from strategies import actions


@given(actions)
def test_the_text_form_reads_back_as_the_same_action_as_the_json_form(action):
    assert parse_action(action_text(action)) == action_from_json(action.to_json())


def test_message_texts_parse():
    assert parse_action("take [9H 9S] + [KH KD KS]") == TakePile(cards("9H 9S"), (MeldGroup(cards("KD KH KS")),))
    assert parse_action("take []") == TakePile()
    assert parse_action("meld [7: 2C]") == Meld((MeldGroup(cards("2C"), "7"),))
    assert parse_action(" discard 10c ") == Discard(cards("TC")[0])
    assert parse_action("answer no") == Answer(False)
    assert format_action(parse_action("take [9H 9S] + [KH KD KS]")) == "take [9H 9S] + [KD KH KS]"


@pytest.mark.parametrize(("text", "says"), [
    ("fly", "unknown action 'fly'"),
    ("discard 1X", "1X"),
    ("answer maybe", "'answer yes' or 'answer no'"),
    ("meld KH KD KS", "brackets"),
    ("draw now", "takes nothing after it"),
    ("take [9H] [9S]", "one bracket"),
])
def test_a_bad_text_says_what_is_wrong(text, says):
    with pytest.raises(FormatError, match=says):
        parse_action(text)
