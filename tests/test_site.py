"""The rules site: card drawing, links, the schema reference, and the built site checked against
the data (every rule an anchor, every scenario a page, search, links, no external requests)."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from canasta_conformance.contract.model import Position
from canasta_conformance.contract.paths import scenarios_dir, schema_dir
from canasta_conformance.contract.scenario import Scenario, load_scenarios, scenario_files
from canasta_conformance.contract.spec import load_spec
from canasta_conformance.running.runner import run_scenario
from canasta_site.board import Table
from canasta_site.cards import ShortcodeError, card_html, cards_html, expand_shortcodes, pile_html
from canasta_site.links import Linker, href
from canasta_site.schemadoc import SchemaWriter, schema_files
from corpus_once import SCENARIOS
from html_scan import PageFacts, parse_page, scan_page
from shared_builds import build_once, build_site, mkdocs_available, shared_folder

ROOT = Path(__file__).resolve().parent.parent
SPEC = load_spec()


# --------------------------------------------------------------------------------------------
# The site is its own package, above the harness


def _imported_modules(package: Path) -> set[str]:
    import ast

    names: set[str] = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names.add(node.module)
    return names


def test_the_site_imports_the_harness_and_never_the_other_way():
    import canasta_site

    site_package = Path(canasta_site.__file__).parent
    assert site_package == ROOT / "rules_site" / "canasta_site"
    assert any(name.startswith("canasta_conformance") for name in _imported_modules(site_package))
    harness = ROOT / "conformance" / "canasta_conformance"
    reference = ROOT / "reference_impl" / "canasta_reference"
    upward = sorted(n for n in _imported_modules(harness) | _imported_modules(reference) if n.split(".")[0] == "canasta_site")
    assert upward == []


# --------------------------------------------------------------------------------------------
# Cards


def test_a_card_is_an_image_with_a_name():
    html = card_html("KH")
    assert 'role="img"' in html and 'aria-label="King of Hearts"' in html
    assert "cc-red" in html and "\u2665\ufe0e" in html


def test_ten_is_drawn_as_10_and_black_suits_are_black():
    html = card_html("TS")
    assert ">10<" in html and "cc-black" in html and "\u2660\ufe0e" in html
    assert 'aria-label="Ten of Spades"' in html


def test_every_suit_symbol_asks_for_text_presentation():
    for token, symbol in (("2C", "\u2663"), ("2D", "\u2666"), ("2H", "\u2665"), ("2S", "\u2660")):
        html = card_html(token)
        assert html.count(symbol) == 2 and html.count(symbol + "\ufe0e") == 2
    assert "cc-red" in card_html("2D") and "cc-black" in card_html("2C")


def test_a_joker_is_drawn_apart_from_suit_cards():
    html = card_html("JK")
    assert "cc-joker" in html and 'aria-label="Joker"' in html
    assert "cc-red" not in html and "cc-black" not in html


def test_duplicates_are_drawn_twice():
    html = cards_html(["KH", "KH", "JK"])
    assert html.count('data-card="KH"') == 2 and html.count('data-card="JK"') == 1


def test_freezing_cards_lie_crosswise_in_the_pile():
    html = pile_html(["7C", "2D", "9H", "3D", "KS", "JK"])
    crosswise = re.findall(r'<span class="cc-cross"><span [^>]*data-card="(\w\w)"', html)
    assert crosswise == ["2D", "3D", "JK"]
    assert "crosswise (it freezes the pile)" in html
    freezing_black_threes = replace(SPEC.variant_rules("classic"), black_three_discard_effect="freeze")
    assert 'data-card="3S"' in pile_html(["3S"], freezing_black_threes.freezes_pile).split("cc-cross")[1]
    assert "cc-cross" not in pile_html(["3S"])


def test_shortcodes_are_drawn_outside_code_only():
    markdown = (
        "A hand: <!-- cards: KH 10d jk -->\n\n"
        "Written as `<!-- cards: KH -->` in a page.\n\n"
        "```md\n<!-- pile: 2C -->\n```\n"
        "<!-- pile: 9D 2C -->\n"
    )
    out = expand_shortcodes(markdown)
    assert out.count('class="cc-cards') == 2
    assert "`<!-- cards: KH -->`" in out and "```md\n<!-- pile: 2C -->\n```" in out
    assert 'data-card="TD"' in out and 'data-card="JK"' in out


def test_a_shortcode_with_a_wrong_card_fails_loudly():
    with pytest.raises(ShortcodeError, match="1X"):
        expand_shortcodes("<!-- cards: KH 1X -->")


def test_the_table_draws_a_whole_position():
    position = Position.from_json({
        "turn": 2, "dealer": 1, "hands": [["4C"], ["6C"], ["TH", "TS"], ["JH"]],
        "melds": [[["AC", "AD", "AH", "AS", "AC", "AD", "2C"]], []], "red_threes": [["3H"], []],
        "pile": ["3D", "2C", "9S"], "stock": ["QC", "QD"],
    })
    html = Table(SPEC.variant_rules("classic")).position(position)
    assert "Side 0 (seats 0 and 2)" in html and "Seat 2 hand" in html and "to move" in html
    assert "mixed canasta" in html and "Red threes" in html
    assert 'aria-label="Stock of 2 cards, face down"' in html
    assert re.findall(r'<span class="cc-cross"><span [^>]*data-card="(\w\w)"', html) == ["3D", "2C"]
    assert "\n" not in html and "|" not in html  # fits in a Markdown table cell


def test_red_threes_kept_per_player_are_drawn_by_seat():
    """Regal keeps red threes per player (red_three.per_player): each seat's are shown by its hand,
    seat 2's under side 0, not the entry of index 0 as a side's."""
    position = Position.from_json({
        "variant": "regal", "hands": [["4C"], ["6C"], ["TH"], ["JH"]], "melds": [[], []],
        "red_threes": [[], ["3D"], ["3H"], []], "pile": ["9S"], "stock": ["QC"],
    })
    table = Table(SPEC.variant_rules("regal"))
    html = table.position(position)
    side0 = html[html.index("Side 0"):html.index("Side 1")]
    assert "Seat 2 red threes" in side0 and 'data-card="3H"' in side0 and "3D" not in side0
    assert "Seat 1 red threes" in html[html.index("Side 1"):]
    assert "Seat 1 red threes" in table.expected({"red_threes": [[], ["3D"], [], []]})
    assert "Side 1 red threes" in Table(SPEC.variant_rules("classic")).expected({"red_threes": [[], ["3D"]]})


def test_talons_and_a_wild_card_canasta_are_drawn():
    position = Position.from_json({
        "variant": "modern-american", "hands": [["4C"], ["6C"], ["TH", "TS"], ["JH"]],
        "melds": [[["JK", "JK", "2C", "2D", "2H", "2S", "JK"]], []], "pile": ["9S"], "stock": ["QC"],
        "talons": [["AC", "AD", "AH", "AS"], ["KC", "KD", "KH"]],
    })
    table = Table(SPEC.variant_rules("modern-american"))
    html = table.position(position)
    assert "wild-card canasta" in html and "Talons" in html
    assert 'aria-label="Next talon of 4 cards, face down"' in html and 'aria-label="Talon 2 of 3 cards, face down"' in html
    talons = html[html.index("Talons"):]
    assert re.findall(r'data-card="(\w\w)"', talons)[:7] == ["AC", "AD", "AH", "AS", "KC", "KD", "KH"]
    expected = table.expected({"talons": [["KC", "KD", "KH"]]})
    assert "Next talon of 3 cards" in expected
    assert "Turn card" in html and "drawn" in html  # a stock of one card: the turn card is gone


def test_the_turn_card_is_shown_in_the_stock_of_a_modern_position():
    """modern.deal.turn-card: the ninth card from the bottom of the stock is face up; Classic has none."""
    stock = ["QS", "TS", "9S", "8S", "5S", "5H", "6S", "6H", "4S", "4H"]
    position = Position.from_json({"variant": "modern-american", "hands": [["4C"], ["6C"], ["TH"], ["JH"]], "melds": [[], []], "stock": stock})
    html = Table(SPEC.variant_rules("modern-american")).position(position)
    turn = html[html.index("Turn card"):]
    assert re.findall(r'data-card="(\w\w)"', turn)[0] == "TS"  # ten cards, top first: the 9th from the bottom is the 2nd
    assert "9th card from the bottom" in turn
    classic = Position.from_json({"hands": [["4C"], ["6C"], ["TH"], ["JH"]], "melds": [[], []], "stock": stock})
    assert "Turn card" not in Table(SPEC.variant_rules("classic")).position(classic)


# --------------------------------------------------------------------------------------------
# Links


def test_links_from_raw_html_follow_directory_urls():
    assert href("rules/pile.md#pile.take.whole", "scenarios/pile/x.md") == "../../../rules/pile/#pile.take.whole"
    assert href("scenarios/pile/index.md", "scenarios/pile/x.md") == "../"
    assert href("rules/meld.md", "rules/index.md") == "meld/"
    assert href("index.md", "rules/pile.md") == "../../"
    assert href("rules/pile.md#a", "rules/pile.md") == "#a"
    assert href("rules/pile.md#a", "scenarios/pile/x.md", directory_urls=False) == "../../rules/pile.html#a"


def test_backticked_rule_ids_become_links_outside_code():
    linker = Linker({r.id: r.area for r in SPEC.rules.values()})
    markdown = "See `pile.take.whole` and `not.a-rule`.\n\n```yaml\nrules: [`pile.take.whole`]\n```\n[`pile.take.whole`](x.md)\n"
    out = linker.markdown(markdown, "guides/x.md", bare=False)
    assert "[`pile.take.whole`](../rules/pile.md#pile.take.whole)" in out
    assert "`not.a-rule`" in out and "rules: [`pile.take.whole`]" in out
    assert out.count("](") == 2


def test_one_pass_links_bare_names_in_prose_and_leaves_code_links_and_anchors_alone():
    linker = Linker({r.id: r.area for r in SPEC.rules.values()}, SPEC.parameters, SPEC.conflicts)
    conflict = next(iter(SPEC.conflicts))
    text = (f"By pile.take.whole (see {conflict}), cards.wild_ranks and `canasta.min_cards`; "
            "not e.g. or pile.take.whole.extra; kept: [pile.take.whole](x.md) <b title=\"pile.take.whole\"> "
            "{#pile.take.whole} ``code `pile.take.whole` ``")
    out = linker.markdown(text, "rules/index.md")
    assert out.startswith("By [`pile.take.whole`](pile.md#pile.take.whole) (see "
                          f"[{conflict}](../conflicts.md#{conflict})), [`cards.wild_ranks`](../parameters.md#p-cards-wild-ranks) "
                          "and [`canasta.min_cards`](../parameters.md#p-canasta-min-cards); ")
    assert "not e.g. or pile.take.whole.extra; kept: [pile.take.whole](x.md) <b title=\"pile.take.whole\"> {#pile.take.whole} " in out
    assert out.endswith("``code `pile.take.whole` ``")
    html = linker.html("A <b> and `pile.take.whole` or pile.take.whole", "rules/index.md")
    assert html == ('A &lt;b&gt; and <a href="pile/#pile.take.whole"><code>pile.take.whole</code></a> '
                    'or <a href="pile/#pile.take.whole"><code>pile.take.whole</code></a>')


# --------------------------------------------------------------------------------------------
# The schema reference


def _keys(schema: object, prefix: str = "") -> Iterator[str]:
    if isinstance(schema, dict):
        for key, sub in (schema.get("properties") or {}).items():
            yield prefix + key
            yield from _keys(sub, f"{prefix}{key}.")
        items = schema.get("items")
        if isinstance(items, dict) and items.get("properties"):
            yield from _keys(items, prefix.rstrip(".") + "[]." if prefix else "[].")
        for alt in schema.get("oneOf", ()):
            if isinstance(alt, dict) and "$ref" not in alt:
                yield from _keys(alt, prefix)


def test_the_schema_reference_lists_every_key_and_definition():
    files = schema_files(schema_dir())
    writer = SchemaWriter(files)
    assert {f.name for f in files} >= {"scenario", "position", "action"}
    for schema_file in files:
        page = writer.page(schema_file)
        for definition in (schema_file.data.get("definitions") or {}):
            assert f"### `{definition}`" in page, (schema_file.name, definition)
        for key in {k.rsplit(".", 1)[-1].rsplit("[].", 1)[-1] for k in _keys(schema_file.data)}:
            assert f"{key}`" in page, (schema_file.name, key)
    scenario_page = writer.page(next(f for f in files if f.name == "scenario"))
    assert "`steps[].expect.violates`" in scenario_page
    assert "[partial_position](position.md#def-partial-position)" in scenario_page


def test_a_broken_scenario_file_is_a_problem_and_the_others_still_get_pages(tmp_path):
    from canasta_site.pages import build_site

    corpus = tmp_path / "scenarios" / "pile"
    corpus.mkdir(parents=True)
    good = scenarios_dir() / "pile" / "pile-wild-top-blocks-take.yaml"
    (corpus / good.name).write_text(good.read_text(encoding="utf-8"))
    (corpus / "pile-broken.yaml").write_text(
        "# yaml-language-server: $schema=../../spec/schema/scenario.schema.json\nid: pile-broken\ntitle: x\n")
    site = build_site(scenarios_root=tmp_path / "scenarios")
    assert any("pile-broken.yaml" in problem for problem in site.problems)
    assert "scenarios/pile/pile-wild-top-blocks-take.md" in site.pages
    assert "scenarios/pile/pile-broken.md" not in site.pages
    assert site.corpus_run is not None and site.corpus_run.results["pile-wild-top-blocks-take"].status == "passed"
    page = site.fill(site.pages["scenarios/pile/pile-wild-top-blocks-take.md"])
    assert page.count('data-card="2C"') >= 1 and "<!--cc:" not in page


class _CitingEngine:
    """The reference engine citing an unrelated rule for one rejection and a broader rule for another."""

    def __init__(self) -> None:
        from canasta_reference import create_engine

        self.inner = create_engine()

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def apply(self, action: object) -> object:
        from canasta_conformance.contract.model import Outcome

        outcome = self.inner.apply(action)
        if outcome.status == "rejected" and outcome.rule == "pile.frozen.add-not-enough":
            return Outcome("rejected", "turn.phase", outcome.message)
        if outcome.status == "rejected" and outcome.rule == "pile.frozen.no-wild-in-pair":
            return Outcome("rejected", "pile.frozen.take-with-natural-pair", outcome.message)
        return outcome


def test_the_report_page_shows_tiers_and_the_citations(tmp_path):
    from canasta_site.pages import build_site

    site = build_site(scenarios_root=scenarios_dir() / "pile", engine=_CitingEngine, engine_label="citing")
    page = site.pages["reference/conformance-report.md"]
    assert "| area | passed | failed | error | unsupported | rule-differs | total |" in page
    tiers = page[page.index("## By tier"):page.index("## Citations")]
    results = site.corpus_run.results.values() if site.corpus_run else []
    for tier in ("core", "reading"):
        count = sum(1 for r in results if r.tier is not None and r.tier.name == tier)
        if count:
            assert re.search(rf"^\| {tier} \|.* {count} \|$", tiers, re.M), (tier, count)
    citations = page[page.index("## Citations"):]
    assert re.search(r"\| \[`pile.frozen.add-not-enough`\]\([^)]*\) \| \[`turn.phase`\]\([^)]*\) \| differs \|", citations)
    assert re.search(r"\| \[`pile.frozen.no-wild-in-pair`\]\([^)]*\) \| \[`pile.frozen.take-with-natural-pair`\]\([^)]*\) \| agrees \(broader\) \|", citations)
    differs = sum(1 for r in results if r.status == "rule-differs")
    assert differs >= 1 and f"{differs} rule-differs**" in page


# --------------------------------------------------------------------------------------------
# The built site


@dataclass(frozen=True)
class Built:
    site: Path
    seconds: float
    output: str
    scenarios: tuple[Scenario, ...]


def built_site(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The site, built once per test run and shared by the xdist workers (shared_builds: started in
    the background as soon as collection selects a test that needs it)."""
    info = build_once(shared_folder(tmp_path_factory, "site"), build_site)
    return Built(shared_folder(tmp_path_factory, "site") / "site", info["seconds"], info["output"], tuple(SCENARIOS))


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    reason = mkdocs_available()
    if reason:
        pytest.skip(reason)
    return built_site(tmp_path_factory)


