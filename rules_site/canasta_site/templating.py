"""The Jinja2 environment of the page templates (``templates/``, one per page kind).

Templates write Markdown with some HTML: nothing is escaped unless a template asks (``| h``), and
comments are ``{## ... ##}`` because ``{#anchor}`` is Markdown (an attribute list). The page
modules add their filters and globals.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import jinja2


@cache
def templates() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("canasta_site", "templates"),
        autoescape=False, trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True,
        undefined=jinja2.StrictUndefined,
        comment_start_string="{##", comment_end_string="##}",
    )
    env.filters["json"] = lambda value: json.dumps(value, ensure_ascii=False)
    return env


def render(template: str, **context: Any) -> str:
    return templates().get_template(template).render(**context)
