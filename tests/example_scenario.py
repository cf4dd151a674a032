"""One small valid scenario that tests copy and break (format it with an id)."""

EXAMPLE = """\
# yaml-language-server: $schema=../../spec/schema/scenario.schema.json
id: {id}
title: A wild card on top of the discard pile blocks taking it
rules: [pile.blocked.wild-top]
position:
  hands:
    - [9H, 9S, KH, 5C]
    - [4D, 4H]
    - [6C, 6D]
    - [7S, 7D]
  melds:
    - [[KC, KD, KS]]
    - []
  pile: [9D, 2C]
  stock: [AC, AD, QH]
steps:
  - action: {{type: take, cards: [9H, 9S]}}
    expect: {{legal: false, violates: pile.blocked.wild-top}}
"""