@pytest.fixture(scope="module")
def pages(built: Built) -> dict[Path, PageFacts]:
    """Every built page's ids, links, resources and unlinked rule IDs (html_scan.scan_page, which
    reads the same as the standard library's HTML parser, about three times faster)."""
    return {path: scan_page(path.read_text(encoding="utf-8"), SPEC.rules) for path in built.site.rglob("*.html")}


TRICKY_HTML = """<!DOCTYPE html><HTML><head><link rel=stylesheet HREF='a.css'><style>a > b { x: '<a href=no>' }</style>
<script src="s.js" defer></script><script>var t = "<a href='nowhere'></a></b>"; if (a<b) {}</script></head>
<body><!-- <a href="commented"> --><h2 id="pile.frozen.no-wild-in-pair">x</h2><p ID = "Up" class=x>A &amp; B</p>
<a href="r.html#k&amp;q" title="1 > 0">link <code>pile.frozen.take-with-natural-pair</code></a>
<p><code>pile.frozen.no-wild-in-pair</code> and <code>not.a.rule</code> &lt;code&gt;</p><pre><code>meld.min-cards</code></pre>
<img src=i.png alt="a 'quoted' > sign"/><iframe src="f.html"></iframe><div id=bare data-x=1 hidden></div><br/><a>no href</a></body></HTML>"""


