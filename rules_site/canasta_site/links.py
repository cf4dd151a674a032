"""Where each thing of the spec lives on the site, and links to it from any page.

Pages are addressed by their Markdown path (``rules/pile.md``); links are relative Markdown
links (``../rules/pile.md#pile.take.whole``) so that MkDocs checks every one of them.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable
from html import escape

from .markup import scan

RULES_INDEX = "rules/index.md"
VARIANTS = "variants.md"
PARAMETERS = "parameters.md"
CONFLICTS = "conflicts.md"
SOURCES = "sources.md"
SCENARIOS_INDEX = "scenarios/index.md"
REPORT = "reference/conformance-report.md"
SCHEMAS_INDEX = "reference/index.md"


def rel(target: str, source: str) -> str:
    """The relative link from page ``source`` to ``target`` (both docs-relative paths, anchors kept)."""
    path, _, anchor = target.partition("#")
    link = posixpath.relpath(path, posixpath.dirname(source) or ".") if path else ""
    return link + (f"#{anchor}" if anchor else "")


def page_url(path: str, directory_urls: bool = True) -> str:
    """The URL of a page relative to the site root, as MkDocs writes it (``rules/pile/``)."""
    if not path.endswith(".md"):
        return path
    stem = path[:-3]
    if directory_urls:
        if stem == "index":
            return ""
        if stem.endswith("/index"):
            return stem[: -len("index")]
        return stem + "/"
    return stem + ".html"


def href(target: str, source: str, directory_urls: bool = True) -> str:
    """The relative URL from page ``source`` to ``target`` for raw HTML, where MkDocs does not
    rewrite links (both are docs-relative Markdown paths; an anchor is kept)."""
    path, _, anchor = target.partition("#")
    if not path or path == source:
        return f"#{anchor}" if anchor else "./"
    to, here = page_url(path, directory_urls), page_url(source, directory_urls)
    base = here.rstrip("/") if here.endswith("/") else posixpath.dirname(here)
    link = posixpath.relpath(to.rstrip("/") or ".", base or ".")
    if to.endswith("/") or not to:
        link = "./" if link == "." else link + "/"
    return link + (f"#{anchor}" if anchor else "")


def rule_page(area: str) -> str:
    return f"rules/{area}.md"


def variant_page(variant: str) -> str:
    """The rulebook page of a variant with rules of its own (an area naming it in spec.yaml)."""
    return f"variants/{variant}.md"


def scenario_page(area: str, scenario_id: str) -> str:
    return f"scenarios/{area}/{scenario_id}.md"


def scenario_area_page(area: str) -> str:
    return f"scenarios/{area}/index.md"


def schema_page(name: str) -> str:
    return f"reference/{name}.md"


def parameter_anchor(name: str) -> str:
    return "p-" + name.replace(".", "-").replace("_", "-")


class Linker:
    """Links to the rules, parameters and conflicts of the spec, from any page, in Markdown or in
    raw HTML (drawn parts, where MkDocs does not rewrite links)."""

    def __init__(self, rule_areas: dict[str, str], parameters: Iterable[str] = (), conflicts: Iterable[str] = (),
                 directory_urls: bool = True) -> None:
        #: rule ID -> area
        self.rule_areas = rule_areas
        self.parameters = frozenset(parameters)
        self.conflicts = frozenset(conflicts)
        self.directory_urls = directory_urls

    # ---- targets

    def rule_target(self, rule_id: str) -> str:
        return f"{rule_page(self.rule_areas[rule_id])}#{rule_id}"

    def parameter_target(self, name: str) -> str:
        return f"{PARAMETERS}#{parameter_anchor(name)}"

    def conflict_target(self, conflict: str) -> str:
        return f"{CONFLICTS}#{conflict}"

    # ---- one link

    def rule_link(self, rule_id: str, page: str) -> str:
        """A Markdown link to a rule, its ID as code (an unknown ID stays plain code)."""
        if rule_id not in self.rule_areas:
            return f"`{rule_id}`"
        return f"[`{rule_id}`]({rel(self.rule_target(rule_id), page)})"

    def rule_links(self, rule_ids: Iterable[str], page: str, sep: str = ", ") -> str:
        return sep.join(self.rule_link(r, page) for r in rule_ids)

    def param_link(self, name: str, page: str) -> str:
        if name not in self.parameters:
            return f"`{name}`"
        return f"[`{name}`]({rel(self.parameter_target(name), page)})"

    def conflict_link(self, conflict: str, page: str) -> str:
        return f"[{conflict}]({rel(self.conflict_target(conflict), page)})"

    def url(self, target: str, page: str) -> str:
        return href(target, page, self.directory_urls)

    def rule_a(self, rule_id: str, page: str) -> str:
        """An HTML link to a rule (an unknown ID stays plain code)."""
        if rule_id not in self.rule_areas:
            return f"<code>{escape(rule_id)}</code>"
        return f'<a href="{self.url(self.rule_target(rule_id), page)}"><code>{rule_id}</code></a>'

    # ---- text: one pass of :func:`canasta_site.markup.scan`

    def markdown(self, text: str, page: str, *, bare: bool = True, prefer_parameters: bool = False,
                 shortcode: Callable[[str, str], str] | None = None) -> str:
        """Markdown with rule IDs and parameter names in code spans linked, and (``bare``) also the
        bare rule IDs, parameter names and conflict IDs of running text; a name that is both a
        rule and a parameter links to the rule, or to the parameter if ``prefer_parameters``.
        Fenced code, links and tags are left alone; ``shortcode`` draws card shortcodes."""
        def code(body: str, span: str) -> str:
            if body in self.rule_areas:
                return self.rule_link(body, page)
            if body in self.parameters and "." in body:
                return self.param_link(body, page)
            return span

        def name(word: str) -> str:
            if word in self.parameters and (prefer_parameters or word not in self.rule_areas):
                return self.param_link(word, page)
            if word in self.rule_areas:
                return self.rule_link(word, page)
            if word in self.conflicts:
                return self.conflict_link(word, page)
            return word

        return scan(text, code=code, name=name if bare else None, shortcode=shortcode)

    def html(self, text: str, page: str) -> str:
        """A sentence of the spec or a scenario as HTML, with rule IDs, parameter names and
        conflict IDs linked (code spans as ``<code>``)."""
        def word(name: str, code: bool) -> str:
            if name in self.rule_areas:
                return self.rule_a(name, page)
            if name in self.parameters and ("." in name or code):
                return f'<a href="{self.url(self.parameter_target(name), page)}"><code>{name}</code></a>'
            if name in self.conflicts:
                return f'<a href="{self.url(self.conflict_target(name), page)}">{name}</a>'
            return f"<code>{escape(name)}</code>" if code else escape(name)

        return scan(" ".join(str(text).split()), code=lambda body, span: word(body, True),
                    name=lambda name: word(name, False), plain=lambda part: escape(part, quote=False),
                    keep=lambda part: escape(part, quote=False))


def table_cell(text: str) -> str:
    """Text for one cell of a Markdown table: pipes outside code escaped, on one line."""
    out, in_code = [], False
    for ch in text:
        if ch == "`":
            in_code = not in_code
        out.append("\\|" if ch == "|" and not in_code else ch)
    return "".join(out).replace("\n", " ")
