"""Untrusted text made inert for each format.

Names of systems, queries and metrics, and the notes quoting them, come from users' files: a name
may hold markup, TeX commands, terminal escape sequences or line breaks. Every renderer passes every
such string through the function of its format, and nothing else, before writing it.
"""
from __future__ import annotations

import html as _html
import re

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
# Markdown: backslash first (it escapes the rest), the inline markup, table pipes, math dollars;
# <, > and & as entities so that no HTML a Markdown renderer passes through can form.
_MARKDOWN = {"\\": "\\\\", "`": "\\`", "*": "\\*", "_": "\\_", "[": "\\[", "]": "\\]", "|": "\\|", "~": "\\~",
             "$": "\\$", "<": "&lt;", ">": "&gt;", "&": "&amp;"}
_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
          "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}",
          ">": r"\textgreater{}", "|": r"\textbar{}", "[": "{[}", "]": "{]}"}  # a [ after \\ would be a length
_MARKDOWN_RE = re.compile("|".join(map(re.escape, _MARKDOWN)))
_LATEX_RE = re.compile("|".join(map(re.escape, _LATEX)))


def control(s: object) -> str:
    """Control characters as visible escapes (``\\n``, ``\\x1b``): one line, and nothing a terminal obeys."""
    return _CONTROL.sub(lambda m: _NAMED.get(m.group(), f"\\x{ord(m.group()):02x}"), str(s))


def markdown(s: object) -> str:
    return _MARKDOWN_RE.sub(lambda m: _MARKDOWN[m.group()], control(s))


def latex(s: object) -> str:
    return _LATEX_RE.sub(lambda m: _LATEX[m.group()], control(s))


def html(s: object) -> str:
    """Text content or a quoted attribute value; line breaks stay (HTML shows them as spaces)."""
    return _html.escape(str(s), quote=True)