def test_the_fast_page_reader_reads_what_the_html_parser_reads():
    facts = scan_page(TRICKY_HTML, SPEC.rules)
    assert facts == parse_page(TRICKY_HTML, SPEC.rules)
    assert facts.ids == {"pile.frozen.no-wild-in-pair", "Up", "bare"}
    assert facts.links == ["r.html#k&q"]
    assert facts.resources == ["a.css", "s.js", "i.png", "f.html"]
    assert facts.unlinked_codes == ["pile.frozen.no-wild-in-pair"]


def test_the_fast_page_reader_opens_a_quoted_value_only_after_an_equals_sign():
    text = """<p title=it's>x</p><a href='x.html'>y</a><p class=a"b>'</p><a href="z.html">z</a>"""
    assert scan_page(text, SPEC.rules) == parse_page(text, SPEC.rules)
    assert scan_page(text, SPEC.rules).links == ["x.html", "z.html"]


def test_the_fast_page_reader_reads_built_pages_as_the_html_parser_does(built: Built):
    sample = [built.site / "index.html", built.site / "variants" / "index.html", *sorted(built.site.glob("scenarios/*/*/index.html"))[:2],
              *sorted(built.site.glob("rules/*/index.html"))[:2]]
    assert len(sample) == 6
    for path in sample:
        text = path.read_text(encoding="utf-8")
        assert scan_page(text, SPEC.rules) == parse_page(text, SPEC.rules), path


