"""The MkDocs adapter of the rules site (listed under ``hooks:`` in ``mkdocs.yml``).

It only moves data between MkDocs and :mod:`canasta_site`: the generated pages are
added as virtual files (nothing generated is written into ``docs/``), the navigation sections
``rules/index.md``, ``scenarios/index.md`` and ``reference/index.md`` are filled with their
pages, and every page gets card shortcodes drawn and backticked rule IDs linked. Problems are
logged as warnings, so ``mkdocs build --strict`` fails on them.
"""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files, InclusionLevel

# MkDocs loads this file by its path; import the package it belongs to from beside it (the
# checkout's copy, not another installed one)
_ROOT = str(Path(__file__).resolve().parent.parent)
if _ROOT not in sys.path:
    sys.path.insert(0, _ROOT)

from canasta_conformance.contract.spec import SpecError  # noqa: E402 - after the sys.path entry above
from canasta_site.cards import ShortcodeError, render_shortcode, stylesheet  # noqa: E402 - after the sys.path entry above
from canasta_site.pages import Site, build_site  # noqa: E402 - after the sys.path entry above

log = logging.getLogger("mkdocs.hooks.canasta")
CSS = "assets/canasta-cards.css"
COUNTS = "<!-- canasta: counts -->"

_site: Site | None = None


def on_config(config: Any) -> Any:
    global _site
    started = time.perf_counter()
    try:
        _site = build_site(directory_urls=config.use_directory_urls)
    except SpecError as error:  # nothing can be generated from a broken spec
        raise PluginError(str(error)) from None
    log.info("canasta: generated %d pages in %.1fs", len(_site.pages), time.perf_counter() - started)
    for problem in _site.problems:
        log.warning("canasta: %s", problem)
    config.nav = _expand_nav(config.nav, _site) if config.nav else config.nav
    if CSS not in config.extra_css:
        config.extra_css.append(CSS)
    return config


def _expand_nav(items: list[Any], site: Site) -> list[Any]:
    out: list[Any] = []
    for item in items:
        if isinstance(item, dict):
            (title, value), = item.items()
            if isinstance(value, str) and value in site.sections:
                out.append({title: [value, *({child_title: path} for child_title, path in site.sections[value])]})
            elif isinstance(value, list):
                out.append({title: _expand_nav(value, site)})
            else:
                out.append(item)
        elif isinstance(item, str) and item in site.sections:
            out.extend([item, *({t: p} for t, p in site.sections[item])])
        else:
            out.append(item)
    return out


def on_files(files: Files, config: Any) -> Files:
    assert _site is not None
    for path, content in _site.pages.items():
        existing = files.get_file_from_path(path)
        if existing is not None:
            log.warning("canasta: docs/%s is generated; remove the file from docs/", path)
            files.remove(existing)
        inclusion = InclusionLevel.NOT_IN_NAV if path in _site.not_in_nav else InclusionLevel.UNDEFINED
        files.append(File.generated(config, path, content=content, inclusion=inclusion))
    files.append(File.generated(config, CSS, content=stylesheet()))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    assert _site is not None and _site.linker is not None
    path = page.file.src_uri
    if path in _site.pages:  # generated: linked and drawn already
        return markdown
    markdown = markdown.replace(COUNTS, _site.counts_text())
    try:
        return _site.linker.markdown(markdown, path, bare=False,
                                     shortcode=lambda kind, body: _site.slot(render_shortcode(kind, body)))
    except ShortcodeError as error:
        log.warning("canasta: %s: %s", path, error)
        return markdown


def on_post_page(output: str, page: Any, config: Any) -> str:
    """Draw the cards: fill the placeholders (after the search plugin has indexed the page)."""
    assert _site is not None
    return _site.fill(output)
