"""The rules site: every rule, variant and scenario as pages, with cards drawn in HTML.

The generation logic lives in plain functions here (``cards`` draws cards and positions,
``pages`` writes the Markdown of every generated page, ``schemadoc`` walks the JSON Schemas,
``links`` turns rule IDs into links, ``report`` runs the corpus on the reference engine).
``mkdocs_hooks`` is the thin MkDocs adapter that ``mkdocs.yml`` lists under ``hooks:``.
"""

from __future__ import annotations

from .cards import card_html, cards_html, expand_shortcodes, stylesheet
from .pages import Site, build_site

__all__ = ["Site", "build_site", "card_html", "cards_html", "expand_shortcodes", "stylesheet"]