def test_the_build_is_strict_and_reports_its_time(built: Built):
    assert "WARNING" not in built.output
    print(f"\nmkdocs build --strict: {built.seconds:.1f} s for {len(built.scenarios)} scenarios")


def test_every_rule_has_an_anchor_on_its_area_page(built: Built, pages):
    missing = []
    for rule in SPEC.rules.values():
        page = built.site / "rules" / rule.area / "index.html"
        if page not in pages or rule.id not in pages[page].ids:
            missing.append(rule.id)
    assert missing == []
    assert len(SPEC.rules) > 100


def test_every_scenario_has_a_page_with_its_cards(built: Built):
    missing, undrawn = [], []
    for scenario in built.scenarios:
        page = built.site / "scenarios" / scenario.area / scenario.id / "index.html"
        if not page.is_file():
            missing.append(scenario.id)
            continue
        html = page.read_text(encoding="utf-8")
        if scenario.id not in html or 'class="cc-card' not in html or 'role="img"' not in html:
            undrawn.append(scenario.id)
    assert (missing, undrawn) == ([], [])
    assert len(built.scenarios) >= 100


def test_every_rule_page_lists_the_scenarios_that_exercise_it(built: Built):
    by_area: dict[str, str] = {}
    missing = []
    for scenario in built.scenarios:
        for rule_id in scenario.rules:
            area = SPEC.rules[rule_id].area
            if area not in by_area:
                by_area[area] = (built.site / "rules" / area / "index.html").read_text(encoding="utf-8")
            if f"/{scenario.id}/" not in by_area[area]:
                missing.append((rule_id, scenario.id))
    assert missing == []


