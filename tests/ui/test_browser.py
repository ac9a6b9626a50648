"""The pages in a real browser (Debian's chromium, driven by Playwright): a student asks by
text (and photo), a teacher logs in and corrects an ask into the bank, the next student
gets the corrected answer; a wrong password is refused; nothing is fetched from outside
127.0.0.1 and no asset fails; bank text with HTML renders as text. Screenshots of every
page are written (see conftest: ``$EDUQA_SCREENSHOTS`` keeps a copy)."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.needs import skip_missing

from appliance.bank.bank_file import BankEntry
from tests.ui.conftest import PASSWORD, TEACHER

pytestmark = pytest.mark.slow

WAIT_MS = 60_000
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True, "device_scale_factor": 2}
LOCAL_HOSTS = {"127.0.0.1", "localhost"}


class Network:
    """Every request of a page: those to other hosts are recorded and aborted, failures
    (4xx/5xx responses and network errors) are recorded."""

    def __init__(self, page):
        self.outside: list[str] = []
        self.failed: list[str] = []
        page.route("**/*", self._route)
        page.on("requestfailed", self._failed)
        page.on("response", lambda r: self.failed.append(f"{r.url} HTTP {r.status}") if r.status >= 400 else None)

    def _failed(self, request):
        # Gradio's client cancels its own event streams (queue/data, heartbeat) when an
        # event is done or the page goes away: a cancelled stream is not a failed asset.
        stream = "/gradio_api/queue/data" in request.url or "/gradio_api/heartbeat/" in request.url
        if not (stream and request.failure == "net::ERR_ABORTED"):
            self.failed.append(f"{request.url} {request.failure}")

    def _route(self, route):
        url = route.request.url
        if urlsplit(url).scheme in ("data", "blob") or urlsplit(url).hostname in LOCAL_HOSTS:
            route.continue_()
        else:
            self.outside.append(url)
            route.abort()


def new_page(browser, phone: bool = False):
    context = browser.new_context(**(PHONE if phone else {"viewport": DESKTOP}), locale="zh-CN")
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    return context, page, Network(page)


def student_ask(page, url: str, text: str) -> None:
    page.goto(url + "/")
    page.wait_for_selector("#eq-question textarea")
    page.fill("#eq-question textarea", text)
    page.click("#eq-ask")
    page.wait_for_function(CARD_SHOWN)


# The card is shown: a message (abstained, refused), or the confidence bar and the answer's
# Markdown, which Gradio renders after the HTML beside it (a busy machine shows the gap).
CARD_SHOWN = """() => document.querySelector('#eq-message .eq-message') !== null
    || (document.querySelector('#eq-meta .eq-conf') !== null
        && (document.querySelector('#eq-answer')?.innerText || '').trim() !== '')"""


def login(page, url: str, username: str = TEACHER, password: str = PASSWORD, target: str = "/teacher/") -> None:
    page.goto(url + target)
    page.wait_for_selector("#login")
    page.fill("#username", username)
    page.fill("#password", password)
    page.click("#login-submit")


def test_student_asks_by_text_and_sees_the_answer_card(live_server, browser, shots):
    context, page, net = new_page(browser)
    student_ask(page, live_server.url, "解方程：2x + 3 = 13")
    answer = page.locator("#eq-answer")
    assert "移项得" in answer.inner_text()
    assert answer.locator(".katex").count() >= 1  # LaTeX rendered by the bundled KaTeX
    assert int(page.get_attribute("#eq-meta .eq-conf", "aria-valuenow")) >= 90
    assert page.locator("#eq-meta .eq-chip").all_inner_texts() == ["一元一次方程", "移项"]
    assert "人教版" in page.inner_text("#eq-meta .eq-source")
    similar = [page.locator(f"#eq-similar-{i}") for i in range(3)]
    assert all(s.is_visible() for s in similar)
    shots.take(page, "student_card_desktop")
    first = similar[0].inner_text()
    similar[0].click()
    page.wait_for_selector("#eq-viewer:has-text('相似题目')")
    assert first.split("：")[-1].strip()[:5] in page.inner_text("#eq-viewer")
    page.click("#eq-up")
    page.wait_for_selector("#eq-feedback-note:has-text('谢谢')")
    last = live_server.service.asks.tail(1)[0]
    assert last["question"] == "解方程：2x + 3 = 13" and last["feedback"] == "up"
    page.click("#eq-lang label:has-text('English')")
    page.wait_for_selector("#eq-meta:has-text('Confidence')")
    assert page.locator("#eq-ask").inner_text().strip() == "Ask"
    shots.take(page, "student_card_english")
    assert net.outside == []
    context.close()


def test_student_page_fits_a_phone(live_server, browser, shots):
    context, page, net = new_page(browser, phone=True)
    student_ask(page, live_server.url, "水的沸点是多少")
    page.wait_for_selector("#eq-similar-0")
    overflow = page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert overflow <= 1, f"page is {overflow}px wider than the phone screen"
    shots.take(page, "student_card_phone")
    context.close()


def test_abstain_shows_a_kind_message(live_server, browser, shots):
    context, page, _ = new_page(browser)
    student_ask(page, live_server.url, "火星上的沙尘暴一般持续多久")
    message = page.inner_text("#eq-message")
    assert "老师会看到你的问题" in message
    assert not page.locator("#eq-meta .eq-conf").count()
    shots.take(page, "student_abstain")
    context.close()


def test_wrong_password_is_refused(live_server, browser):
    context, page, _ = new_page(browser)
    login(page, live_server.url, password="not-the-password")
    page.wait_for_selector("#login-error")
    assert "用户名或密码不对" in page.inner_text("#login-error")
    assert urlsplit(page.url).path == "/teacher/login"
    assert not [c for c in context.cookies() if c["name"] == "eduqa_session"]
    page.goto(live_server.url + "/teacher/")
    assert urlsplit(page.url).path == "/teacher/login"  # still not let in
    context.close()


def test_teacher_corrects_an_ask_into_the_bank_and_the_next_student_gets_it(live_server, browser, shots):
    question = "熊猫一天要吃多少竹子"
    context, page, _ = new_page(browser)
    student_ask(page, live_server.url, question)
    assert "老师会看到" in page.inner_text("#eq-message")
    ask_id = live_server.service.asks.tail(1)[0]["id"]

    login(page, live_server.url)
    page.wait_for_selector("#eq-log-table")
    page.click("#eq-log-abstained label:has-text('是')")
    page.fill("#eq-log-text input, #eq-log-text textarea", "熊猫")
    page.click("#eq-log-refresh")
    cell = page.locator("#eq-log-table [role=gridcell]", has_text=question).first
    cell.wait_for()
    cell.click()
    page.wait_for_selector(f"#eq-detail:has-text('#{ask_id}')")
    assert question in page.inner_text("#eq-detail")
    page.fill("#eq-correct-answer textarea", "大熊猫一天要吃 $12$ 到 $38$ 千克竹子。")
    page.fill("#eq-correct-points input, #eq-correct-points textarea", "大熊猫; 食性")
    subject = page.locator("#eq-correct-subject input")
    subject.fill("biology")
    subject.press("Enter")
    page.click("#eq-correct-save")
    page.wait_for_selector("#eq-correct-result:has-text('存入题库')")
    shots.take(page, "teacher_log")
    row = live_server.service.asks.get(ask_id)
    assert row["review_status"] == "added" and row["teacher_answer"].startswith("大熊猫")
    context.close()

    context, page, _ = new_page(browser)
    student_ask(page, live_server.url, question)
    assert "千克竹子" in page.inner_text("#eq-answer")
    assert page.locator("#eq-meta .eq-chip").all_inner_texts() == ["大熊猫", "食性"]
    assert live_server.service.asks.tail(1)[0]["matched_id"] == f"ask-{ask_id}"
    shots.take(page, "student_after_correction")
    context.close()


def test_teacher_exports_the_log_as_csv(live_server, browser, tmp_path):
    context, page, _ = new_page(browser)
    student_ask(page, live_server.url, "水的沸点是多少")
    login(page, live_server.url)
    page.wait_for_selector("#eq-log-table")
    page.click("#eq-log-export")
    link = page.locator("#eq-log-file a").first
    link.wait_for()
    with page.expect_download() as download:
        link.click()
    path = tmp_path / "asks.csv"
    download.value.save_as(path)
    text = path.read_text(encoding="utf-8-sig")
    assert text.startswith("id,asked_at_local,") and "水的沸点是多少" in text
    context.close()


def test_teacher_bank_editor_edits_deletes_and_imports(live_server, browser, shots, tmp_path):
    context, page, _ = new_page(browser)
    login(page, live_server.url)
    page.wait_for_selector("#eq-log-table")
    page.click("button[role=tab]:has-text('题库')")
    page.fill("#eq-bank-query input, #eq-bank-query textarea", "沸点")
    page.click("#eq-bank-search")
    page.locator("#eq-bank-table [role=gridcell]", has_text="沸点").first.wait_for()
    shots.take(page, "teacher_bank")

    # a new entry (the form starts empty), then delete it
    page.fill("#eq-entry-id input, #eq-entry-id textarea", "school-001")
    subject = page.locator("#eq-entry-subject input")
    subject.fill("physics")
    subject.press("Enter")
    page.fill("#eq-entry-question textarea", "光在真空中的速度是多少")
    page.fill("#eq-entry-answer textarea", "约 $3 \\times 10^8$ m/s")
    page.fill("#eq-entry-points input, #eq-entry-points textarea", "光速")
    page.click("#eq-entry-save")
    page.wait_for_selector("#eq-entry-result:has-text('school-001')")
    page.wait_for_selector("#eq-entry-preview .katex")
    assert live_server.service.bank.get_many(["school-001"])["school-001"]["knowledge_points"] == ["光速"]
    page.click("#eq-entry-delete")
    page.wait_for_selector("#eq-entry-result:has-text('确认删除')")  # refused: not confirmed
    assert live_server.service.bank.get_many(["school-001"])
    page.click("#eq-entry-confirm input")
    page.click("#eq-entry-delete")
    page.wait_for_selector("#eq-entry-result:has-text('已删除')")
    assert live_server.service.bank.get_many(["school-001"]) == {}

    # an import with a bad row: nothing imported, the bad row reported with its line
    bad = tmp_path / "bank.csv"
    bad.write_text("id,subject,grade,question,answer,knowledge_points,source\n"
                   "imp-1,math,,1+1=?,2,,\n"
                   "imp-2,math,,,没有题目,,\n", encoding="utf-8")
    page.click("#eq-tab-bank button:has-text('导入 CSV / JSONL'), button:has-text('导入 CSV / JSONL') >> nth=0")
    page.locator("#eq-import-file input[type=file]").set_input_files(str(bad))
    page.wait_for_timeout(500)
    page.click("#eq-import-run")
    page.wait_for_selector("#eq-import-result:has-text('什么都没有导入')")
    page.locator("#eq-import-problems [role=gridcell]", has_text="imp-2").first.wait_for()
    assert "3" in page.locator("#eq-import-problems [role=gridcell]").first.inner_text()
    assert live_server.service.bank.get_many(["imp-1"]) == {}
    page.click("#eq-import-skip input")
    page.click("#eq-import-run")
    page.wait_for_selector("#eq-import-result:has-text('新增 1 条')")
    assert live_server.service.bank.get_many(["imp-1"])
    shots.take(page, "teacher_bank_import")
    context.close()


def test_teacher_plots_tab(live_server, browser, shots):
    context, page, _ = new_page(browser)
    login(page, live_server.url)
    page.wait_for_selector("#eq-log-table")
    page.click("button[role=tab]:has-text('统计图表')")
    page.click("#eq-plot-refresh")
    page.wait_for_selector("#eq-plot-summary:has-text('次提问')")
    page.wait_for_timeout(1500)  # let the charts draw
    shots.take(page, "teacher_plots")
    context.close()


def test_status_page_shows_engines_and_rebuilds(live_server, browser, shots):
    context, page, _ = new_page(browser)
    login(page, live_server.url, target="/status/")
    page.wait_for_selector("#eq-engines [role=gridcell]:has-text('onnxruntime')")
    assert "use-m3" in page.inner_text("#eq-engines")
    page.wait_for_selector("#eq-latency [role=gridcell]:has-text('整次提问（文字）')")
    assert "GiB" in page.inner_text("#eq-status-facts")
    page.click("#eq-rebuild")
    page.wait_for_selector("#eq-rebuild-note:has-text('dense index')")
    shots.take(page, "status")
    context.close()


def test_no_request_leaves_127_0_0_1_and_no_asset_fails(live_server, browser):
    """Every page, with the actions that pull in lazy assets (KaTeX and its fonts, the
    image input, the plots), must load everything from the box itself."""
    outside, failed = [], []

    def visit(actions, target="/"):
        context, page, net = new_page(browser)
        page.goto(live_server.url + target)
        actions(page)
        page.wait_for_load_state("load")
        page.wait_for_timeout(1500)  # lazy assets (fonts, chart code); "networkidle" never comes: the
        # page keeps its event stream to the server open
        outside.extend(net.outside)
        failed.extend(net.failed)  # read before the page closes (closing aborts its streams)
        context.close()

    visit(lambda p: (p.wait_for_selector("#eq-question textarea"), p.fill("#eq-question textarea", "解方程：2x + 3 = 13"),
                     p.click("#eq-ask"), p.wait_for_selector("#eq-answer .katex")))
    visit(lambda p: p.wait_for_selector("#login"), target="/teacher/login")

    def teacher(p):
        p.fill("#username", TEACHER)
        p.fill("#password", PASSWORD)
        p.click("#login-submit")
        p.wait_for_selector("#eq-log-table")
        for tab in ("题库", "统计图表", "提问记录"):
            p.click(f"button[role=tab]:has-text('{tab}')")
            p.wait_for_timeout(800)
        p.goto(live_server.url + "/status/")
        p.wait_for_selector("#eq-engines")

    visit(teacher, target="/teacher/login")
    assert outside == [], f"requests to other hosts: {outside}"
    assert failed == [], f"failed requests: {failed}"


def test_bank_entry_with_html_renders_as_text(live_server, browser, shots):
    question = "XSS测试题 <script>window.__xss=1</script> 是什么"
    live_server.service.bank.upsert([BankEntry(
        id="xss-1", subject="test", grade="",
        question=question,
        answer='<script>window.__xss=2</script><img src=x onerror="window.__xss=3"> '
               "[点我](javascript:window.__xss=4) ![pic](http://example.com/x.png) 且 $a<b$",
        knowledge_points=("<img src=y onerror=window.__xss=5>",),
        source="<b onmouseover=window.__xss=6>课本</b>",
    )], "import")
    context, page, net = new_page(browser)
    student_ask(page, live_server.url, question)
    card = page.locator("#eq-card")
    answer = page.inner_text("#eq-answer")
    assert "<script>window.__xss=2</script>" in answer and '<img src=x onerror="window.__xss=3">' in answer
    assert "<img src=y onerror=window.__xss=5>" in page.inner_text("#eq-meta .eq-chip")
    assert "<b onmouseover=window.__xss=6>课本</b>" in page.inner_text("#eq-meta .eq-source")
    assert card.locator("script").count() == 0 and card.locator("img").count() == 0
    assert card.locator("a[href^='javascript']").count() == 0
    page.hover("#eq-meta .eq-source")
    if card.locator("a").count():
        card.locator("a").first.click()
    assert page.evaluate("window.__xss") is None
    assert net.outside == [] and not [f for f in net.failed if "/x" in f or "/y" in f]
    shots.take(page, "xss_as_text")
    context.close()

    context, page, _ = new_page(browser)  # the teacher's log shows the question as text too
    login(page, live_server.url)
    page.fill("#eq-log-text input, #eq-log-text textarea", "XSS")
    page.click("#eq-log-refresh")
    cell = page.locator("#eq-log-table [role=gridcell]", has_text="<script>").first
    cell.wait_for()
    cell.click()
    page.wait_for_selector("#eq-detail:has-text('XSS')")
    assert "<script>window.__xss=1</script>" in page.inner_text("#eq-detail")
    assert page.locator("#eq-detail script, #eq-log-table script").count() == 0
    assert page.evaluate("window.__xss") is None
    context.close()


def _question_photo() -> bytes:
    from PIL import Image, ImageDraw, ImageFont

    font_file = Path("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
    if not font_file.exists():
        skip_missing("fonts-noto-cjk", "apt-get install -y fonts-noto-cjk; .ci/run installs it")
    image = Image.new("RGB", (1200, 300), "white")
    ImageDraw.Draw(image).text((60, 100), "解方程：2x + 3 = 13", fill="black",
                               font=ImageFont.truetype(str(font_file), 72, index=2))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def test_student_asks_by_photo(live_server, browser, shots, tmp_path):
    photo = tmp_path / "question.png"
    photo.write_bytes(_question_photo())
    context, page, _ = new_page(browser)
    page.goto(live_server.url + "/")
    page.locator("#eq-photo input[type=file]").set_input_files(str(photo))
    page.wait_for_selector("#eq-photo img")
    page.click("#eq-ask")
    page.wait_for_function(CARD_SHOWN)
    assert "移项得" in page.inner_text("#eq-answer")
    assert "从照片中读到的题目" in page.inner_text("#eq-read")
    assert "".join(page.input_value("#eq-read textarea").split()) == "解方程：2x+3=13"
    page.fill("#eq-read textarea", "解方程：2x + 3 = 11")  # the student fixes what was read
    page.click("#eq-reask")
    for _ in range(60):  # the re-ask lands in the log before its card is shown
        rows = live_server.service.asks.tail(2)
        if rows[-1]["kind"] == "photo_edit":
            break
        page.wait_for_timeout(500)
    assert rows[-1]["kind"] == "photo_edit" and rows[-1]["corrects_ask_id"] == rows[-2]["id"]
    sha = hashlib.sha256(photo.read_bytes()).hexdigest()
    assert live_server.mounted.teacher is not None
    assert any((Path(live_server.config.data_dir) / "photos").glob(f"{sha}.*"))
    shots.take(page, "student_photo_card")
    context.close()


def test_teacher_sees_the_photo_and_ocr_text_of_a_photo_ask(live_server, browser, shots):
    """The review side of photo asks, independent of the OCR step: a photo ask row (as the
    photo path logs it) with its photo in the archive."""
    from PIL import Image

    from appliance.asklog.log import AskRecord
    from appliance.asklog.review import PhotoArchive

    out = io.BytesIO()
    Image.new("RGB", (320, 120), (250, 250, 240)).save(out, "PNG")
    sha = PhotoArchive(Path(live_server.config.data_dir) / "photos").save(out.getvalue())
    ask_id = live_server.service.asks.record(AskRecord(
        client="10.0.0.8", kind="photo", question="求 x：3x − 5 = 16", truncated=False, matched_id=None,
        confidence=0.31, abstained=True, stage_ms={}, backend="test", ocr_text="求 x：3x − 5 = 16",
        ocr_confidence=0.87, photo_sha256=sha))
    context, page, _ = new_page(browser)
    login(page, live_server.url)
    page.wait_for_selector("#eq-log-table")
    page.fill("#eq-ask-id input", str(ask_id))
    page.click("#eq-ask-open")
    page.wait_for_selector(f"#eq-detail:has-text('#{ask_id}')")
    page.wait_for_selector("#eq-ask-photo img")
    assert page.input_value("#eq-ocr textarea, #eq-ocr input") == "求 x：3x − 5 = 16"
    shots.take(page, "teacher_photo_detail")
    context.close()


def test_pages_speak_the_page_language_not_the_browser_one(live_server, browser, shots):
    """An English browser on the Chinese page (the default): Gradio's own words (the
    upload box) are Chinese too, and <html lang> says zh-CN; ?lang=en turns both to English."""
    context = browser.new_context(viewport=DESKTOP, locale="en-US")
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(live_server.url + "/")
    page.wait_for_selector("#eq-photo")
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    upload = page.inner_text("#eq-photo")
    assert "拖到这里" in upload and "Drop" not in upload and "Click to Upload" not in upload, upload
    shots.take(page, "student_page_zh_on_english_browser")
    page.click("#eq-lang label:has-text('English')")
    page.wait_for_selector("#eq-photo:has-text('Drop a photo')")
    assert page.evaluate("document.documentElement.lang") == "en"
    assert "lang=en" in page.url  # a reload keeps the language
    page.goto(live_server.url + "/?lang=en")
    page.wait_for_selector("#eq-photo:has-text('Drop a photo')")
    assert page.evaluate("document.documentElement.lang") == "en"
    context.close()


def test_feedback_thumbs_need_no_emoji_font(live_server, browser):
    context, page, _ = new_page(browser)
    student_ask(page, live_server.url, "水的沸点是多少")
    for button in ("#eq-up", "#eq-down"):
        text = page.inner_text(button)
        assert "👍" not in text and "👎" not in text and text.strip()
        icon = page.evaluate(f"""() => {{
            const style = getComputedStyle(document.querySelector('{button}'), '::before');
            return [style.backgroundImage, parseFloat(style.width)];
        }}""")
        assert icon[0].startswith('url("data:image/svg+xml') and icon[1] > 8, icon
    context.close()


def test_status_and_teacher_tables_are_in_chinese(live_server, browser):
    live_server.service.ask("解方程：2x + 3 = 13")  # a maths ask for the log and the latency table
    context, page, _ = new_page(browser)
    login(page, live_server.url, target="/status/")
    page.wait_for_selector("#eq-latency [role=gridcell]:has-text('整次提问（文字）')")
    headings = page.inner_text("#eq-engines")
    assert "模型" in headings and "运行方式" in headings and "backend" not in headings
    assert "剩余" in page.inner_text("#eq-status-facts")
    page.goto(live_server.url + "/teacher/")
    page.locator("#eq-log-table [role=gridcell]", has_text="数学").first.wait_for()
    assert not page.locator("#eq-log-table [role=gridcell]", has_text="math").count()
    context.close()


def test_a_long_question_keeps_every_log_column_on_screen(live_server, browser, shots):
    from appliance.asklog.log import AskRecord

    long_question = "请问" + "这是一道非常非常长的题目，" * 60 + "Supercalifragilisticexpialidocious" * 4
    live_server.service.asks.record(AskRecord(
        client="10.0.0.9", kind="text", question=long_question, truncated=False, matched_id=None,
        confidence=0.2, abstained=True, stage_ms={}, backend="test"))
    context, page, _ = new_page(browser)
    login(page, live_server.url)
    page.locator("#eq-log-table [role=gridcell]", has_text="这是一道非常").first.wait_for()
    width = page.evaluate("window.innerWidth")
    headers = page.locator("#eq-log-table th")
    rights = [box["x"] + box["width"] for box in (headers.nth(i).bounding_box() for i in range(headers.count()))]
    assert len(rights) == 9 and max(rights) <= width, (rights, width)
    shots.take(page, "teacher_log_long_question")
    context.close()
