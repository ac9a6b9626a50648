"""Turn bank text into something safe to show: Markdown with LaTeX, never live HTML.

Answers come from the bank (teachers, imports) and questions from students, so any of
them may hold ``<script>`` or ``<img onerror=...>``. Outside math, ``& < >`` become
entities, so the Markdown renderer shows them as text; inside math, ``<``/``>`` become
``\\lt``/``\\gt`` for KaTeX. Markdown images (which would load a URL) are shown as text.
Everything put into raw HTML here goes through :func:`html.escape`. Gradio's own HTML
sanitiser runs after this as a second fence.
"""

from __future__ import annotations

import html
import re
from urllib.parse import quote

from ui.i18n import t

LATEX_DELIMITERS = [
    {"left": "$$", "right": "$$", "display": True},
    {"left": "\\[", "right": "\\]", "display": True},
    {"left": "$", "right": "$", "display": False},
    {"left": "\\(", "right": "\\)", "display": False},
]

_MATH = re.compile(r"(\$\$.+?\$\$|\\\[.+?\\\]|\\\(.+?\\\)|(?<![\\$])\$[^$\n]+?\$)", re.DOTALL)


def safe_markdown(text: str | None) -> str:
    """Markdown source in which no HTML survives and math is left for KaTeX."""
    if not text:
        return ""
    out = []
    for i, part in enumerate(_MATH.split(text)):
        if i % 2:  # a math span
            out.append(part.replace("<", "\\lt ").replace(">", "\\gt "))
        else:
            out.append(_escape_text(part))
    return "".join(out)


def _escape_text(part: str) -> str:
    part = part.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return part.replace("![", "!\\[")


def plain(text: str | None) -> str:
    """Text for an HTML context, escaped (quotes too)."""
    return html.escape(text or "", quote=True)


def confidence_html(confidence: float, lang: str) -> str:
    pct = max(0, min(100, round(float(confidence) * 100)))
    level = "high" if pct >= 90 else "mid" if pct >= 70 else "low"
    return (
        f'<div class="eq-conf eq-conf-{level}" role="meter" aria-valuemin="0" aria-valuemax="100" '
        f'aria-valuenow="{pct}" aria-label="{plain(t(lang, "confidence"))}">'
        f'<span class="eq-conf-label">{plain(t(lang, "confidence"))}</span>'
        f'<span class="eq-conf-track"><span class="eq-conf-fill" style="width:{pct}%"></span></span>'
        f'<span class="eq-conf-value">{pct}%</span></div>'
    )


def chips_html(points: list[str] | tuple[str, ...], lang: str) -> str:
    if not points:
        return ""
    chips = "".join(f'<span class="eq-chip">{plain(p)}</span>' for p in points)
    return f'<div class="eq-chips"><span class="eq-meta-label">{plain(t(lang, "knowledge_points"))}</span>{chips}</div>'


def meta_html(card, lang: str) -> str:
    """Confidence bar, knowledge-point chips, source and notices of an answered card."""
    parts = [confidence_html(card.confidence, lang), chips_html(card.knowledge_points, lang)]
    if card.source:
        parts.append(f'<div class="eq-source"><span class="eq-meta-label">{plain(t(lang, "source"))}</span>'
                     f"{plain(card.source)}</div>")
    if card.matched_question:
        parts.append(f'<div class="eq-matched"><span class="eq-meta-label">{plain(t(lang, "matched"))}</span>'
                     f"{plain(card.matched_question)}</div>")
    parts.extend(f'<div class="eq-notice">{plain(n)}</div>' for n in card.notices)
    return f'<div class="eq-meta">{"".join(p for p in parts if p)}</div>'


def message_html(message: str, kind: str = "info") -> str:
    """A kind message box (abstain, errors) — text only."""
    return f'<div class="eq-message eq-message-{plain(kind)}" role="status">{plain(message)}</div>'


# 👍/👎 drawn inline (an SVG in a data: address), so they show on a box without an emoji font.
_THUMB_SVG = ("<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 24 24' fill='none' stroke='#374151' "
              "stroke-width='2' stroke-linejoin='round' stroke-linecap='round'><path d='M7 11v9H3v-9z'/>"
              "<path d='M7 11l4-8a2.5 2.5 0 0 1 2.5 2.5V9h5.2a2 2 0 0 1 2 2.3l-1.2 7A2 2 0 0 1 17.5 20H7'/></svg>")
THUMB_URL = "data:image/svg+xml," + quote(_THUMB_SVG, safe="/:=' ")

CSS = """
#eq-up::before, #eq-down::before { content: ""; display: inline-block; width: 1.15em; height: 1.15em;
  margin-right: .35em; vertical-align: -.2em; background: no-repeat center / contain url("THUMB_URL"); }
#eq-down::before { transform: scaleY(-1); }
.eq-header { flex-wrap: wrap !important; }
.eq-header h1 { margin: 0; font-size: 1.6rem; white-space: nowrap; }
.eq-conf { display: flex; align-items: center; gap: .6rem; margin: .4rem 0; }
.eq-conf-track { flex: 1; max-width: 320px; height: .6rem; border-radius: .3rem; background: #e5e7eb; overflow: hidden; }
.eq-conf-fill { display: block; height: 100%; border-radius: .3rem; }
.eq-conf-high .eq-conf-fill { background: #16a34a; }
.eq-conf-mid .eq-conf-fill { background: #ca8a04; }
.eq-conf-low .eq-conf-fill { background: #dc2626; }
.eq-conf-value { font-variant-numeric: tabular-nums; min-width: 3em; }
.eq-meta-label { font-weight: 600; margin-right: .5rem; }
.eq-chips { display: flex; flex-wrap: wrap; align-items: center; gap: .35rem; margin: .4rem 0; }
.eq-chip { display: inline-block; padding: .1rem .6rem; border-radius: 999px; background: #e0e7ff; color: #1e3a8a; font-size: .9rem; }
.eq-source, .eq-matched { margin: .3rem 0; color: #374151; overflow-wrap: anywhere; }
.eq-notice { margin: .3rem 0; color: #92400e; }
.eq-message { padding: .8rem 1rem; border-radius: .5rem; background: #eff6ff; color: #1e3a8a; line-height: 1.5; }
.eq-message-warn { background: #fffbeb; color: #92400e; }
.eq-message-error { background: #fef2f2; color: #991b1b; }
.eq-answer { font-size: 1.05rem; overflow-wrap: anywhere; }
.eq-similar button { text-align: left; justify-content: flex-start; white-space: normal; }
footer { display: none !important; }
@media (max-width: 640px) { .eq-header h1 { font-size: 1.3rem; } }
""".replace("THUMB_URL", THUMB_URL)