def test_freezing_cards_of_a_scenario_pile_are_drawn_crosswise(built: Built):
    checked = 0
    for scenario in built.scenarios:
        if scenario.position is None or scenario.variant != "classic" or scenario.options:
            continue
        wild = [c for c in scenario.position.pile if c.rank in ("JK", "2") or c.is_red_three]
        if not wild:
            continue
        html = (built.site / "scenarios" / scenario.area / scenario.id / "index.html").read_text(encoding="utf-8")
        start = html.index("Starting position")
        pile = html[html.index("Discard pile", start):html.index("Stock", html.index("Discard pile", start))]
        crosswise = re.findall(r'<span class="cc-cross"><span [^>]*data-card="(\w\w)"', pile)
        assert sorted(crosswise) == sorted(c.token for c in wild), scenario.id
        checked += 1
    assert checked >= 5


def test_no_placeholder_or_shortcode_is_left(built: Built):
    left = [p for p in built.site.rglob("*.html") if re.search(r"<!--\s*(cc:\d+|cards:|fan:|pile:)", p.read_text(encoding="utf-8"))]
    assert left == []


def test_search_finds_every_rule_id_and_scenario_id(built: Built):
    index = json.loads((built.site / "search" / "search_index.json").read_text(encoding="utf-8"))
    text = "\n".join(f"{d['location']} {d['title']} {d['text']}" for d in index["docs"])
    missing_rules = [r for r in SPEC.rules if r not in text]
    missing_scenarios = [s.id for s in built.scenarios if s.id not in text]
    assert (missing_rules, missing_scenarios) == ([], [])


