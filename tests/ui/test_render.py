"""Bank text → safe Markdown / escaped HTML (no browser needed)."""

from __future__ import annotations

from appliance.ask.card import AnswerCard
from ui.render import chips_html, confidence_html, message_html, meta_html, safe_markdown


def test_html_outside_math_becomes_text():
    out = safe_markdown('<script>alert(1)</script> <img src=x onerror="alert(2)"> a & b')
    assert "<" not in out and ">" not in out
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in out and "&amp; b" in out


def test_math_is_kept_for_katex_with_comparisons_rewritten():
    out = safe_markdown("若 $a<b$ 且 $$\\frac{1}{2} > x$$，则 \\(x<1\\)；价格 \\$5")
    assert "$a\\lt b$" in out and "$$\\frac{1}{2} \\gt  x$$" in out and "\\(x\\lt 1\\)" in out
    assert "<" not in out and ">" not in out


def test_html_inside_math_cannot_escape():
    out = safe_markdown("$<img src=x onerror=alert(1)>$")
    assert "<" not in out and "onerror" in out  # inert TeX text now


def test_markdown_images_are_not_loaded():
    out = safe_markdown("![x](http://example.com/a.png)")
    assert "![" not in out


def test_empty():
    assert safe_markdown(None) == "" and safe_markdown("") == ""


def test_card_meta_escapes_every_field():
    card = AnswerCard(ask_id=1, question="q", abstained=False, confidence=0.876, answer="a",
                      matched_question="<b>q</b>", knowledge_points=["<img src=x onerror=alert(1)>"],
                      source='"><script>alert(1)</script>', notices=["<i>n</i>"])
    html = meta_html(card, "zh")
    assert "<script>" not in html and "<img" not in html and "<b>" not in html and "<i>" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and 'aria-valuenow="88"' in html
    assert "知识点" in html and "Knowledge" in meta_html(card, "en")


def test_confidence_bar_levels_and_bounds():
    assert "eq-conf-high" in confidence_html(0.95, "zh") and "width:95%" in confidence_html(0.95, "zh")
    assert "eq-conf-mid" in confidence_html(0.75, "zh")
    assert "eq-conf-low" in confidence_html(0.2, "zh")
    assert "width:100%" in confidence_html(1.7, "zh") and "width:0%" in confidence_html(-1, "zh")
    assert chips_html([], "zh") == ""


def test_message_is_text():
    assert "<script>" not in message_html("<script>x</script>", "warn")
    assert 'eq-message-warn' in message_html("hi", "warn")
