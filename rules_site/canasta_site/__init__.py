"""The rules site: every rule, variant and scenario as pages, with cards drawn in HTML.

A package of its own above the harness: it imports ``canasta_conformance`` (the contract, the
spec and scenario loaders, the runner) and nothing imports it. ``runs`` runs the corpus once on
the reference engine, keeping results and positions; ``pages`` gathers what each page kind
shows and renders it with that kind's Jinja2 template (``templates/``); ``markup`` is the one
Markdown pass that links names and draws card shortcodes (``links`` knows where everything
lives); ``cards`` and ``board`` draw cards and positions; ``schemadoc`` walks the JSON Schemas.
``mkdocs_hooks`` is the thin MkDocs adapter that ``mkdocs.yml`` lists under ``hooks:``.
"""

from __future__ import annotations

from .cards import card_html, cards_html, expand_shortcodes, stylesheet
from .pages import Site, build_site

__all__ = ["Site", "build_site", "card_html", "cards_html", "expand_shortcodes", "stylesheet"]