def test_every_rule_id_in_code_is_a_link(pages):
    unlinked = {str(path): page.unlinked_codes for path, page in pages.items() if page.unlinked_codes}
    assert unlinked == {}


def test_backticked_rule_ids_in_the_guides_are_links(built: Built):
    html = (built.site / "guides" / "testing-your-engine" / "index.html").read_text(encoding="utf-8")
    assert '<a href="../../rules/pile/#pile.blocked.wild-top"><code>pile.blocked.wild-top</code></a>' in html


def link_target(site: str, page: str, href_path: str, folders: set[str], files: set[str]) -> str | None:
    """The file a relative link of the built page ``page`` leads to, None if there is none (paths
    as real-path strings). The site's ``folders`` and ``files`` are listed once, since a file-system
    call per link costs seconds over the site's ~50,000 links; a path outside the site is asked of
    the file system."""
    target = page if not href_path else os.path.normpath(os.path.join(os.path.dirname(page), unquote(href_path)))
    if target == site or target.startswith(site + os.sep):
        if target in folders:
            target = os.path.join(target, "index.html")
        return target if target in files else None
    if os.path.isdir(target):
        target = os.path.join(target, "index.html")
    return target if os.path.exists(target) else None


def test_every_internal_link_and_anchor_resolves(built: Built, pages):
    site = os.path.realpath(built.site)
    folders, files = {site}, set()
    for folder, subfolders, names in os.walk(site):
        folders.update(os.path.join(folder, name) for name in subfolders)
        files.update(os.path.join(folder, name) for name in names)
    ids = {os.path.realpath(path): page.ids for path, page in pages.items()}
    broken = []
    for path, page in pages.items():
        if path.name == "404.html":  # served at any depth: MkDocs gives it absolute links
            continue
        page_path = os.path.realpath(path)
        for link in page.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "javascript:")):
                continue
            target = link_target(site, page_path, parts.path, folders, files)
            if target is None:
                broken.append(f"{path.relative_to(built.site)}: {link}")
                continue
            anchor = unquote(parts.fragment)
            if anchor and target.endswith(".html") and target in ids and anchor not in ids[target]:
                broken.append(f"{path.relative_to(built.site)}: {link} (no anchor)")
    assert broken == []


def test_the_site_loads_nothing_from_outside(built: Built, pages):
    external = sorted({r for page in pages.values() for r in page.resources if urlsplit(r).scheme or r.startswith("//")})
    assert external == []
    for path in (built.site / "assets").rglob("*.css"):
        assert "fonts.googleapis" not in path.read_text(encoding="utf-8"), path


def test_the_variants_table_highlights_what_differs(built: Built):
    html = (built.site / "variants" / "index.html").read_text(encoding="utf-8")
    table = html[html.index('id="comparison"'):html.index('id="the-variants"')]
    players = re.search(r"<tr>\s*<td><a [^>]*><code>players</code></a></td>(.*?)</tr>", table, re.S)
    assert players, "no row for players"
    cells = re.findall(r"<td>(.*?)</td>", players.group(1), re.S)
    values = [re.sub(r"<[^>]+>", "", c) for c in cells]
    variants = [SPEC.default_variant, *sorted(v for v in SPEC.variants if v != SPEC.default_variant)]
    assert values == [str(SPEC.variant_parameters(v)["players"]) for v in variants]
    default = SPEC.variant_parameters(SPEC.default_variant)["players"]
    for cell, variant in zip(cells, variants, strict=True):
        assert ("cc-diff" in cell) == (SPEC.variant_parameters(variant)["players"] != default), variant


def test_the_modern_rulebook_gathers_its_rules_with_their_scenarios_drawn(built: Built):
    """The Modern American page reads as a rulebook: every rule of its own area under a topic, with
    its scenarios drawn with cards; the variants page links to it."""
    html = (built.site / "variants" / "modern-american" / "index.html").read_text(encoding="utf-8")
    modern = SPEC.rules_in("modern")
    assert modern and all(rule.id in html for rule in modern)
    topics = re.findall(r'<h2 id="([^"]+)"', html)
    assert topics.index("bonus-talons") < topics.index("going-out") < topics.index("scoring")
    section = html[html.index('id="bonus-talons"'):html.index('id="the-discard-pile"')]
    assert "modern-talon-first-side-takes-four-after-discard" in section and "data-card=" in section
    assert "instead of" in html  # the Classic rules it plays with other values
    variants = (built.site / "variants" / "index.html").read_text(encoding="utf-8")
    assert "modern-american/" in variants and "The rulebook of Modern American Canasta" in variants


def test_the_conformance_report_counts_every_scenario(built: Built):
    html = (built.site / "reference" / "conformance-report" / "index.html").read_text(encoding="utf-8")
    total = len(built.scenarios)
    assert f"of {total} scenarios" in html
    for area in {s.area for s in built.scenarios}:
        assert f"../../scenarios/{area}/" in html, area


def test_the_sitewide_pages_exist(built: Built):
    for page in ("index.html", "variants/index.html", "parameters/index.html", "conflicts/index.html",
                 "sources/index.html", "protocol/index.html", "reference/scenario/index.html",
                 "reference/protocol/index.html", "guides/writing-scenarios/index.html"):
        assert (built.site / page).is_file(), page
    conflicts = (built.site / "conflicts" / "index.html").read_text(encoding="utf-8")
    assert all(f'id="{c}"' in conflicts for c in SPEC.conflicts)
    sources = (built.site / "sources" / "index.html").read_text(encoding="utf-8")
    assert all(f'id="{s}"' in sources for s in SPEC.sources)


# --------------------------------------------------------------------------------------------
# The guide's example adapter is real code


def _python_blocks(guide: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", (ROOT / "docs" / "guides" / guide).read_text(encoding="utf-8"), re.S)


def test_the_guides_adapter_passes_and_its_bug_is_reported(tmp_path, monkeypatch):
    adapter, bug, _loop = _python_blocks("testing-your-engine.md")
    (tmp_path / "my_engine.py").write_text(adapter)
    anchor = "        outcome = self.inner.apply(action)\n"
    assert anchor in adapter
    (tmp_path / "buggy_engine.py").write_text(adapter.replace(anchor, anchor + bug))
    monkeypatch.syspath_prepend(str(tmp_path))
    import buggy_engine
    import my_engine

    scenarios, _ = load_scenarios(scenario_files(scenarios_dir() / "pile"), SPEC)
    engine = my_engine.create_engine()
    results = [run_scenario(s, engine) for s in scenarios]
    assert {r.status for r in results} <= {"passed", "unsupported"}
    assert sum(r.status == "passed" for r in results) > 10
    black_top = next(s for s in scenarios if s.id == "pile-black-three-top-blocks-take")
    result = run_scenario(black_top, buggy_engine.create_engine())
    assert result.status == "failed"
    assert "expected a rejection citing pile.blocked.black3-top, the engine accepted" in result.message
