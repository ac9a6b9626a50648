"""What a printed line says about the page around the problem: problem numbers, headers,
score notes, stray marks, blanks.

Pure text rules, no geometry: :mod:`appliance.ocr.blocks` uses them to start a new
problem at a number and to set headers apart; :mod:`appliance.ocr.select` strips the
number and score note from the chosen problem and writes blanks as ``____``.
"""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable

CN_DIGITS = "一二三四五六七八九十百零〇"

# A problem number at the start of a line: "22." "9．" (or read 「6。」) "3、" "3:" "8-" "十一、" "三." "4)" "（3）" "(3)"
# "【3】" "⑶" "①" "第3题" "第一题" "例2" "Q3." "Q.3" "#3" "Question 3" "Problem 3:" "Task 3:"
# "Ex. 3" (not "3: 4", a ratio, nor "10:30").
_DOTTED = (r"(?:\d{1,3}\s*(?:[.．](?!\d)|。(?=\s*[\u4e00-\u9fff《“「A-Z])|[、)）]|[:：](?!\s*\d))|\d{1,3}\s*[-–—](?=\s*(?:[A-Z\u4e00-\u9fff《“「]|[（(]\s*\d{1,3}\s*(?:分|points?|marks?)))"
           r"|[一二三四五六七八九十]{1,3}\s*[、.．])")
# 【3】 and [3] are read with the bracketed: the recogniser reads some of them as (3), or
# with brackets that do not pair (「【10）」), without the opening one (「13】」), or with the
# closing one read as a dot ("[14.What is…").
_BRACKETED = (r"(?:[（(]\s*\d{1,2}\s*[)）]|[（(【\[〔［]\s*\d{1,3}\s*[)）】\]〕］]|\d{1,3}\s*[】\]〕］]"
              r"|[【\[〔［]\s*\d{1,3}\s*[.．](?!\d)|[\u2474-\u2487])")
# A circled number over 10 is read as two circled digits (⑯ as 「⑩⑥」 or 「①⑥」) or as a
# circled one and a plain digit before the problem's words (「⑩6 在等差数列…」) or its dot (「①2、」);
# a pen's ring round 「2、」 reads 「②、」.
_CIRCLED = (r"[\u2460-\u2473\u24f5-\u24fe\u2776-\u277f]"
            r"(?:[\u2460-\u2473\u24ea]|\d(?=\s*[\u4e00-\u9fff“\"《「（(A-Z])|\d\s*(?:、|[.．](?!\d)))?"
            r"(?:\s*(?:、|[.．](?!\d)))?")
# 「第3题」, also when the recogniser lost or misread 第 before an Arabic number: 「3题」 「笔3题」.
_NTH = (rf"(?:[【\[]\s*(?:第\s*)?\d{{1,3}}\s*(?:小)?题\s*[】\]]|(?:第\s*[{CN_DIGITS}\d]+|[第笔弟苐]?\s*\d{{1,3}})\s*(?:小)?题\s*[.．、:：]?"
        rf"|第\s*\d{{1,3}}(?=\s+[A-Z])|(?:问题|习题|题)\s*\d{{1,3}}(?![\d\s]*分)\s*[.．、:：]?)")
# (after a tick the student drew before it: 「√例11 秦朝…」)
_EXAMPLE = r"(?:[√✓✔]\s*)?例\s*\d{1,3}\s*[.．、:：]?"
_LATIN = (r"(?:[（(]?(?:Qu(?:es)?\.?|Qn\.?|Q\.?|Quest[il1]?on|Problem|Exercise|Example|Task|Activity|Item|Ex[.,，]?|No\.?|\#)\s*\#?\s*\d{1,3}(?:\.\d{1,2}(?=\s|$|[\u4e00-\u9fff]))?[)）]?"
          r"(?:\s+of\s+\d{1,3})?\s*(?:[.:：)]|[-–—](?=\s))?|Ex\.(?=\s*[\u3400-\u9fff])"
          # "Question" whose number a ring took, before the problem's first word
          r"|Question(?=\s+(?:[A-Z][a-z]|[\u4e00-\u9fff])))")
# After a Latin label: a space, the end, punctuation, Chinese text run on ("Q24一个…"), or
# after its number a capitalised word the space was lost before ("Q17Fill in…").
_AFTER_LATIN = r"(?=\s|$|[^\w]|[\u3400-\u9fff]|(?<=\d)[A-Z][a-z])"
# A number whose dot the recogniser lost, at the start of a line: before Chinese text that
# no count or unit of a given starts (「18世界上…」, not 「36的」 「10项」 「2小时」), before an
# opening title or quotation mark (「12《南京条约》…」), or before a
# capitalised word ("16 Fill in the blank", "13Answer each…" with its space lost; not an
# element's symbol of two letters: "2Fe"), or before a score note (a circled ⑤ read as
# 5: 「5 (10分) 计算…」).
_BARE = (r"(?:\d{1,2}(?![\d.．,，])(?=\s?(?![个只名岁年月日时分秒米厘千克元角度倍次天人本张条项位辆件块支层页瓶杯"
         r"和与的比除乘加减是等到至或及题小毫升吨里])[\u4e00-\u9fff《“「])|\d{1,2}(?=\s+[A-Z][a-z]|[A-Z][a-z]{2})"
         r"|\d{1,2}(?=\s?[（(【\[]\s*\d{1,3}\s*(?:分|points?|marks?)))")
# A number whose digits were lost (a tick drawn over 「11.」, a pen's circle round 「(23)」), its
# dot or brackets left at the start of a row of Chinese text: Chinese is never set with a
# line that starts with 。、．or .
_LOST_DIGITS = r"(?:[.．、]|[（(]\s*[)）])(?=\s?[\u4e00-\u9fff《“「])"
# A score note: "（5分）" "(5 points)" "[3 marks]" "(每题4分)" "（本小题满分10分）", its
# opening bracket perhaps read as a zero (「012分)」).
# An English note's closing bracket is read as l or | in some fonts ("[4 markl"), or lost
# before the problem's first word ("[5 pointsWhat is…", "[5 points What is…"); its k may
# be lost ("(5mars)").
_SCORE_NOTE = (r"(?:[（(\[【]|(?<![\d.])[0O](?=\d{1,2}\s*分\s*[)）]))\s*+(?:每(?:小)?题|共|本(?:小)?题(?:满分)?|满分)?\s*\d{1,3}\s*"
               r"(?:(?:分|points?|pts?|ps|marks?|mars)[^)）\]】]{0,12}[)）\]】]|(?:points?|marks?)(?-i:[l|]|(?=\s?[A-Z][a-z])))")
# Any word and a number with the problem's score note after it: a label this code does not
# know ("Task 3", "Aufgabe 3"), or a known one partly covered by a finger or pen ("crcise 7
# (本题2分)" for "Exercise 7", "n 7 of 13 (9 points)" for "Question 7 of 13").
_LABEL_BEFORE_NOTE = (rf"(?:[A-Za-z]{{2,10}}\.?\s?\d{{1,3}}|(?:[A-Za-z]{{1,10}}\s)?\d{{1,3}}\s+of\s+\d{{1,3}})\s?[.:：)]?"
                      rf"(?=\s*(?i:{_SCORE_NOTE}))")
# A label whose first letters a finger or pen covers: "estion 4." for "Question 4."; or any
# Latin word and a number before a Chinese problem ("tion 2 已知…", "Iten 5 地球…"), which
# never starts so (not before a count or unit: "HCl 2 份"), or with the number's dot ("on 6. 解方程…").
_CUT_LATIN = (r"(?:(?:u?estion|r?oblem|x?ercise|xample)\s*\d{1,3}\s*[.:：)](?=\s)"
              r"|[A-Za-z]{3,8}\s+\d{1,3}\s+(?![个只名岁年月日时分秒米厘千克元角度倍次天人本张条项位辆件块支层页瓶杯份])(?=[\u4e00-\u9fff《“「])"
              r"|[A-Za-z]{2,8}\s?\d{1,3}\s?[.．:：]\s?(?=[\u4e00-\u9fff《“「]))")
# A part's letter ("a)" "(b)"): the problems under a lead-in (:func:`is_lead_in`) are
# lettered on some sheets.
_LETTER_PART = r"(?:[√✓✔]\s*)?(?:[（(]\s*[a-h]\s*[)）]|[a-h]\s*[)）])[.．]?(?=\s*[A-Z\u4e00-\u9fff])"
# The leading spaces are taken at once (possessive): no label starts with a space, and a
# lookahead in a label (a score note after it) would otherwise scan a long run of spaces
# again from each of its starts.
# A question mark the student wrote in the margin before a dotted number or a Q (「?16. Fill…」).
_ASKED = r"(?:[?？]\s*(?=\d{1,2}[.．、]\D|Q\d))?"
NUMBER = re.compile(rf"^\s*+{_ASKED}(?:{_DOTTED}|{_BARE}|{_LOST_DIGITS}|{_BRACKETED}|{_CIRCLED}|{_NTH}|{_EXAMPLE}|(?i:{_LATIN}){_AFTER_LATIN}"
                    rf"|{_LABEL_BEFORE_NOTE}|{_CUT_LATIN}|{_LETTER_PART})")
TOP_LEVEL = re.compile(rf"^\s*+{_ASKED}(?:{_DOTTED}|{_BARE}|{_LOST_DIGITS}|{_CIRCLED}|{_NTH}|{_EXAMPLE}|(?i:{_LATIN}){_AFTER_LATIN}"
                       rf"|{_LABEL_BEFORE_NOTE}|{_CUT_LATIN})")
SUB_LEVEL = re.compile(rf"^\s*+{_BRACKETED}")
PART = re.compile(rf"^\s*+(?:{_BRACKETED}|{_LETTER_PART})")

# Before the problem, perhaps after the label's colon, also a note that lost its opening
# bracket (「2、3分)计算…」, 「4分]写出…」); at the end that would take 「（用时10分）」 apart.
SCORE = re.compile(rf"^[\s:：]*(?:{_SCORE_NOTE}|\d{{1,2}}\s*分\s*[)）\]】]|[-–—]\s*\d{{1,3}}\s*(?:marks?|points?|pts?|分)(?![A-Za-z]))",
                   re.IGNORECASE)  # also "— 7 marks" after a label
# The same note printed at the end of the problem instead ("…多少？（5分）"), perhaps with the
# teacher's score or a figure's label read after it ("（5分） 4") or a student's mark in the
# margin (「（5分） 问」, "(4 points) ?"), or marks as a bare number in square brackets after the
# question's end ("…cell\"? [6]"), or a note after the end that lost its opening bracket to
# a mark (「…是哪个？3分)」, "…pentagon?marks)", 「？28分)」 with "(" read as 2).
SCORE_AT_END = re.compile(rf"(?<!\s)\s*(?:{_SCORE_NOTE}(?:\s*[+\-]?\d{{1,3}}|\s*(?:问|不会|不懂|[?？☆★]))?|(?<=[?？。.!！\"”])\s*[\[【［]\s*\d{{1,2}}\s*[\]】］]"
                          r"|(?<=[?？。!！])\s*\d{0,2}\s*(?:分|marks?|points?|pts?)\s*[)）\]】])\s*$",
                          re.IGNORECASE)

# Section headings: "一、选择题" "二、填空题（每题 4 分）" "Part A" "Section 2" (not a problem's
# own score note: 「十六、（本题4分）牛顿第一定律…」).
_SECTION = re.compile(rf"^\s*(?:[{CN_DIGITS}]+\s*[、.．]\s*[^\s（(\[【]{{0,8}}题|(?i:part|section)\s+[A-Z\d]{{1,3}}\b)")
# Brackets alone after a section's heading: its English name or its score note
# (「二、单项选择题(Multiple-choice questions)」).
_GLOSS = re.compile(r"^\s*(?:[（(][^（()）？?]{1,40}[)）]\s*)+$")
# A paper's note opening after a section's heading: how many problems, how many marks
# (「一、选择题（本题共5小题，满分10分。解答应写出…」, wrapped before its bracket closes).
_SECTION_NOTE = re.compile(r"^\s*[（(]\s*(?:本(?:大)?题共|每(?:小)?题|共\s*\d)")
# A section heading with a short label and nothing else: 「三、基础知识」 「一、解方程（每题4分）」
# (「十一、解方程：2x+3=13」 is a problem).
_SECTION_LABEL = re.compile(rf"^\s*[{CN_DIGITS}]{{1,3}}\s*[、.．]\s*[\u4e00-\u9fff]{{2,8}}\s*(?:{_SCORE_NOTE})?\s*$")
# A section's title whose numeral was lost or never printed, with its section's score note:
# 「知识回顾（每空1分）」 「基础知识（共20分）」 (a problem's note is its own: 「（5分）」).
_SECTION_WITH_NOTE = re.compile(r"^\s*[\u4e00-\u9fff]{2,8}\s*[（(]\s*(?:每(?:小)?(?:题|空)|共|本(?:大)?题共)[^）)？?]{0,14}[)）]?\s*$")
# An English section heading with a title and nothing else, perhaps its score note: "IV. Fill in
# the Blanks (2 marks each)", "Section E: Reading Comprehension" (every word of four letters
# or more capitalised: "IV. Name the largest ocean" is a problem); 「第二部分 选择题」.
_SECTION_TITLE = re.compile(
    rf"^\s*(?:(?:[IVX]{{1,4}}\s*[.．、]|(?i:part|section)\s+[A-Z\d]{{1,3}}\s*[:：.．]?)\s*"
    rf"(?:[A-Z][A-Za-z-]*|[a-z]{{1,3}})(?:\s+(?:[A-Z][A-Za-z-]*|[a-z]{{1,3}})){{0,4}}"
    rf"|第\s*[{CN_DIGITS}\d]{{1,3}}\s*部分\s*[\u4e00-\u9fff]{{0,8}})\s*(?:{_SCORE_NOTE})?\s*$")
# A section heading whose numeral was lost under a finger or faint print, or that has none:
# 「、填空题」 「解答题（写出必要的过程）」 「选择题」.
# (also an app's badge: 「单选题 2分」, 「单选题0/6分」 its score so far)
_SECTION_KIND = re.compile(r"^\s*[、.．]?\s*(?:单项|多项|不定项)?(?:选择|[单多]选|填空|解答|计算|简答|判断|应用|作图|实验|综合|阅读|证明|探究)题"
                           r"\s*(?:[（(][^）)?？]{0,20}[）)]|\d{1,3}(?:\s*/\s*\d{1,3})?\s*分)?\s*$")
# An English part's heading that names its kind of problem, perhaps with its score note:
# "Part A Short fill-in (5 marks each)", "Section 2: Multiple-choice questions", "II. Fill in
# the blanks (2 marks each)".
_PART_KIND = re.compile(rf"^\s*(?:(?i:part|section)\s+[A-Z\d]{{1,3}}|[IVX]{{1,4}}(?=\s*[.．、]))\s*[:：.．、—–-]?\s*(?i:(?:short|long)[\s-])?"
                        rf"(?i:multiple[\s-]choice|fill[\s-]in(?:[\s-]the[\s-]blanks?)?|answers?|true\s+or\s+false|calculations?"
                        rf"|problem[\s-]solving|reading|writing|vocabulary|grammar|translation)(?i:\s+questions)?\s*(?:{_SCORE_NOTE})?\s*$")
# A workbook's section label set in brackets, alone on its line: 【能力提升】 〔拓展延伸〕 [基础训练]
_BRACKETED_LABEL = re.compile(r"^[【〔\[［]\s*[\u4e00-\u9fff]{2,8}\s*[】〕\]］]$")
# Where the answer space begins: 「解：」 「答：」 「答案：」 "Answer:" at the start of a line, or right after
# the problem's last sentence or score note (a teacher's score or a date may stand between:
# 「。8/10答：」 「。2024.09.10订正：」). What follows is the student's writing. A
# bilingual sheet names it twice: "Answer 答:" 「答 / Answer:」. The student's correction after
# marking opens one too: 「订正：」.
_ANSWER_WORD = r"(?:解|答案?|订正|(?i:answer|solution|ans\.?|workings?))"
_ANSWER = re.compile(rf"^\s*{_ANSWER_WORD}(?:\s*[/／]?\s*{_ANSWER_WORD})?\s*[:：]")
_ANSWER_AFTER = re.compile(rf"(?<=[?？。.!！)）】\]])\s*(?:[\d./+\-']{{1,10}}\s*)?{_ANSWER_WORD}(?:\s*[/／]?\s*{_ANSWER_WORD})?\s*[:：].*$")
# Words that only headers hold (a sheet's title block, a name/class/date line), also where the
# recogniser lost the space before the number ("Homework3", "Lesson5").
_HEADER_WORDS = re.compile(
    r"(?i:\bhomework(?:\b|(?=\d))|\bworksheet(?:\b|(?=\d))|\bname\s*[:：_]|\bclass\s*[:：_]|\bdate\s*[:：_]|\bscore\s*[:：_]|"
    r"\bunit\s*\d+\b|\bchapter\s*\d+\b|\blesson\s*\d+\b|\bquiz(?:\b|(?=\d))|\bexam\b|\btest\s*\d+\b|\bpage\s+\d+\b|"
    r"\bassignment\b|\bhw\s*\d|\bexamination\b|\bmid-?term\b|\bunit\s+test\b|\b(?:directions|instructions)\s*[:：]|"
    r"\btime\s*[:：]\s*\d+\s*min|\btotal\s*[:：]?\s*\d+\s*(?:marks|points)\b|\btime\s+allowed\b|\b(?:maximum|max\.?|full)\s+marks\b|"
    r"\bcalculators?\s+(?:are|is|may|must)\b)"
    r"|姓名|班级|学号|得分|日期|作业|练习卷|测试卷|试卷|单元(?:测试|练习|检测)|课时练|第\s*\d+\s*页|本卷共\s*\d+\s*页|本卷共\s*\d+\s*(?:小|道)?题|[（(]\s*共\s*\d+\s*(?:小|道)?题"
    r"|时间\s*[:：]\s*\d+\s*分钟|满分\s*[:：]\s*\d+\s*分|本大题共\s*\d+\s*小?题|答题(?:区域|卡)|超出.{0,6}无效")
# A name line whose writing lines were not read: only the words of a form's fields
# ("Name No. Score", "Name Class Date", "Student ID").
_FORM_LINE = re.compile(r"^(?i:(?:name|class|no\.|number|score|date|grade|student(?:\s+id)?|id|period|form|marks?|"
                        r"teacher|total)(?![a-z])[\s:：_.]*)+$")
# Words of a sheet's title that a problem may use too (练习钢琴): a title only in a short line that asks nothing.
_TITLE_WORDS = re.compile(r"练习|习题|复习|测验|检测|训练|测试|期中|期末|考试|提升|拓展|巩固|达标|过关|夯实|[七八九]年级"
                          r"|(?i:\breview\b|\bpractice\b|\bexercises\b|\bwarm[\s-]?up\b|\brevision\b|\bexit\s+ticket\b"
                          r"|\bchallenge\s+(?:questions|problems)\b|\bcheck\s+your\s+(?:understanding|progress)\b"
                          r"|\b(?:quick|concept|self)[\s-]check\b|\btry\s+(?:it|this|these)\b)")
# ...and at a line's start: a chapter, a knowledge point, a class's starter or extension, a grade.
_TITLE_START = re.compile(r"第\s*[一二三四五六七八九十\d]{1,3}\s*章|知识点\s*[一二三四五六七八九十\d]"
                          r"|(?i:do\s+now\b|extension\b|(?:grade|year)\s+\d{1,2}\b)")
# A sheet's instructions: "Write your answers in the spaces provided.", "Use black ink."
_INSTRUCTION = re.compile(r"(?i:write\s+(?:your|all|the)\s+answers?\s+(?:on|in|below|here)\b|write\s+(?:your|all)\s+answers\b|read\s+(?:each|every|all|the)\s+questions?\s+carefully\b"
                          r"|use\s+(?:a\s+)?(?:black|blue)\s+(?:ink|pen)\b|do\s+not\s+write\b)"
                          # 「注意：…」 「请在横线上作答。」 「请用黑色签字笔作答。」 「解答时写出必要的文字说明和步骤。」
                          # 「说明：请将答案写在横线上…」
                          r"|注意(?:事项)?\s*[:：]|^\s*说明\s*[:：]|请?(?:将|把)答案(?:写|填)(?:在|到)|请?(?:在|于|用|使用)[^？?。，,]{0,12}(?:作答|答题|书写)\s*[。.]?\s*$"
                          r"|(?:解答|答题)(?:时|应|须|需|要)[^？?]{0,24}$")
# A choice section's rule, however long the heading it follows: 「在每小题给出的四个选项中，只有一项
# 是符合题目要求的。」 (no problem says so of itself).
_CHOICE_RULE = re.compile(r"每小题给出的[^？?。]{0,8}选项中|只有一(?:项|个)(?:选项)?(?:是)?符合题(?:目|意)(?:要求)?")
# A workbook's box title alone on its line, perhaps after its mark: 「★想一想」 「例题」 "Example",
# "Think about it".
_BOX_TITLE = re.compile(r"^[★☆●▲■◆•\s]*(?:[想议做试练读算]一[想议做试练读算]|例题\s*\d{0,2}|笔记|小贴士|温馨提示"
                        r"|(?i:examples?|think\s+about\s+it|notes?|tips?|did\s+you\s+know\??))\s*[:：]?\s*$")
_ASKS = re.compile(r"[?？=＝]|求|计算|解|多少|哪|什么|为什么|怎样|如何|是否|选择|填")

# Marks a teacher or student puts beside a problem: ticks, crosses, circles, stars.
MARK_CHARS = set("√✓✔✗✘×VvXxOoCc○●◯◎□■☆★*·•.,，。") | {chr(c) for c in range(0x2460, 0x2474)}

# A tick or cross at the end of a line (after the problem's end or a colon, also read as X or V) is a
# mark beside the problem, never part of it
# (a root sign √ is always followed by what it takes the root of), and so is a score circled
# by the teacher, read as a circled digit after a space or the problem's end (「…= 11 ⑧」).
_TRAILING_TICK = re.compile(r"(?<!\s)\s*[√✓✔✗✘]+\s*$|(?<=[?？。.)）】\]］])\s*[XxVv×]\s*$|(?<=[:：])\s+[Xx×]\s*$|(?:(?<=[?？。.!！)）】\]］])|(?<!\s)\s)\s*[①-⑳]\s*$")
# Before the problem: a tick or cross; right before a problem number, also a root sign, a star
# or an arrow drawn in the margin (☆ 10., → (2)), or a circle, cross or tick read as a letter or sign (O9., X9), V【2】, @8.), or a score the teacher wrote
# (「+2 第3题」, 「-1第11题」, "-2 Ex. 1", "3/5 12.", 「4⑥」, 「3/4③」, "8 7.", 「8第15题」, 「10【第2题】」, a circled score
# read as 「⑧ 9．」 or "(8) 9．") or a score note that lost its brackets (「3分Exercise1」).
_LEADING_TICK = re.compile(r"^\s*(?:[✓✔✗✘]+|(?:[√○◯OoCcXx×Vv☆★*@©/→⇒➔➜➡➞►▶]{1,2}|[+\-−]?\d{1,2}(?:\s*/\s*\d{1,2})?\s|[+\-−]\d{1,2}|\d{1,2}\s*分\s*)(?=\s*(?:\d{1,3}\s*(?:[.．、)）](?!\d)|[-–—](?=\s*[\u4e00-\u9fffA-Z])|\s*[（(【\[]\s*\d{1,3}\s*(?:分|points?|marks?))|[（(【\[〔［]\s*\d|第|习题|问题"
                           r"|(?:Q|No\.?|Question|Problem|Exercise|Example|Item|Task|Ex\.?|\#)\s*\d|[①-⑳]))"
                           r"|(?:[①-⑳]|[（(]\s*\d{1,2}\s*[)）])\s*(?=\d{1,3}\s*[.．、](?!\d)|第\s*\d|(?:Q|Question|Problem|No\.?)\s*\d)"
                           r"|\d{1,2}(?:\s*/\s*\d{1,2})?\s*(?=[①-⑳]|[【\[]?\s*第\s*[\d一二三四五六七八九十]{1,3}\s*小?题))\s*")

_UNDERSCORES = re.compile(r"[_＿]{2,}|(?<=\s)[_＿](?=\s)|(?<=[\u4e00-\u9fff])[_＿](?=[\u4e00-\u9fff])")
BLANK = "____"


def number_prefix(line: str) -> str:
    """The problem number that starts ``line``, or ""."""
    match = NUMBER.match(line)
    return line[: match.end()] if match else ""


def numbered_in_turn(first: str, line: str) -> bool:
    """``line`` starts with a problem number in the style of the one that starts ``first``,
    and a greater one (「【9】…」 then 「【10】…」, "3." then "4."): the next problem of a row
    of problems set side by side. Not a sub-question "(1)" after a problem's "3."."""
    numbers = label_number(first), label_number(line)
    if None in numbers or numbers[1] <= numbers[0]:
        return False
    return re.sub(r"[\d\s]", "", number_prefix(first)) == re.sub(r"[\d\s]", "", number_prefix(line))


def gives_after_colon(above: str, line: str) -> bool:
    """The line gives what a problem's line ending on a colon asks for ("Translate into
    Chinese:" ⏎ "Practice makes perfect."): no header, though its words may look like a
    title's, and no new problem unless it starts with a number."""
    return above.rstrip().endswith((":", "：")) and PART.match(line) is None and not TOP_LEVEL.match(line)


def continues_bracket(above: str, line: str) -> bool:
    """The line's "2)" closes a bracket the line above left open (「…the points (1,」 「2) and
    (3, 8).」): a wrapped given, no problem number."""
    return re.match(r"\s*\d{1,3}\s*[)）]", line) is not None and leaves_bracket_open(above)


def leaves_bracket_open(text: str) -> bool:
    """The text opens more brackets than it closes (a given wrapped onto the next line); its
    problem number's bracket ("5) Find…(3,") is no given's."""
    text = text[len(number_prefix(text)):]
    return text.count("(") + text.count("（") > text.count(")") + text.count("）")


# A heading's bracket closed on the next line: its note's tail (「…（每题只有一个正确」 ⏎
# 「答案）」, 「…（本大题共9小题，每」 ⏎ 「小题5分，共45分）」), perhaps after a score box's rules read "____".
_HEADING_TAIL = re.compile(r"^[\s_＿|]*[^()（）?？]{1,24}[)）][。.]?\s*$")


def closes_heading(above: str, line: str) -> bool:
    """The line closes the bracket a heading above it left open, and asks nothing: the
    heading's note wrapped, not the first line of a problem."""
    return leaves_bracket_open(above) and _HEADING_TAIL.match(line) is not None


def continues_quantity(above: str, line: str) -> bool:
    """The line starts with a quantity that goes on with the unfinished sentence above it
    (「…移动了5m，用时」 「10 s，拉力…」, read "10. s,"): no problem number."""
    return re.match(r"\s*\d{1,3}\s*[.．]?\s*[a-zμΩ°℃]{1,3}\s*[,，的]", line) is not None \
        and not ends_sentence(above) and not ends_with_score(above)


# A label no rule here knows, learned from the page that uses it: a Latin word or letter, 「【例」,
# a chapter's "3." or an answer bracket before a number ("A3", "3.10", "Aufgabe 2", 「【例2】」,
# "(  ) 5."), a Roman numeral with its dot ("VI.", "vii."), a bullet, or a bare number before a
# capital; not a score ("[6 marks]", 「题5分)」).
_STYLED = re.compile(r"^\s*(?:(?P<pre>(?![a-z])[A-Za-z]{1,10}\s?|[【\[〔#№]\s*[^\W\d_]{0,3}|\d{1,2}\.|[（(]\s*[)）]\s*)(?P<num>\d{1,3})(?!\s*(?i:分|points?|marks?|pts?))(?P<post>[.．:：、)）】\]〕]?)"
                     r"|(?P<roman>[IVX]{1,5}|[ivx]{1,5}|[\u2160-\u216b][IVX]{0,3})(?P<dot>[.．、])|(?P<bullet>[•●▲■◆►▪])|(?P<bare>\d{1,2})(?=\s+[A-Z]))"
                     r"(?:\s+|(?<=[.．:：、)）】\]〕])|(?=[\u3400-\u9fff]))")
_ROMAN = {"I": 1, "V": 5, "X": 10}


def _styled(line: str) -> tuple[str, int | None, int] | None:
    """(the label's style, its number, its length) where ``line`` starts with a label of a
    shape :data:`_STYLED` knows (a bare number before a capital: "15 A bag…"); None on
    answer options ("A.4") and headers."""
    match = _STYLED.match(line)
    if match is None or is_options(line) or is_header(line):
        return None
    if match["bare"]:
        return "bare", int(match["bare"]), match.end()
    if match["bullet"]:
        return match["bullet"], None, match.end()
    if match["roman"]:
        return ("roman" if not match["roman"].islower() else "small roman") + match["dot"], _roman(match["roman"]), match.end()
    return match["pre"].strip() + "#" + match["post"], int(match["num"]), match.end()


def _roman(numeral: str) -> int:
    """A Roman numeral's value, also one read as a numeral character and letters ("ⅡI." for "III.")."""
    values = [ord(c) - 0x215F if c > "\u2000" else _ROMAN[c.upper()] for c in numeral]
    return sum(-v if i + 1 < len(values) and v < values[i + 1] else v for i, v in enumerate(values))


def page_label_styles(lines: list[str]) -> frozenset[str]:
    """The label styles that number a page's problems: a bullet that starts two or more of
    its lines, or a numbered style (:func:`_styled`) that two lines use with numbers that
    follow each other (A3 and A4): one line alone ("Day 1", "5 A flows…") numbers nothing."""
    seen: dict[str, list[int | None]] = {}
    for styled in filter(None, map(_styled, lines)):
        seen.setdefault(styled[0], []).append(styled[1])
    return frozenset(style for style, numbers in seen.items()
                     if numbers[0] is None and len(numbers) >= 2 or any(n is not None and n + 1 in numbers for n in numbers))


def styled_label(line: str, styles: frozenset[str]) -> tuple[int, int | None] | None:
    """(length, number) of the label of a style the page uses (:func:`page_label_styles`)
    that starts ``line`` where no rule knows it as a label (:data:`NUMBER`), else None."""
    styled = _styled(line) if styles else None
    return (styled[2], styled[1]) if styled is not None and styled[0] in styles and not NUMBER.match(line) else None


def join(left: str, right: str) -> str:
    """Concatenate two pieces of one sentence: a space only between Latin words/numbers/blanks."""
    if not left or not right:
        return left + right
    if ends_word(left[-1]) and starts_word(right[0]) and left[-1] + right[0] != "__":  # one blank found twice
        return f"{left} {right}"
    return left + right


OPERATORS = "+-=<>×÷±≤≥"


def ends_word(ch: str) -> bool:
    return (ch.isascii() and (ch.isalnum() or ch in ".,;:!?%)'\"_")) or ch in OPERATORS


def starts_word(ch: str) -> bool:
    return (ch.isascii() and (ch.isalnum() or ch in "('\"$_")) or ch in OPERATORS


def label_number(line: str) -> int | None:
    """What the problem number that starts ``line`` counts (「9．」 "Question 9" "(9)" ⑨: 9),
    or None: no number, or one that does not say (「三、」, a dot whose digits were lost, a
    circled number read with a digit after it)."""
    prefix = number_prefix(line)
    digits = re.findall(r"\d{1,3}", prefix)
    circled = re.findall(r"[\u2460-\u2473]", prefix)
    if digits and not circled:
        return int(digits[0])
    return ord(circled[0]) - 0x245F if circled and not digits and len(circled) == 1 else None


def starts_problem(line: str, sub_questions_start_problems: bool) -> bool:
    """Does this line begin a new problem? ``(3)`` counts only on pages without top-level numbers."""
    if TOP_LEVEL.match(line) or _NOTE_FIRST.match(line):
        return True
    return sub_questions_start_problems and bool(SUB_LEVEL.match(line))


def bracketed_number(line: str) -> int | None:
    """The number of a line that starts with a bracketed one ("(3)", 「【12】」, "⑶"), else None."""
    match = SUB_LEVEL.match(line)
    if match is None:
        return None
    digits = re.sub(r"\D", "", match.group())
    return int(digits) if digits else ord(match.group().strip()) - 0x2473


# More bracketed numbers than a problem's sub-questions run to: (1) … (8) number problems.
LONGEST_PARTS = 8


def brackets_number_problems(top_level: int, bracketed: list[int]) -> bool:
    """Whether a page's bracketed numbers number its problems rather than sub-questions:
    it has no other problem number, or they are at least twice as many as its other
    numbers (a number circled by the teacher read bare, 「11光合作用…」), none repeats
    and none is (1), which sub-questions start from, unless they run on as no problem's
    parts do: (1) to (8) and more, under an exercise's heading 「习题3.2」."""
    if top_level == 0:
        return True
    return len(bracketed) >= 2 * top_level and len(set(bracketed)) == len(bracketed) and (
        1 not in bracketed or len(bracketed) >= LONGEST_PARTS)


# A score note with the problem after it: the number before it was lost (a circled number
# the detector read apart as a mark, "(8" under a finger with its ")" left, "4)" read "t)"), not a note
# wrapped onto a line of its own.
_NOTE_FIRST = re.compile(rf"^\s*(?:[A-Za-z]?[)）\]】]\s*)?{_SCORE_NOTE}\s*(?=[\u4e00-\u9fffA-Za-z])", re.IGNORECASE)


def is_number_alone(line: str) -> bool:
    """The line is a problem number or label with nothing after it ("Q21.", 「第一题（5分）」)."""
    return not strip_number(line).strip(" :：.．-—_")


@functools.lru_cache(maxsize=4096)  # a page's columns are sought over the same boxes many times
def is_bare_number(text: str) -> bool:
    """A problem number alone and not in brackets (「7、」, "Q21."; not a marks column's "[5]")."""
    return bool(text.strip()) and is_number_alone(text) and not starts_bracketed_label(text)


# A class chat's line above a message: its time ("19:42"), its sender ("Mr. Zhang", 「数学-陈老师」,
# perhaps with the avatar's character read after it: 「周老师周」), or both ("11:09 Mr. Zhang").
_CHAT_TIME = r"\d{1,2}:\d{2}(?!\d)"
_CHAT_SENDER = re.compile(
    rf"^\s*(?:{_CHAT_TIME}|(?:{_CHAT_TIME}\s*)?(?:(?:Mr|Mrs|Ms|Miss|Dr)\.?\s+[A-Z][a-z]+"
    rf"|(?:[\u4e00-\u9fff]{{2}}\s*[-—·]?\s*)?[\u4e00-\u9fff]老师[\u4e00-\u9fff]?)(?:\s*{_CHAT_TIME})?)\s*$")


def is_chat_line(line: str) -> bool:
    """A class chat's time or sender line (:data:`_CHAT_SENDER`): the photo is of a chat."""
    return _CHAT_SENDER.match(line) is not None


# A homework app's buttons and links, alone on their row, one or a few side by side:
# "Show hint", "Upload photo", 「看解析」 「拍照上传」, 「在此作答…」 (the answer box's hint).
_APP_BUTTON = (r"(?:(?i:show\s+(?:hint|answer|solution)|upload(?:\s+(?:a\s+)?photo)?|submit(?:\s+answer)?|check(?:\s+answer)?"
               r"|next(?:\s+question)?|previous|skip)|提交(?:作业|答案)?|下一题|上一题|(?:查)?看解析|(?:查)?看答案|拍照上传|上传图片"
               r"|在此作答[.…。]*|请输入答案[.…。]*)")
_APP_BUTTONS = re.compile(rf"^\s*{_APP_BUTTON}(?:\s*[|｜·]?\s*{_APP_BUTTON}){{0,3}}\s*$")


def is_header(line: str) -> bool:
    """A line that belongs to no problem: a title, a name/class line, a section heading,
    a lead-in (:func:`is_lead_in`) or a label alone ("第一题（5分）", "Question 1", "Homework 3",
    【能力提升】)."""
    text = line.strip()
    if not text:
        return False
    if is_number_alone(text) or is_lead_in(text):
        return True
    section = _SECTION.match(text)
    if ((section and (len(text) <= 24 or len(text) <= 60 and not reads_as_question(text) or _GLOSS.match(text[section.end():])
                     or _SECTION_NOTE.match(text[section.end():])))
            or _SECTION_LABEL.match(text) or _BRACKETED_LABEL.match(text) or _SECTION_KIND.match(text)
            or _SECTION_TITLE.match(text) or _SECTION_WITH_NOTE.match(text) or _PART_KIND.match(text)):
        return True
    if _FORM_LINE.match(text) or is_chat_line(text) or _APP_BUTTONS.match(text) or _CHOICE_RULE.search(text) \
            or _BOX_TITLE.match(text):
        return True
    if (_HEADER_WORDS.search(text) or _INSTRUCTION.match(text)) and (len(text) <= 40 or not _ASKS.search(text)):
        return True
    if (_TITLE_WORDS.search(text) or _TITLE_START.match(text)) and len(text) <= 24 and not _ASKS.search(text):
        return True  # 「期中复习 综合练习」
    return False


# An instruction that only leads in to the parts below it: 「解答下列各题。」 「按要求完成下列各题」
# 「五、回答下列问题：」 「计算下列各式」 「解下列方程」 「根据所学知识回答：」, "Answer the following
# questions.", "Answer these questions.", "Section 6: Choose the best answer.", "Part B Short
# answer questions".
_LEAD_IN = re.compile(
    r"^(?:(?:[^？?。，,]{0,10}[，,]\s*)?[^？?。，,]{0,10}(?:下列|下面|以下)[^？?。]{0,10}?(?:各?小?题|问题|题目|各式|算式|方程组?|不等式组?)"
    r"(?:\s*[，,]\s*(?:并|然后|再)?(?:分别|逐一|依次)?(?:作答|回答|解答|完成))?"
    r"|请?(?:将|把)?答案(?:写|填)在[^？?]{0,12}|(?:根据所学(?:的)?(?:知识)?|请)?(?:回答|解答|作答)(?:问题)?"
    r"|请?(?:按|根据)(?:题目的?|题)?要求(?:作答|答题|解答|回答|完成|填空|改写(?:下列|下面的?)?句子)"
    # a workbook's pair of doubled verbs: 「读一读，答一答。」 「想一想，算一算」
    r"|(?P<v1>[\u4e00-\u9fff])一(?P=v1)\s*[，,、]?\s*(?P<v2>[\u4e00-\u9fff])一(?P=v2)"
    r"|(?i:(?:(?:(?:section|part)\s+[A-Z\d]{1,3}|(?-i:[IVX]{1,4})(?=\s*[.．、]))\s*[:.．、]?\s*)?"
    r"(?:(?:use\s+what\s+you\s+(?:have\s+)?(?:learnt|learned|know)\s+to\s+)?"
    r"(?:answer|complete|solve|do|work\s+out|read|choose|fill\s+in|simplify|calculate|compute|evaluate|factori[sz]e)"
    r"\b[^?]{0,30}\bthe\s+following\b[^?]{0,25}"
    r"|choose\s+the\s+(?:best|correct|right)\s+answers?(?:\s+for\s+each\s+question)?"
    r"|read\s+the\s+(?:questions|problems)\s+(?:below|that\s+follow)(?:\s+and\s+answer\s+(?:them|each(?:\s+one)?))?"
    r"|(?:answer|complete|do|try)\s+(?:these|the|all\s+(?:of\s+)?(?:these|the))\s+questions(?:\s+below)?"
    r"|(?:answer|complete|do|try|solve)\s+each\s+(?:question|problem|one|part)(?:\s+below)?"
    r"|(?:answer|attempt)\s+all\s+(?:the\s+)?questions\b[^?]{0,30}|show\s+all\s+(?:of\s+)?your\s+work(?:ing)?\b[^?]{0,20}"
    r"|(?:short|long)[\s-]+answer(?:\s+questions)?|multiple[\s-]+choice(?:\s+questions)?)))"
    r"\s*[。.:：]?\s*$")
# What a recogniser leaves before a lead-in: an answer bracket of the line above, a bracket's half.
_BEFORE_LEAD_IN = re.compile(r"^\s*(?:[（(]\s*[)）]|[\]】」)）])\s*")


def is_lead_in(line: str) -> bool:
    """The line (after its number and score note) is an instruction that leads in to the
    parts printed below it, and asks nothing itself: each part is a problem of its own."""
    return _LEAD_IN.match(strip_number(_BEFORE_LEAD_IN.sub("", strip_ticks(line))).strip()) is not None


# A problem's own words: a question mark, a blank to fill, or a word that asks or instructs.
_QUESTION = re.compile(r"[?？]|[_＿]{2,}|求|计算|多少|哪|什么|怎样|如何|是否|谁|几|写出|比较|判断|选择|填|解方程|解不等式"
                       r"|化成|化简|因式分解|分解因式|翻译|画出|指出|改写|补全|说出|列出"
                       r"|(?i:\b(?:what|which|who|whom|whose|when|where|why|how|find|solve|calculate|compute|"
                       r"simplify|fill|choose|translate|write|name|explain|describe|evaluate|convert|factori[sz]e|expand|prove|rewrite|"
                       r"complete|determine|identify|estimate|change\s+(?:into|to))\b)")


def reads_as_question(text: str) -> bool:
    """The text asks or sets a task (「…是多少？」, 「求…」, "Fill in the blank…", "___"), as a
    problem does and a title or caption does not."""
    return _QUESTION.search(text) is not None


# A student's working below a problem derives (「移项得…」, 「由牛顿第二定律…」, "So x = 4", "= 12 m/s", a
# line left on an operator, an answer "x2 = 3") where a problem asks.
_WORKING = re.compile(r"^\s*(?:由(?!于)|得|所以|因为|因此|∴|∵|移项|代入|化简|两边|[=＝](?!\s*[_＿?？(（])|(?i:so|therefore|hence|thus)\b)"
                      r"|得\s*[^，。,]{0,12}[=＝]|[=＝+\-×÷]\s*$|^\s*[A-Za-z][\w₀-₉]{0,2}\s*[=＝]\s*-?[\d./]+\s*$"
                      r"|^\s*\d[\d.]*\s*[=＝]\s*-?[\d./]+\s*$"  # "2³ = 8" read as "23 = 8"
                      # a worked step in signs and figures only: "cos 30° = √3/2", "1/6 = 2/12"
                      r"|^\s*(?:sin|cos|tan|log|[\d(√])[^\u4e00-\u9fff?？_＿=＝A-Za-z]{0,12}(?:sin|cos|tan|log)?[^\u4e00-\u9fff?？_＿=＝A-Za-z]{0,8}[=＝]\s*[\d√(-][^\u4e00-\u9fff?？_＿A-Za-z]*$"
                      r"|^\s*[\d.]+(?:\s*[+\-×÷*/^]\s*[\d.]+)*\s*[=＝]\s*[\d.]+(?:\s*[+\-×÷*/^]\s*[\d.]+)+"
                      r"|^\s*[\d.]+(?:\s*[+\-×÷*/^]\s*[\d.]+)+\s*[=＝]\s*[\d.]+"  # a sum worked: "36=2²×3²"
                      r"|^\s*[\d.]+\s*[xX]\s*[\d.]+\s*[=＝]"  # a product with its "x" written as a letter: "6x8=48"
                      r"|^\s*\d+\s*[a-z]\s*[=＝]\s*-?[\d./]+\s*(?:$|[a-z]\s*[=＝])"  # a step solving for x: "6x=24 x=4"
                      r"|^\s*[(（][\d.\s+\-×÷*/]+[)）]\s*[xX×÷*/]\s*[\d.]+")  # a bracket worked on: "(2+12)x5"


def sets_a_task(text: str) -> bool:
    """The text asks (:func:`reads_as_question`) or gives an instruction before a colon
    ("Change into the passive voice: …", 「计算：…」): a problem; not a statement alone
    ("A bag contains 3 red balls and 5 blue balls.")."""
    return reads_as_question(text) or ":" in text or "：" in text


def reads_as_working(line: str) -> bool:
    """The line reads as a student's working, not as part of a problem."""
    return _WORKING.search(line) is not None and not reads_as_question(line)


# A bare answer or score written after a problem's end (not a dot: 3.14): a number, a unit,
# a tick (「？√1840」 「？ 160」 「（3分) 921918」 「？ +5」).
_FIGURE = r"[+\-]?\d[\d.,/]*\s*"  # a written number: "+5", "3.14", "3/8"
_BARE_ANSWER = re.compile(rf"^[\s√✓]*{_FIGURE}(?:[A-Za-z°%℃元年米个]{{1,3}}|['′])?[\s√✓]*$")


# An answer written alone on the row under a problem's end: a number and its unit ("60 km/h",
# "20 cm", "3/8") or one word in small letters ("went", "goes"), which no line of print
# holds alone after a finished sentence.
_ANSWER_ROW = re.compile(rf"^\s*(?:{_FIGURE}(?:[A-Za-z°%℃]{{1,3}}(?:/[A-Za-z]{{1,2}})?)?|[a-z]{{2,10}})\s*$")


def is_answer_row(text: str) -> bool:
    """The row holds only a written answer (:data:`_ANSWER_ROW`)."""
    return _ANSWER_ROW.match(text) is not None


# The option a student chose, written right after a question or a full stop: 「…哪个腔？B」.
_CHOSEN_OPTION = re.compile(r"^\s*[A-DＡ-Ｄ]\s*$")

# A word or two written right after a question, no sentence of its own: 「…消化腺是什么？肝脏」.
# Not an instruction whose full stop was lost (「…对吗？说明理由」).
_SHORT_ANSWER = re.compile(r"^\s*(?![写求说列画计解判比选填指简举试请用并])[\u4e00-\u9fff]{1,4}\s*$")


# A few words or figures written right after a question, with no sentence end of their own
# (「…现价是多少元？价差150」, "…of the cell\"? The mito"): not an instruction nor a second question.
_WRITTEN_ANSWER = re.compile(r"^\s*(?![写求说列画计解判比选填指简举试请用并])[\w\u4e00-\u9fff][\w\u4e00-\u9fff ]{0,11}$")


def _written_answer(rest: str) -> bool:
    return _WRITTEN_ANSWER.match(rest) is not None and not reads_as_question(rest) and _MARKS.match(rest) is None


# Marks printed after the question: "7 marks", 「5分」 (a score note, no student's writing).
_MARKS = re.compile(r"^\s*\d{1,3}\s*(?:marks?|points?|pts?|分)\s*$", re.IGNORECASE)


# The options in a bracket at the question's end ("(go / goes / went)"), and after it the one
# the student wrote ("… went").
_OPTIONS_BRACKET = re.compile(r"[（(]([^()（）]*/[^()（）]*)[)）]$")


# The slashes of an options bracket read as "I" or "|": "(go I goes I went)".
_OPTIONS_READ_AS_I = re.compile(r"[（(][a-z]+(?:\s+[Il|]\s+[a-z]+)+[)）]")


def with_option_slashes(text: str) -> str:
    """An options bracket whose slashes were read as "I" or "|" gets them back."""
    return _OPTIONS_READ_AS_I.sub(lambda m: re.sub(r"\s+[Il|]\s+", " / ", m.group()), text)


def ends_with_options_bracket(text: str) -> bool:
    """The text ends with the question's options in a bracket ("…yesterday. (go / goes / went)"):
    words, not given data ("(ρ水 = 1.0×10³ kg/m³, g 取 10 N/kg)")."""
    options = _OPTIONS_BRACKET.search(text.rstrip())
    return options is not None and not re.search(r"[\d=＝]", options.group(1))


def is_options_bracket(line: str) -> bool:
    """The line is only a bracket of options ("(go / goes / went)"), wrapped from the question above."""
    options = _OPTIONS_BRACKET.search(line.strip())
    return options is not None and options.start() == 0


def _one_of_the_options(text: str, rest: str) -> bool:
    options = _OPTIONS_BRACKET.search(text)
    return options is not None and rest.strip().lower() in {o.strip().lower() for o in options[1].split("/")}


# An equation to solve with its solution written after it in the same line: 「解方程：2x + 3 = 13
# x = 5」, "Solve: 3x - 5 = 7 x = 4" (the second "=" after the equation's own).
_SOLVED = re.compile(r"^(\s*(?:解方程|(?i:solve)\b)[^=＝]*[=＝][^=＝]*?[\d)])\s+[A-Za-z]\s*[=＝]\s*-?[\d./]+\s*$")
# A teacher's score written at the text's end, apart from it: "4'" (4 points), "+2'", 「5分」
# (not after Chinese words: 「…用了 8 分」).
_SCORE_MARK_AT_END = re.compile(r"(?<!\s)\s+[+\-]?\d{1,2}\s*['′]\s*$|(?<=[^\u4e00-\u9fff\s])\s+[+\-]?\d{1,2}\s*分\s*$")


# A bracketed number alone after the question's end (or its options' bracket): marks ("…red? [2]",
# "…(go / goes / went) [2]") or the number of a problem in the next column whose words the
# frame cut off (「…是多少？(9)」).
_LABEL_AFTER_END = re.compile(r"(?:(?<=[?？。!！])\s*|(?<=[)）])\s+)(?:[（(]\s*\d{1,2}\s*[)）]|[\[［【]\s*\d{1,2}\s*[\]］】])\s*$")
# A value with its unit (or none) in a bracket: "(40°)", 「(2 m/s²」 (not a score note: "(2 marks)").
_VALUE_BRACKET = r"\s*[（(]\s*-?\d[\d./]*\s*(?:°|(?!(?i:marks?|points?|pts?)\b)[A-Za-z/²³]{1,6})?\s*[)）]?"
# The teacher's tick or cross before the answer bracket: 「？√(c)」, 「？X（200）」.
_TICKED = r"(?:[X×✗√✓]\s*)?"
# An option letter the student wrote in the answer bracket, its closing half perhaps lost: "(B", 「（C）」.
_CHOSEN_BRACKET = r"[（(]\s*[A-D]\s*[)）]?"
# The student's answer in the answer bracket after the question's end, its closing half faint or
# missing: a chosen option (「…成立的？（C」, "…of \"go\"? (c") or the first figures of a year or
# number (「…哪一年？(19」).
_CHOSEN_AFTER_END = re.compile(rf"(?:(?<=[?？。])\s*{_TICKED}{_CHOSEN_BRACKET}|(?<=[?？])\s*{_TICKED}[（(]\s*(?:[a-d]\s*[)）]?|\d{{1,2}}))\s*$"
                               # ...or a value with its unit, in the bracket after the question (or a
                               # full stop after a word): "…energy? (40°)", "？(2 m/s²", "…(3, 6).（0.5）"
                               rf"|(?:(?<=[?？。])|(?<=[^\d\s.]\.))\s*{_TICKED}{_VALUE_BRACKET}\s*$")
_VALUE_IN_BRACKET = re.compile(rf"{_VALUE_BRACKET}\s*$")
# A sentence's end or a closing bracket (a score note's 【2分】 too: 「…= 2x + 5【2分】x=2」); not
# a decimal point (0.5) nor an option's (「B. 3.5」), nor a bracket the formula goes on after
# (「2(x+1) = 8」).
_END_NOT_DECIMAL = re.compile(r"[？?。！!]|[）)】](?!\s*[=＝+\-×÷^²³])|(?<!\b[A-D])(?:(?<!\d)\.|\.(?!\d))")


# Sums and equations written after the problem's end (its question mark or full stop, and the
# bracket of givens or options after it), on its row and the rows under it: letters, figures and
# signs only, no word (「…化学方程式。S=3x2=6 S=6×5=30」, "…？) x²-18x+77=0 2×11=22").
_END_THEN_BRACKET = re.compile(r"[?？。](?:\s*[（(][^()（）]*[)）])?")
_WORKED = re.compile(r"[\d²³)]\s*[+\-×÷*/xX]\s*\d|[A-Za-z]\s*[+\-]\s*\d")  # worked, not given: 「（2x5=10」
# An unknown's value without a unit, alone in the bracket or before more sums: 「？（x=4）」, 「？（x=12 5x=10」,
# 「？（x<4）」.
_UNKNOWN_VALUE = re.compile(r"\s*[（(]\s*([a-z])\s*[=＝<>≤≥＜＞]\s*-?\d[\d./]*\s*(?:[)）]?\s*$|\s\S*[=＝])")


def _answers_unknown(rest: str, problem: str) -> bool:
    """``rest`` opens with a bracket giving a letter's value (:data:`_UNKNOWN_VALUE`) that the
    ``problem`` never names: the student's answer, not a given ("…3x + 1 的值？(x = 2)" names x)."""
    value = _UNKNOWN_VALUE.match(rest)
    return value is not None and re.search(rf"(?<![A-Za-z]){value[1]}(?![A-Za-z])", problem) is None


# The student's answer in brackets right after an instruction's formula, its closing half perhaps
# lost: a value or a worked sum (「计算：3/4 - 1/6（3）」, 「计算：(-3)² - 2 × (-5)（8x5=40」); not a
# bracket after an operator, nor one of letters (「化简：3(x + 2)」).
_BRACKET_AFTER_TERM = re.compile(r"(?<=[\d°²³A-Za-z)）])\s*[（(]([^()（）]*)[)）]?\s*$")


def without_answer_after_formula(text: str) -> str:
    """The text without the answer written in brackets after its formula (:data:`_BRACKET_AFTER_TERM`)."""
    bracket = _BRACKET_AFTER_TERM.search(text)
    if bracket is None or not ends_formula(text[:bracket.start()]):
        return text
    inside = bracket.group(1)
    written = _BARE_ANSWER.match(inside) or (re.search(r"[=＝]", inside) and _WORKED.search(inside))
    return text[:bracket.start()] if written else text


def without_sums_after_end(text: str) -> str:
    """The text without the sums written after its end (:func:`is_formula_alone`, with an equals
    sign and a figure; in a bracket only when worked or when it gives the value of a letter the
    problem never names: a bracket holds givens, "…3x + 1 的值？（x = 2）"). Sums hold no
    question mark or full stop: the last ends the problem."""
    at = max(text.rfind("?"), text.rfind("？"), text.rfind("。"))
    end = _END_THEN_BRACKET.match(text, at) if at >= 0 else None
    rest = text[end.end():] if end else ""
    if at >= 0 and _answers_unknown(text[at + 1:], text[:at]) and is_formula_alone(text[at + 1:]):
        return text[:at + 1]
    if _VALUE_IN_BRACKET.match(rest):  # after the givens: 「？（π取3.14）（20N）」
        return text[:end.end()]
    if rest.strip() and (rest.lstrip()[:1] not in "（([【" or _WORKED.search(rest)) and is_formula_alone(rest) \
            and re.search(r"[=＝]", rest) and re.search(r"\d", rest):
        return text[:end.end()]
    return text


def without_working(text: str) -> str:
    """The text without working written on after its end: its last question mark, full stop
    or closing bracket (the detector read 「…kinetic energy? E_k = 1/2mv² =」 or
    "…= 0 (10 marks) x2 = 3" as one line), or a bare answer after it; nor a teacher's
    score after a formula (「计算：3/4+1/6 4'」), nor a bracketed number alone after its end
    (:data:`_LABEL_AFTER_END`), nor the answer written in its bracket (:data:`_CHOSEN_AFTER_END`),
    nor sums written after its end (:func:`without_sums_after_end`) or an answer in brackets
    after an instruction's formula (:func:`without_answer_after_formula`), nor a teacher's
    remark after its end (:func:`without_remark_at_end`)."""
    text = without_answer_after_formula(without_sums_after_end(without_remark_at_end(text)))
    text = _SCORE_MARK_AT_END.sub("", _LABEL_AFTER_END.sub("", _CHOSEN_AFTER_END.sub("", text)))
    text = _SOLVED.sub(r"\1", text)
    end = max((m.start() for m in _END_NOT_DECIMAL.finditer(text)), default=-1)  # 「？0.5mol」: not its point
    rest = text[end + 1:]
    if end < 0 or not re.search(r"\w", rest) or rest.lstrip()[:1] in "（([【":  # given data: 「？（ρ水 = 1.0×」
        return text
    if not strip_number(text[:end + 1]).strip():  # the bracket closed the number or score note before it: 「4、(3分)…B =」
        return text
    decimal = text[end] == "." and not rest[:1].isspace()  # 3.14, not "…2010. 5"
    chosen = text[end] in "?？" and (_CHOSEN_OPTION.match(rest) or _SHORT_ANSWER.match(rest)) is not None \
        or text[end] == "。" and _CHOSEN_OPTION.match(rest) is not None \
        or text[end] in "?？" and _written_answer(rest) or text[end] in ")）" and _one_of_the_options(text[:end + 1], rest)
    worked = text[end] in "?？" and _SUM_WORKED.search(rest) is not None and not reads_as_question(rest)
    written = reads_as_working(rest) or chosen or worked or (not decimal and _BARE_ANSWER.match(rest) is not None)
    return text[:end + 1] if written else text


# A sum worked out in words after the question ("…red? There are 3 + 5 = 8 balls").
_SUM_WORKED = re.compile(r"\d\s*[+\-×÷*/]\s*\d[^?？=＝]{0,12}[=＝]\s*-?\d")


# The first of a problem's sub-questions: "(1)", 「（1）」, at a line's start or after a sentence.
_FIRST_PART = r"[（(]\s*1\s*[)）]"
# Sub-questions numbered in a style of their own: "1)" or ① (not ⑩⑥, a circled 16 read in
# two), under a problem numbered otherwise (「10、」 "Question 8" 「八、」 "(6)").
_OWN_STYLE_PART = re.compile(r"^\s*(?:(?P<digits>\d{1,2})\s*[)）]|(?P<circled>[\u2460-\u2473])(?![\u2460-\u2473\u24ea\d])"
                             r"|[（(]?(?P<letter>[a-h])[)）](?=\s*[A-Za-z\u4e00-\u9fff]))")
_FIRST_PART_AFTER_END = re.compile(rf"(?<=[?？。!！])\s*{_FIRST_PART}")


def starts_sub_questions(line: str) -> bool:
    """The line starts a problem's sub-questions with "(1)", or with "1)" or ① (numbered in a
    style of their own, :func:`part_in_own_style`)."""
    return re.match(rf"\s*{_FIRST_PART}", line) is not None or part_in_own_style(line, "") == 1


# Sub-questions that say only how to answer: show the working, explain, check, give the
# formula used or the units (「（1）写出计算过程；（2）说明理由。」, "(a) Show your working."). They
# ask for nothing new: the problem is its stem.
_HOW_TO_ANSWER = (
    r"(?i:(?:please\s+)?(?:show|write\s+(?:down|out))\s+(?:all\s+)?(?:of\s+)?(?:your\s+|the\s+)?"
    r"(?:working|work|steps|method|calculations?|reasoning|formulae?|equations?)(?:\s+(?:you\s+)?used?)?"
    r"|explain\s+(?:your\s+(?:answer|reasoning|method)|why|how\s+you\s+(?:got|found)\s+(?:it|your\s+answer))"
    r"|justify\s+your\s+answer|check\s+(?:your\s+answer|that\s+your\s+answer\s+is\s+(?:correct|right))"
    r"|give\s+(?:your\s+|the\s+)?(?:answer|result)(?:\s+(?:with|in)\s+(?:the\s+)?(?:correct\s+)?units?"
    r"|\s+in\s+(?:its\s+)?simplest\s+form)?|give\s+(?:a\s+)?reasons?)"
    r"|写出(?:你的)?(?:所用的?)?(?:计算|解题|解答|推理)?(?:过程|步骤|思路|公式|答语)|说明(?:你的)?理由"
    r"|列式计算|列出算式|代入数据求解|求出结果|检验(?:你的)?(?:答案|结果)(?:是否正确)?")
_HOW_TO_PART = re.compile(rf"\s*(?:{_BRACKETED}|{_LETTER_PART}|[①-⑩])?\s*(?:{_HOW_TO_ANSWER})\s*[.;:。；，,！!]?\s*")
_PART_LABEL = re.compile(rf"{_BRACKETED}|{_LETTER_PART}|[①-⑩]")


# A hint printed under a problem (「提示：本题考查…」, "Hint: draw a diagram.", 【点拨】):
# it helps with the problem and is no part of what the student asks.
_HINT = re.compile(r"^\s*(?:[【\[(（]\s*(?:提示|点拨|小贴士|Hints?|Tips?)\s*[】\])）]|(?:提示|点拨|小贴士|想一想|(?i:hints?|tips?))\s*[:：])")


# A side box's title alone on its row: the lines under it help with the problems or set a
# thought of the book's own (「提示」 ⏎ 「先找出已知条件，再列式计算。」, "Think" ⏎ "Is there
# another way?"), and no student frames them to ask.
_HINT_TITLE = re.compile(r"^\s*(?:[【\[(（]\s*)?(?:温馨提示|友情提示|提示|点拨|小贴士|想一想|注意"
                         r"|(?i:hints?|tips?|remember|think(?:\s+about\s+it)?|note|did\s+you\s+know|watch\s+out))"
                         r"\s*[】\])）]?\s*[!！?？:：]?\s*$")


def is_hint_title(line: str) -> bool:
    """The line is a hint box's title alone (:data:`_HINT_TITLE`)."""
    return _HINT_TITLE.match(line) is not None


def is_hint(line: str) -> bool:
    """The line starts a hint (:data:`_HINT`)."""
    return _HINT.match(line) is not None


def says_how_to_answer(line: str) -> bool:
    """Every part of the line says only how to answer (:data:`_HOW_TO_ANSWER`)."""
    starts = [0, *(m.start() for m in _PART_LABEL.finditer(line) if m.start()), len(line)]
    parts = [line[a:b] for a, b in zip(starts, starts[1:]) if line[a:b].strip()]
    return bool(parts) and all(_HOW_TO_PART.fullmatch(part) for part in parts)


def without_how_to_answer(text: str) -> str:
    """The text without the sub-questions at its end that say only how to answer."""
    for label in _PART_LABEL.finditer(text):
        if label.start() and says_how_to_answer(text[label.start():]):
            return text[:label.start()].rstrip()
    return text


def part_in_own_style(line: str, problem: str) -> int | None:
    """The number of a line that starts a sub-question numbered "1)", ① or "(a)" / "b)" (a
    letter counts as its place: b is 2) under a problem whose first line (``problem``) is
    numbered in another style, else None."""
    match = _OWN_STYLE_PART.match(line)
    if match is None:
        return None
    above = _OWN_STYLE_PART.match(problem)
    if above is not None and above.lastgroup == match.lastgroup:
        return None  # "2)" under "1)": problems numbered alike
    if match["letter"]:
        return ord(match["letter"]) - ord("a") + 1
    return int(match["digits"]) if match["digits"] else ord(match["circled"]) - 0x245F


def table_before_parts(lines: Iterable[str], most: int = 4) -> bool:
    """``lines`` start with up to ``most`` rows of a table (mostly figures, asking nothing:
    "t/s 63 54") and the problem's sub-questions follow right after them (only the first
    ``most`` + 1 lines are looked at: a lazy iterable is read no further)."""
    for k, line in enumerate(itertools.islice(lines, most + 1)):
        if starts_sub_questions(line):
            return k > 0
        if reads_as_question(line) or not _figures_row(line):
            return False
    return False


def reads_as_figures(line: str) -> bool:
    """Figures with one word or unit at most, nothing that asks ("0.5 mol 20 25", "t/s 63 54"):
    a table's row, or a student's answers written in a row."""
    return _figures_row(line) and not reads_as_question(line)


_NUMBER_ALONE = re.compile(r"^\s*-?\d{1,4}(?:\.\d{1,2})?\s*$")


def axis_figures(lines: list[str]) -> int:
    """How many of the last ``lines`` are a figure's axis, one figure to a line: three or
    more numbers alone, evenly stepped (「30」 ⏎ 「20」 ⏎ 「10」, a chart's scale read top down);
    0 when they are not."""
    values: list[float] = []
    for line in reversed(lines):
        if not _NUMBER_ALONE.match(line):
            break
        values.append(float(line))
    steps = {round(b - a, 6) for a, b in zip(values, values[1:])}
    return len(values) if len(values) >= 3 and len(steps) == 1 and 0 not in steps else 0


def _figures_row(line: str) -> bool:
    """A row of a table: figures, with one label or unit at most ("t/s 63 54")."""
    words = line.split()
    # a figure with its unit at most ("0.5", "10m/s"): not words of a sentence round a number
    # (「…电压是6 V，通过它的电流是」 has two "words")
    figures = sum(any(c.isdigit() for c in w) and sum(c.isalpha() for c in w) <= 3 for w in words)
    return len(words) >= 2 and figures >= len(words) - 1


def part_number(line: str) -> int | None:
    """The number of a line that starts like a sub-question: "1)" or ① (in a style of their
    own), or bracketed ("(3)", 「【12】」); else None."""
    number = part_in_own_style(line, "")
    return number if number is not None else bracketed_number(line)


def ringed_number(line: str) -> int:
    """The number of a line that starts with a circled one (①: 1), else 0. A student who rings
    a problem's "(1)" to show which one they mean makes it read so; the bracketed numbers
    after it, "(2)" and "(3)", then number its neighbours, not its parts."""
    match = _OWN_STYLE_PART.match(line)
    return ord(match["circled"]) - 0x245F if match and match["circled"] else 0


_HALF_BRACKETED = re.compile(r"^\s*(\d{1,2})\s*[)）]")
# ...and "(9 (3分)…" or 「(7“先天下…」, whose closing bracket was lost: the opening one is never
# closed on the line.
_OPEN_BRACKETED = re.compile(r"^\s*([（(\[【])\s*(\d{1,2})(?:\s+(?=\S)|(?=[\u4e00-\u9fff“《「]))")
_CLOSING = {"(": ")", "（": "）", "[": "]", "【": "】"}


def _beside_page_numbers(number: int, numbers: set[int]) -> bool:
    """The page's bracketed ``numbers`` hold the one before ``number`` or the one after it."""
    return bool({number - 1, number + 1} & numbers)


def _never_closed(line: str, opening: str = "(") -> bool:
    """More brackets of ``opening``'s kind are opened in the line than closed."""
    kind = "(（" if opening in "(（" else opening
    return sum(line.count(c) for c in kind) > sum(line.count(_CLOSING[c]) for c in kind)


def with_lost_brackets(lines: list[str]) -> list[str]:
    """The page's lines, "2)" (or "(2 …" never closed) read as "(2)" where the page's
    bracketed numbers hold 1 or 3: a ring drawn round "(2)" took its opening bracket (how the page numbers its problems is
    judged on these lines). Not where it closes a bracket the line above left open ("6)."
    under "…(1, 2) and (3,", :func:`continues_bracket`)."""
    numbers = {n for n in map(bracketed_number, lines) if n is not None}
    def whole(above: str, line: str) -> str:
        match = _HALF_BRACKETED.match(line)
        lost = match is not None and not continues_bracket(above, line)
        if lost and _beside_page_numbers(int(match[1]), numbers):
            return f"({line.lstrip()}"
        return closed_label(line, numbers)
    return [whole(above, line) for above, line in zip(["", *lines], lines)]


# A label's digits taken for a letter's superscript or subscript: "Q⁵." (the glyph step
# raises a digit after a letter, as in x²).
_SCRIPT_LABEL = re.compile(r"^(\s*(?:Q|No\.?|Ex\.?|Question|Problem|Exercise)\s*)([⁰¹²³⁴⁵⁶⁷⁸⁹₀₁₂₃₄₅₆₇₈₉]+)(?=\s*[.．:：、)）]|\s)")
_PLAIN_DIGITS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹₀₁₂₃₄₅₆₇₈₉", "01234567890123456789")


def mended_label(line: str, numbers: set[int]) -> str:
    """The line with its label's digits plain ("Q⁵." → "Q5.") and a lost closing bracket
    put back (:func:`closed_label`)."""
    line = _SCRIPT_LABEL.sub(lambda m: m[1] + m[2].translate(_PLAIN_DIGITS), line)
    return closed_label(line, numbers)


def closed_label(line: str, numbers: set[int]) -> str:
    """"(9 (3分)因式分解…" as "(9) (3分)因式分解…" and "[3 一个…" as "[3] 一个…" where the
    page's bracketed ``numbers`` hold the one before or after: the label's closing bracket
    was lost (the opening one is never closed)."""
    match = _OPEN_BRACKETED.match(line)
    if match is None or not _never_closed(line, match[1]) or not _beside_page_numbers(int(match[2]), numbers):
        return line
    return f"{match[1]}{match[2]}{_CLOSING[match[1]]} {line[match.end():]}"


def wraps_lead_in(line: str, below: str) -> bool:
    """``line`` is no lead-in alone, but with ``below`` (no label, no part) it is one."""
    return not is_lead_in(line) and label_number(below) is None and not PART.match(below) \
        and is_lead_in(f"{line} {below}")


def starts_part(line: str) -> bool:
    """The line starts with a part's label: "(2)", "b)", ②."""
    return PART.match(line) is not None or ringed_number(line) > 0


# A part that is a formula alone ("(2) x/2 + 8 = 7" under 「解下列方程：」): digits, letters
# standing alone or in twos ("sin" and "log" in threes), operators and brackets.
_FORMULA_ALONE = re.compile(r"^(?:[\s\d₀-₉.+\-−×÷*/=＝<>≤≥≠()（）\[\]{}²³√π^,，:：]|(?<![A-Za-z])(?:[A-Za-z]{1,2}|sin|cos|tan|log)(?![A-Za-z]))+$")


def is_formula_alone(text: str) -> bool:
    return _FORMULA_ALONE.match(text) is not None


def next_own_style_part(line: str, part: int, problem: str) -> int:
    """The line's number when it goes on with the sub-questions numbered in a style of their
    own under the problem whose first line is ``problem`` (:func:`part_in_own_style`): 1, or
    the number after its last ``part``; else 0."""
    number = part_in_own_style(line, problem)
    return number if number == part + 1 else 0


def top_level_count(lines: list[str]) -> int:
    """How many of a page's lines (in reading order) start with a top-level problem number,
    not counting sub-questions numbered in a style of their own ("1)" 「①」 under 「(6)」)."""
    count, problem, part = 0, None, 0
    for above, line in zip(["", *lines], lines):
        if continues_bracket(above, line):  # "16)" under "(H = 1, O =": a given wrapped
            continue
        if problem is not None and next_own_style_part(line, part, problem):
            part += 1
            continue
        if _top_level_number(line) or bracketed_number(line) is not None:
            problem, part = line, 0
            count += _top_level_number(line)
    return count


def _top_level_number(text: str) -> bool:
    """A problem number of the top level, not a section heading ("一、计算题"); a number alone
    on its row ("Question 15:") counts, though its row is a label of no problem."""
    return TOP_LEVEL.match(text) is not None and (not is_header(text) or is_number_alone(text))


def stem_asks(text: str) -> bool:
    """The problem's stem asks by itself and has ended (「…有几个电子？」, 「写出…。」, or an
    instruction and its formula: 「解方程：x² - 5x + 6 = 0」): its sub-questions then say how
    to answer it, and the bank keeps the stem. A stem of givens (「已知…宽是 6 厘米。」) asks
    in its sub-questions."""
    stem = without_working(strip_number(text)).strip()  # a score the teacher wrote after it: 「？8/10」
    return reads_as_question(stem) and (ends_sentence(stem) or ends_formula(stem))


def without_sub_questions(text: str) -> str:
    """The text without the sub-questions run on after a stem that asks (:func:`stem_asks`)."""
    first = _FIRST_PART_AFTER_END.search(text)
    return text[:first.start()] if first and stem_asks(text[:first.start()]) else text


def starts_answer(line: str) -> bool:
    """The line opens the answer space (「解：」, "Answer:"): it and the lines after it, up
    to the next problem number, are the student's writing."""
    return _ANSWER.match(line) is not None


def is_mark(text: str) -> bool:
    """A tick, cross, circle or lone circled number, as read by the recogniser."""
    text = text.strip()
    return 0 < len(text) <= 2 and all(ch in MARK_CHARS for ch in text)


_LABEL = re.compile(r"^[\u4e00-\u9fff]{2,8}$")
_SENTENCE_END = "？?。.！!）)"


def ends_sentence(line: str) -> bool:
    """The line ends a sentence: a full stop, question mark or closing bracket at its end."""
    return line.rstrip()[-1:] in tuple(_SENTENCE_END)


# An English line broken after a word that never ends a sentence or a title: the next line
# goes on with it ("Translate into" ⏎ "Chinese: Practice makes perfect.").
_OPEN_WORD_AT_END = re.compile(r"\b(?i:into|the|an?|of|to|with|and|or|for|in|on|at|by|from|than|that|which|its|their|is|are|was|were)\s*$")


def ends_mid_sentence(line: str) -> bool:
    """The line breaks an English sentence after a word that cannot end it ("…translate into")."""
    return _OPEN_WORD_AT_END.search(line) is not None


def breaks_off(line: str) -> bool:
    """The line stops inside its sentence: at a comma, colon or semicolon (「…并联，」 "Solve
    the inequality:") or after a word that cannot end it; what follows is the rest of its problem."""
    return line.rstrip()[-1:] in tuple("，,、：:；;") or ends_mid_sentence(line) and " " in line.strip()  # not a lone "A"


# An instruction and its formula, with nothing after the formula's last term: 「计算：3/4 + 1/6」
# "Solve: 2x + 3 = 11", 「解方程：x² - 5x + 4 = 0」, a system's equations after commas too
# (「解方程组：x + y = 10，x - y = 2」).
_INSTRUCTION_AND_FORMULA = re.compile(r"^[^:：]{1,12}[:：](?=[^:：，,。]*[=+\-×÷*/<>≤≥])[^:：，,。]*"
                                      r"(?:[，,](?=[^:：，,。]*[=<>≤≥])[^:：，,。]*)*[0-9A-Za-z²³)）°]$")


def ends_formula(line: str) -> bool:
    """The line is an instruction with its formula, finished: a problem printed without a
    full stop."""
    return _INSTRUCTION_AND_FORMULA.match(line.strip()) is not None


def turns_to_chinese_question(above: str, line: str) -> bool:
    """``line`` is a whole Chinese question (from its first character to its 「？」, perhaps
    with a score note after it) under English words (four or more, no Chinese): a problem of its own ("What is the sum of the
    interio…" ⏎ 「一件商品原价 200 元，…现价是多少元？」), not the English problem's rest."""
    line = without_score_at_end(strip_number(line)).strip()
    if (cut := cut_score_note(line, "")) is not None:
        line = line[:cut].rstrip()
    return len(above.split()) >= 4 and _HAN.search(above) is None and _HAN.match(line) is not None \
        and line.endswith("？") and reads_as_question(line)


_HAN = re.compile(r"[\u4e00-\u9fff]")


def starts_sentence(text: str) -> bool:
    """The text starts as a sentence does: a capital letter or a Chinese character."""
    text = text.lstrip()
    return text[:1].isupper() or _HAN.match(text) is not None


def is_chinese_character(text: str) -> bool:
    """The text is one Chinese character, spaces aside."""
    return len(text := text.strip()) == 1 and _HAN.match(text) is not None


def ends_question(line: str) -> bool:
    """The line ends with a question mark."""
    return line.rstrip()[-1:] in ("?", "？")


# A line of answer options: "A. 4 N", 「A、西安」, "(A) was", "D) 45"; on a screen, each
# option after its radio button, read as "O" ("OA.106", "O D.17").
_RADIO = r"(?:[O○◯〇]\s?(?=[A-D]\s*[.．、)）]))?"
_OPTIONS = re.compile(rf"^\s*{_RADIO}(?:[A-DＡ-Ｄ]\s*[.．、)）:]|[（(]\s*[A-DÅ]\s*[)）])")  # "(Å)": an "(A)" misread


def is_options(line: str) -> bool:
    """The line holds answer options (a multiple-choice problem ends with them)."""
    return _OPTIONS.match(line) is not None


# A line of answer options or of given data: "A. 4 N", 「A、西安」, "(A) was", 「（相对原子质量：…）」.
_OPTIONS_OR_DATA = re.compile(rf"^\s*{_RADIO}(?:[A-DＡ-Ｄ]\s*[.．、)）:]|[（(]\s*[A-D]\s*[)）]|[（(\[【])")


def is_options_or_data(line: str) -> bool:
    """The line holds answer options or given data in brackets: part of the problem above."""
    return _OPTIONS_OR_DATA.match(line) is not None


# A score note cut off by the frame's right side: 「…的阻值。(3」 「钠原子　(2分」 "…cell? [6",
# "…perfect. (8 p" (its word cut anywhere).
_CUT_NOTE = re.compile(r"[（(\[【]\s*(?:本(?:小)?题\s*)?\d{1,2}\s*(?:分|(?i:m(?:a(?:r(?:ks?)?)?)?|p(?:o(?:i(?:n(?:ts?)?)?)?|ts?)?))?\s*$")


_NOTE_WORD = re.compile(r"本(?:小)?题|(?:分|marks?|points?|pts?)\s*$", re.IGNORECASE)  # a cut note's whole word


def cut_score_note(line: str, piece: str) -> int | None:
    """Where a score note cut off at the line's end starts (the line's last box is
    ``piece``): after a finished sentence, in a box of its own (a marks column), or with
    its 分 or "marks" read; None when the line does not end so."""
    note = _CUT_NOTE.search(line)
    if note is None:
        return None
    worded = _NOTE_WORD.search(note.group()) is not None
    if worded or ends_sentence(line[:note.start()]) or piece.strip() == note.group().strip():
        return note.start()
    return None


def is_score_only(line: str) -> bool:
    """The line is a score note alone (「[10分]」 wrapped onto a line of its own)."""
    score = SCORE.match(line)
    return score is not None and not line[score.end():].strip()


def ends_with_score(line: str) -> bool:
    """The line ends with a score note (「[10分]」, "(5 points)"): its problem ends there."""
    return _score_at_end(line) is not None


# Marks as a bare number in square brackets after an instruction's formula: 「解方程：x² - 5x + 6 = 0 [5]」.
_MARKS_AFTER_FORMULA = re.compile(r"(?<=[0-9A-Za-z²³)）°])\s*[\[【［]\s*\d{1,2}\s*[\]】］]\s*$")


def _score_at_end(text: str) -> re.Match | None:
    """The score note at the text's end (:data:`SCORE_AT_END`), or marks in square brackets
    after a finished instruction with its formula."""
    if (score := SCORE_AT_END.search(text)) is not None:
        return score
    marks = _MARKS_AFTER_FORMULA.search(text)
    return marks if marks is not None and ends_formula(text[:marks.start()]) else None


def finishes(line: str) -> bool:
    """The line, without its number, ends a sentence or is an instruction with its formula."""
    line = strip_number(line)
    return ends_sentence(line) or ends_formula(line)


# A word a Chinese sentence goes on after (a copula, a particle, a preposition): 「一个圆的半径是」
# is a line broken mid-sentence, not a label.
_GOES_ON_AFTER = tuple("是的为在和与对把被将从向及或而")


def is_section_label(line: str) -> bool:
    """A workbook's section label alone (「综合运用」: a few Chinese characters, no
    punctuation, no figures) that asks nothing and does not break off mid-sentence."""
    line = line.strip()
    return bool(_LABEL.match(line)) and not reads_as_question(line) and not line.endswith(_GOES_ON_AFTER)


def is_label_after(previous: str, line: str) -> bool:
    """A workbook's section label (「能力提升」, 「拓展延伸」: a few Chinese characters, no
    punctuation, no figures) printed after a problem that has ended its last sentence:
    it heads what follows, and is no part of that problem. A line that asks (「它是哪一学派的」
    wrapped in a narrow column) is the problem's next sentence, not a label."""
    return is_section_label(line) and ends_sentence(previous)


# A figure's caption ("Figure for Q10", "Table 2", 「图1」, 「第3题图」, 「(第6题图)」).
_CAPTION = re.compile(r"^\s*[（(]?\s*(?:(?i:fig(?:ure)?\.?|table|graph|diagram)(?![A-Za-z])[\w\s.]{0,12}"
                      r"|(?:第\s*\d{1,3}\s*题)?\s*[图表]\s*[\d一二三四五六七八九十]{0,3})\s*[)）]?\s*$")
# A problem that speaks of a figure or table printed with it (「根据下表…」, "as shown").
_SPEAKS_OF_FIGURE = re.compile(r"[如下上左右]图|图[中示]|[下上左右]表|表[中格]"
                               r"|(?i:\b(?:figures?|fig\.|tables?|graphs?|diagrams?|charts?|shown|below)\b)")


# ...and a Chinese figure's caption read onto the end of the problem's last line: 「…N/kg) (第14题图)」.
_CAPTION_AT_END = re.compile(r"\s*[（(]\s*第\s*\d{1,3}\s*题\s*[图表]\s*[\d一二三四五六七八九十]{0,3}\s*[)）]\s*$")


def without_caption_at_end(text: str) -> str:
    return _CAPTION_AT_END.sub("", text)


def is_caption(line: str) -> bool:
    """The line is a figure's or table's caption."""
    return _CAPTION.match(line) is not None


def speaks_of_figure(text: str) -> bool:
    """The problem refers to a figure or table printed with it."""
    return _SPEAKS_OF_FIGURE.search(text) is not None


# A table's row of cells read as one piece ("24 20 20 15"), and a quantity over its unit
# heading a table's row or a figure's axis ("v/(m/s)", "t/s").
_CELLS = re.compile(r"\s*-?\d+(?:\.\d+)?(?:\s+-?\d+(?:\.\d+)?){1,7}\s*")
_QUANTITY_OVER_UNIT = re.compile(r"\s*[A-Za-zα-ωΔ]{1,2}\s*/\s*(?:\(\s*[A-Za-z°℃%]{1,3}\s*/\s*[A-Za-z²]{1,3}\s*\)"
                                 r"|[A-Za-z°℃%]{1,3})\s*")


def is_label(piece: str) -> bool:
    """A piece of text set apart on its row that can be a figure's label or a table's cell
    ("x", "-1", "55", 「时间/min」, a row of cells "24 20 20 15", "v/(m/s)"): short, no
    equation, no sentence, no sub-question number."""
    if _CELLS.fullmatch(piece) or _QUANTITY_OVER_UNIT.fullmatch(piece):
        return True
    text = piece.replace(" ", "")
    return 0 < len(text) <= 6 and not any(ch in "=＝。？?，,：:" for ch in text) and not SUB_LEVEL.match(text)


def is_scribble(text: str) -> bool:
    """A pen or highlighter stroke read as letters: "mmmmm", "mnm mm mAn", "WWNN" (4 or more
    Latin letters, four in five of them the strokes m, n, w, u or v; no word is spelt so)."""
    letters = [ch for ch in text if ch.isascii() and ch.isalpha()]
    if len(letters) < 4 or len(letters) < 0.8 * len(text.replace(" ", "")):
        return False
    return sum(ch in "mnwuvMNWUV" for ch in letters) >= 0.8 * len(letters)


# Glyphs each standing alone, spaced as the squares of an answer grid hold them ("6 0 k m / h",
# "2 0 c m") or a table's cells ("x 0 1 2 3"): two letters or digits side by side, and no
# sign of a formula or a question.
_SPACED_GLYPHS = re.compile(r"(?:\S\s+){3,}\S")
_GLYPHS_SIDE_BY_SIDE = re.compile(r"(?:^|\s)[A-Za-z0-9]\s+[A-Za-z0-9](?=\s|$)")


def is_cell_writing(text: str) -> bool:
    """A row of lone glyphs in a grid's or a table's cells (:data:`_SPACED_GLYPHS`): a
    student's answer written into the squares under a problem, or a table of values."""
    text = text.strip()
    return _SPACED_GLYPHS.fullmatch(text) is not None and _GLYPHS_SIDE_BY_SIDE.search(text) is not None \
        and not any(sign in text for sign in "=+×÷<>?？")


_SIGNED_SCORE = re.compile(r"^\s*[+\-－−]\d{1,2}\s*$")


def is_signed_score(text: str) -> bool:
    """A score with its sign, as a teacher writes it ("+5", "-2")."""
    return _SIGNED_SCORE.match(text) is not None


def is_stray(text: str) -> bool:
    """Short marks or figures that are not a problem's words when they stand apart after
    a line: a hand-written score ("12", "-2", "+3"), a cross, a circled number, another
    column's bare problem number ("13."), a score with its unit (「8分」)."""
    text = text.strip()
    return (0 < len(text) <= 3 and all(ch.isdigit() or ch in MARK_CHARS or ch in "-+－" for ch in text)
            or _SCORE_WRITTEN.fullmatch(text) is not None)


_SCORE_WRITTEN = re.compile(r"[+\-－]?\d{1,2}\s*分")


def is_chosen_in_bracket(text: str) -> bool:
    """An option letter alone in the answer bracket, on a row of its own: the student's
    choice ("(B", 「（C）」)."""
    return re.match(rf"^\s*{_CHOSEN_BRACKET}\s*$", text) is not None


def is_lone_letter(text: str) -> bool:
    """One Latin letter alone: an answer chosen by hand ("B") or a figure's axis ("y")."""
    text = text.strip()
    return len(text) == 1 and text.isascii() and text.isalpha()


# A word or two a student or teacher wrote right before a problem's label, taken into its
# box: 「不会Example 2」, 「易错 Exercise 4.1」, 「不会Q4」, 「本会 8 -(1points)」, "ask! Question 3",
# "checkNo.1", "abk! 1:", "ask!(5)", "hmm (2) — 2 marks", a Chinese note before the bracketed number of an English
# problem: 「易错(2) Fill in …」, or before a dotted number (「再想想14.计算…」; not a word that a
# quantity follows: 「周长为12.」).
_LEADING_NOTE = re.compile(r"^\s*(?:(?:[\u4e00-\u9fff]{1,4}\s*|[a-z]{2,6}|[A-Za-z]{2,5}[!?]+\s*|\+\s*)"
                           r"(?=(?:Example|Exercise|Question|Problem|Item|Task|Q|No\.?|\#)\s*\#?\s*\d"
                           r"|\d{1,3}\s*[-–—]\s*[（(]\s*\d{1,3}\s*(?:分|points?|marks?))"
                           r"|[\u4e00-\u9fff]{1,4}\s*(?=[（(]\s*\d{1,2}\s*[)）]\s*[A-Z][a-z]*\s+[a-z]+\b)"
                           r"|[\u4e00-\u9fff]{0,3}[^\W\d_为是约共第占了到等于每有和与比乘除加减以从至过后前长宽高重\u0000-\u2fff]\s*"
                           r"(?=\d{1,3}\s*[.．、)）](?!\d)\s*[\u4e00-\u9fff《“「A-Z])"
                           r"|[A-Za-z]{2,5}[!?]+\s*(?=\d{1,3}\s*[:：](?!\s*\d)|[（(]\s*\d{1,2}\s*[)）])"
                           r"|[a-z]{2,6}\s+(?=[（(]\s*\d{1,2}\s*[)）]\s*[-–—]\s*\d{1,3}\s*(?:marks?|points?|分)))")


# A sum a student wrote in the margin beside a Chinese line, which the detector took into the
# line's box: 「…拉力做 5+13=」 (not after a word that leads into a sum: 「计算 25×4=」).
_SUM_AT_END = re.compile(r"(?<=[\u4e00-\u9fff，,])(?<![算求是为得等于])\s+[\d.]+(?:\s*[+\-×÷xX*/]\s*[\d.]+)+\s*(?:[=＝]\s*[\d.]*)?\s*$")


def without_sum_at_end(line: str) -> str:
    """The line without a sum written after its Chinese words (:data:`_SUM_AT_END`)."""
    return _SUM_AT_END.sub("", line)


# A sum with nothing else, or what is left of one ("=0").
_OPERAND = r"(?:[\d.]+|[(（][\d.\s+\-×÷*/]+[)）])"
_SUM_ALONE = re.compile(rf"\s*(?:{_OPERAND}(?:\s*[+\-×÷xX*/]\s*{_OPERAND})+\s*(?:[=＝]\s*[\d.]*)?|[=＝]\s*[\d.]+)\s*")
# Words that lead into a sum: it is the problem's own (「计算 25×4=」, "Simplify: 3/9").
_INTO_SUM = re.compile(r"(?:[:：=＝+\-×÷(（]|计算|[求是为得]|等于)\s*$")


def is_margin_sum(before: str, piece: str) -> bool:
    """``piece``, a box of its own after ``before`` on a row, is a sum a student wrote in the
    margin (「钠原子核外」 「6x8=48」, "interior angles of a" "=0"), not the problem's own."""
    return _SUM_ALONE.fullmatch(piece) is not None and re.search(r"\w\s*$", before) is not None \
        and _INTO_SUM.search(before) is None


def strip_ticks(line: str) -> str:
    """The line without a tick or cross the detector took into its box, at either end, or
    a note written right before its label."""
    return _LEADING_NOTE.sub("", _LEADING_TICK.sub("", _TRAILING_TICK.sub("", line)))


# A score note after the question's end, with something after it on the line.
# A score the teacher circled right after the problem's number (「9．⑧ 解方程…」), unless the
# number is circled itself (⑯ read as 「⑩⑥」).
_CIRCLED_AFTER_NUMBER = re.compile(r"^\s*[①-⑳](?=\s*[\u4e00-\u9fffA-Z《“「])")
_CIRCLED_ONLY = re.compile(r"^\s*[\u2460-\u2473]")
_SCORE_AFTER_END = re.compile(rf"(?<=[?？。!！])\s*{_SCORE_NOTE}", re.IGNORECASE)
# Marks as a bare number in square brackets right after the problem's number ("2. [4] …").
_MARKS_AFTER_NUMBER = re.compile(r"^\s*(?:[\[［]\s*\d{1,2}\s*[\]］](?=\s|[\u4e00-\u9fffA-Za-z])"
                                 r"|[-–—]?\s*\d{1,2}\s*(?i:marks?|points?|pts?)(?![A-Za-z]))")  # "Q3 – 15 points"


# A closing bracket before the problem's words: what is left of a number's bracket, or of
# the line above (a problem never starts by closing a bracket), or of a number under a
# finger before its score note ("t) (5 points)" for "4) (5 points)"); nor by asking: a question
# mark before the number is the student's, in the margin (「?20.秦朝…」).
_LEADING_CLOSER = re.compile(rf"^\s*(?:[\]】」）)〕］?？]+\s*(?=\S)|[A-Za-z][)）]\s*(?=(?i:{_SCORE_NOTE})))")


# A teacher's score written in the margin before the problem's number (「12 ⑮计算…」, its ring
# lost: "12 15计算…"): a number alone, then a number glued to the words or with its mark.
_SCORE_BEFORE_NUMBER = re.compile(r"^\s*\d{1,3}\s+(?=\d{1,2}(?:[.．、)）]\s*[^\d\s]|[\u4e00-\u9fff]))")


# What a page's speck or a score box's rules leave before a problem's number (", 2. What…",
# 「____ 6. Solve…」), the answer bracket a page prints there ("() 8. Which…") or a teacher's
# date stamp or word beside it (「24-03-17」 read on into 「14、计算…」, 「再想想⑦世界上…」); and a first
# part's "(1)" read as a letter ("(i) 计算…", "(t) 地球…").
_BEFORE_NUMBER = re.compile(r"^\s*(?:[,，.．·'`‘’、]|[_＿]{2,}|[（(]\s*[)）]|\d{2,4}[-/.]\d{1,2}[-/.]\d{2}|(?:再想想|订正|重做|认真审题)[!！]?)\s*")
_ONE_AS_LETTER = re.compile(r"^\s*[(（]\s*[itlI]\s*[)）]\s*(?=\S)")


def strip_number(text: str) -> str:
    """The problem without its leading number (and what a speck, a score box or an answer
    bracket left before it) and its score note (before or after it)."""
    speck = _BEFORE_NUMBER.match(text)
    if speck and NUMBER.match(text[speck.end():]):
        text = text[speck.end():]
    text = _LEADING_CLOSER.sub("", _SCORE_BEFORE_NUMBER.sub("", _ONE_AS_LETTER.sub("", text)))
    prefix = number_prefix(text)
    rest = _LEADING_CLOSER.sub("", _ANSWER_AFTER.sub("", text[len(prefix):]))  # 「[11)] Find…」 「22.」一个…」
    while (score := SCORE.match(rest)):
        rest = rest[score.end():]
    if prefix and (marks := _MARKS_AFTER_NUMBER.match(rest)):
        rest = rest[marks.end():]
    if prefix and not _CIRCLED_ONLY.match(prefix) and (circled := _CIRCLED_AFTER_NUMBER.match(rest)):
        rest = rest[circled.end():]
    after_end = _SCORE_AFTER_END.search(rest)
    if after_end and not reads_as_question(rest[after_end.end():]):
        rest = rest[:after_end.start()]  # what follows is written or drawn after the problem
    return without_score_at_end(rest).lstrip(" :：.．、，,")  # 「Question 1，…」: the dot read as a comma


# A teacher's remark written after the problem's end, perhaps after the student's working
# or an empty bracket: 「…是多少？解过程呢？」 「…的值。审题！」 「…最简分数。（）单位」 "…(3, 6). CHECKED"
# (not a part that asks, 「…多少？检查你的答案。」, nor an option after its letter's dot: "B. good").
_REMARK_AFTER_END = re.compile(
    r"(?:(?<=[?？。!！])|(?<=[^A-Z]\.))[^\u4e00-\u9fffA-Za-z]{0,12}?\s*(?:解\s*)?"
    r"(?:(?:过程|步骤|单位|审题|检查|订正|仔细|认真|注意|书写|规范|重做)(?:呢|吗|了)?"
    r"|(?i:(?:why|check(?:ed)?|good|ok|redo|see\s+me|well\s+done)\b))"
    r"\s*[!！?？.。]*\s*$")


def without_remark_at_end(text: str) -> str:
    """The text without a teacher's remark after its end (:data:`_REMARK_AFTER_END`)."""
    remark = _REMARK_AFTER_END.search(text)
    return text[:remark.start()].rstrip() if remark else text


# A score note set at the end of a full row, inside the sentence that goes on below it:
# 「…现价（3分）是多少元？」.
_SCORE_INSIDE = re.compile(rf"(?<=[\u4e00-\u9fff])\s*{_SCORE_NOTE}\s*(?=[\u4e00-\u9fff])", re.IGNORECASE)


def goes_on_below(text: str, below: str) -> bool:
    """A Chinese sentence broken off with no mark (「…打八折出售，现价」) whose rest, with no
    label, finishes on the line below (「是多少元？」)."""
    text, below = text.rstrip(), below.strip()
    return bool(text and below) and "\u4e00" <= text[-1] <= "\u9fff" and "\u4e00" <= below[0] <= "\u9fff" \
        and label_number(below) is None and finishes(below)


def without_score_at_end(text: str) -> str:
    """The text without the score notes at its end (「…多少？（5分）」, "…(8分) 1")."""
    while (score := _score_at_end(text)):
        text = text[:score.start()]
    return text


def blanks(text: str) -> str:
    """A run of underscores (or a lone one between words, or one stuck to a word's edge
    where a short line was read as "_": "here _ten") becomes ``____``; a lowered index
    read with a letter o for its zero (a1o, S1o) gets its zero back, and a Chinese
    sentence's full stop read as o after it (求a10o) its 。."""
    text = _UNDERSCORES.sub(BLANK, text)
    text = _UNDERSCORE_BEFORE_WORD.sub(BLANK + " ", text)
    if _STOP_READ_AS_O.search(text) and re.search(r"[\u4e00-\u9fff]", text):
        text = text[:-1] + "。"  # 「…求 a₁₀。」 read 「求a10o」 or 「求a1oo」
    return _INDEX_O.sub("0", _UNDERSCORE_AFTER_WORD.sub(" " + BLANK, text))


# A Chinese sentence's full stop after an index, read as the letter o.
_STOP_READ_AS_O = re.compile(r"[A-Za-z][\d₀-₉][\d₀-₉o]o$")


# One underscore with a space on one side and a word on the other.
_UNDERSCORE_BEFORE_WORD = re.compile(r"(?:(?<=[\s:：,，])|^)[_＿](?=[A-Za-z0-9\u4e00-\u9fff])")
_UNDERSCORE_AFTER_WORD = re.compile(r"(?<=[A-Za-z0-9\u4e00-\u9fff])[_＿](?=\s|$)")


_INDEX_O = re.compile(r"(?<=[A-Za-z][\d₀-₉])o(?![A-Za-z])")


# A list of relative atomic masses (「H-1，C-12，O-16」, "(H = 1, O = 16)"): items of an element's symbol (or
# a 0 where an O was meant) and its mass; the gaps are bounded, so no run of spaces is
# tried from every start.
_LIST_GAP = r"\s{0,2}[,，、;；]?\s{0,2}"
_MASS_ITEM = r"(?:[A-Z][a-z]?|0)\s?[-:：=＝]\s?\d{1,3}(?:\.\d)?(?!\d)"
_MASS_LIST = re.compile(rf"(?<![\w.]){_MASS_ITEM}(?:{_LIST_GAP}{_MASS_ITEM})+")
_ZERO_ITEM = re.compile(r"(?:(?<=[\s,，、;；(（])|^)0(?=\s?[-:：=＝])")


def element_symbols(text: str) -> str:
    """In a list of relative atomic masses with at least one element's symbol, an oxygen
    read as the digit 0 gets its letter back: no element's symbol is a digit."""
    def fix(found: re.Match) -> str:
        items = found.group()
        return _ZERO_ITEM.sub("O", items) if re.search("[A-Z]", items) else items

    return _MASS_LIST.sub(fix, text)


_CLOSING_AFTER_END = re.compile(r"(?<=[?？。.!！])\s*([)）」』】\]])$")
_OPENING = {")": "(（", "）": "(（", "」": "「", "』": "『", "】": "【", "]": "[【"}


# An empty answer bracket's halves, as read (the recogniser mixes their widths: 「（)」).
_EMPTY_CLOSING = {")": "(（", "）": "(（", "】": "【[［", "]": "[［【", "］": "［[【", "〕": "〔"}


def is_answer_bracket(text: str) -> bool:
    """The text is an empty answer bracket alone (「（　）」 「【】」 "( )", or its opening half)."""
    return bool(text.strip()) and not without_answer_bracket(text).strip()


def without_answer_bracket(text: str) -> str:
    """The text without the answer bracket at its end (「…是多少？（　　）」 「…谁？【　】」: empty, or its
    opening half alone where the closing one is faint), or a closing one after its last
    sentence that closes nothing. Stripped from the end: a pattern would try every start
    of a long run of spaces (SECURITY.md F11)."""
    body = text.rstrip()
    inside = body[:-1].rstrip()
    if body[-1:] in _EMPTY_CLOSING and inside and inside[-1] in _EMPTY_CLOSING[body[-1]]:
        text = inside[:-1].rstrip()  # 「（　）」 「【　】」 "[ ]"
    elif body[-1:] in ("(", "（"):
        text = body[:-1].rstrip()
    closing = _CLOSING_AFTER_END.search(text)
    if closing:
        mark = closing.group(1)
        opened = sum(text.count(c) for c in _OPENING[mark])
        if opened < sum(text.count(c) for c in _OPENING if _OPENING[c] == _OPENING[mark]):
            text = text[:closing.start()]
    return text


def is_heading(text: str) -> bool:
    """A heading, title or name line: it belongs to no column, and may run across a gutter
    anywhere on the page (「四、选择题（本大题共5小题）」 over two columns of a table)."""
    return is_header(text) and not is_number_alone(text) and not is_annotation(text)


@functools.lru_cache(maxsize=4096)
def is_annotation(text: str) -> bool:
    """A score note, an empty answer bracket, a mark or a short score alone (「(6分)」, 「（ ）」,
    "√", "10"); not a box whose text is not known (a page planned from its boxes alone)."""
    if not text.strip():
        return False
    text = strip_ticks(text).strip()
    return not text or is_stray(text) or is_score_only(text) or is_answer_bracket(text)


# A problem's label inside a line, not a bare number: where the detector ran one box over two
# columns' lines across their gutter (「…长是8第2题两个阻值…」, 「…爆发于Question 8. 计算…」).
_LABEL_INSIDE = re.compile(rf"(?:{_DOTTED}|{_NTH}|{_EXAMPLE}|(?i:{_LATIN}){_AFTER_LATIN})(?=\s*[\u4e00-\u9fff《“「A-Za-z(（])")


def label_near(text: str, share: float, reach: float = 1.5) -> int | None:
    """Where a problem's label starts in ``text`` within ``reach`` ems of the share ``share``
    of its printed width (a Chinese character one em, others about half), else None; not
    at a word's or number's middle."""
    starts = list(itertools.accumulate((1.0 if ord(c) >= 0x2E80 else 0.55 for c in text), initial=0.0))
    at = share * starts[-1]
    found = {i for i in range(2, len(text)) if abs(starts[i] - at) <= reach
             and not (text[i - 1].isascii() and text[i - 1].isalnum() and text[i].isascii()) and _LABEL_INSIDE.match(text, i)}
    return min((abs(starts[i] - at), i) for i in found if i - 1 not in found)[1] if found else None  # 「第2题」, not 「2题」 in it


_STAR = re.compile(r"(?<!\s)\s*[☆★]\s*")  # from a run of spaces' first only: no second look at each space


def without_stars(text: str) -> str:
    """The text without a star a student or teacher drew beside or between its words, which
    the detector took into a line's box (「…交点坐标是什 ☆么？」): no problem's text holds one."""
    return _STAR.sub(lambda m: " " if m.start() and m.end() < len(text) and text[m.start() - 1].isascii()
                     and text[m.end()].isascii() else "", text).strip()


# A problem says something: two letters or characters, or a sum to work out. Figures
# alone ("136 (8720)", a figure's labels or a scale read as a numbered line, "↑y 0") are none.
_SAYS = re.compile(r"[A-Za-z\u3400-\u9fff].*[A-Za-z\u3400-\u9fff]|[=+×÷?？_＿]")


def says_something(text: str, least: int) -> bool:
    """At least ``least`` characters (not a page number or a stray letter) that are not figures alone."""
    return len(text.replace(" ", "")) >= least and _SAYS.search(text) is not None


# A figure's text read as one piece: an axis's figures ("2 3 4", "-2 -1 0 1") or a
# drawing's letters (a triangle's vertex "A", a circuit's "R S").
_DRAWING = re.compile(r"^\s*(?:-?\d{1,3}(?:\s+-?\d{1,3}){2,}|[A-Z](?:\s?[A-Z]){0,2})\s*$")
# An axis's arrow alone on its row, the last of the figure below a problem ("→"), and a
# short piece that ends an axis ("↑y", "4y", "x→").
_ARROWS = re.compile(r"^\s*[↑→←↓]+\s*$")
_ARROW = re.compile(r"[↑→←↓]")
_AXIS_END = re.compile(r"^\s*(?:[↑→]\s*[A-Za-z]|[A-Za-z]?\s*[↑→]|\d{1,2}\s*[A-Za-z])\s*$")


def reads_as_drawing(text: str) -> bool:
    return _DRAWING.match(text) is not None


def is_figure_row(text: str, pieces: tuple[str, ...]) -> bool:
    """A row (its text, and its pieces set apart) of a figure's labels or a table's cells (two
    or more short pieces, not answer options), an axis's figures or a drawing's letters read
    as one piece ("2 3 4", "-2 -1 0 1", "R S"), or a caption."""
    if is_caption(text) or (len(pieces) <= 1 and reads_as_drawing(text)):
        return True
    return len(pieces) >= 2 and all(map(is_label, pieces)) and not is_options(text)


def is_arrow(text: str) -> bool:
    return _ARROWS.match(text) is not None


def has_arrow(text: str) -> bool:
    return _ARROW.search(text) is not None


def ends_axis(text: str) -> bool:
    return _AXIS_END.match(text) is not None


def is_cjk(ch: str) -> bool:
    return "\u3400" <= ch <= "\u9fff"


def is_note_or_mark(text: str) -> bool:
    """A score note or a mark (after a line: a line before it is the answer's space)."""
    return SCORE.match(text) is not None or is_mark(text.strip())


def marks_column(pieces: tuple[str, ...]) -> bool:
    """A line's last box is a score note alone after words that go on (「【4】写出实验室用过氧
    化氢溶　　【3分】」): the note stands in a marks column beside the problem's first line,
    and the problem goes on below it."""
    return len(pieces) > 1 and is_score_only(pieces[-1]) and not finishes(" ".join(pieces[:-1]))


# A sentence that speaks of the one before it: the same problem's next question.
_REFERS_BACK = re.compile(r"^\s*(?:它|他|她|其|该|此|这|那|(?i:it|its|this|that|they|their|these|those|then)\b)")


def refers_back(line: str) -> bool:
    """The line starts with a word that points back (「它是哪一学派的经典？」, "Its mass is…")."""
    return _REFERS_BACK.match(line) is not None


#: A whole question of at most this many characters (spaces left out) names nothing of its
#: own: it asks about the sentence above it (「作者是谁？」 「建立者是谁？」, "Why?").
POINTING_QUESTION = 7


def names_nothing(line: str) -> bool:
    """The line is a question too short to name what it asks about (:data:`POINTING_QUESTION`)."""
    text = line.strip().replace(" ", "")
    return 1 < len(text) <= POINTING_QUESTION and text[-1] in "?？" and not re.search(r"[?？。.!！]", text[:-1])


# A line that goes on with the problem above it: it says how to answer it or joins a task to it.
_GOES_ON = re.compile(rf"^\s*(?:请\s*|(?i:please)\s+)?(?:{_HOW_TO_ANSWER})|^\s*(?:并|且|再|然后|同时|(?i:and|also|hence)\b)")


def goes_on_with_problem(line: str) -> bool:
    """The line starts by saying how to answer the problem above it (「请写出计算过程并说明理由。」,
    "Show your working.") or joins a task to it (「并求它的面积。」, "and find its area.")."""
    return _GOES_ON.match(line) is not None


def ends_paragraph(line: str) -> bool:
    """The line ends with a question mark or a full stop (not a semicolon or a bracket: a part goes on)."""
    return line.rstrip()[-1:] in ("?", "？", "。", ".", "!", "！")


# A note in brackets after a sentence's end: 「…质量。（相对原子质量：C-12，O-16）」,
# "…多少？(g 取 10 N/kg)".
_NOTE_AFTER_END = re.compile(r"[。？?！!]\s*[（(][^（()）]{2,60}[)）]\s*$")


def ends_with_note(text: str) -> bool:
    """The text ends with a note in brackets right after a finished sentence, or with the
    question's options in brackets ("…by bike yesterday. (go / goes / went)"): the
    paragraph ends there as it would with the sentence."""
    return _NOTE_AFTER_END.search(text) is not None or _OPTIONS_BRACKET.search(text.rstrip()) is not None


# A label in brackets closed on both sides at a line's start: 「（7）」 "(7)" 【7】; not "7)" or
# 「7】」, what a frame's side may leave of "(17)".
_BRACKETED_LABEL_START = re.compile(r"^\s*[（(【\[〔［]\s*\d{1,3}\s*[)）】\]〕］]")


def starts_bracketed_label(line: str) -> bool:
    """The line starts with a whole bracketed label: a frame's side there cut nothing of it."""
    return _BRACKETED_LABEL_START.match(line) is not None


def first_word(line: str) -> str:
    """The line's first word: a Latin word (up to a space or a character that is not
    Latin: 「100g氯化钠溶液…」 starts with "100g"), or one Chinese character."""
    line = line.strip()
    return "" if not line else _LATIN_RUN.match(line).group() if line[0].isascii() else line[0]


_LATIN_RUN = re.compile(r"[^\s\u0080-\U0010ffff]+")


def formula_goes_on(last: str, below: str) -> bool:
    """``below`` starts with "=" under an equation left without one (「解方程组：x + y = 10，x - y」
    ⏎ 「= 4」): the equation's right side, wrapped, not working."""
    clause = re.split(r"[，,；;：:]", last)[-1]
    return below.lstrip()[:1] in "=＝" and "=" not in clause and "＝" not in clause \
        and re.search(r"[A-Za-z0-9)）]\s*$", clause) is not None and re.search(r"[A-Za-z]", clause) is not None


def goes_on(above: str, lines: list[str]) -> bool:
    """Between problem n and n + 1, ``lines`` are the rest of n (whose text so far is
    ``above``) when they give data in brackets or options, or ask (「它的海拔是多少？」): not
    working, a hint, a figure's labels, nor a problem of its own (asking at length, without
    pointing back, after a stem that asks by itself)."""
    first, text = lines[0], " ".join(lines)
    if reads_as_working(first) or is_hint(first):
        return False
    chars = sum(len(line.replace(" ", "")) for line in lines)
    return is_options_or_data(first) or reads_as_question(text) and not (
        stem_asks(above) and not refers_back(text) and chars > SHORT_QUESTION)


#: A question this long (characters) after one that asks is a problem of its own (:func:`goes_on`).
SHORT_QUESTION = 12


def ringed_part(line: str, above: list[str]) -> int:
    """The number of a line starting with a ringed one (② for "(2)", :func:`ringed_number`)
    that comes after the bracketed part before it inside the problem above (its lines ``above``); else 0."""
    number = ringed_number(line)
    return number if number > 1 and any(bracketed_number(text) == number - 1 for text in above[1:]) else 0


def next_part(line: str, part: int, above: list[str]) -> int:
    """On a page numbered (13), (14)…: the line's number when it goes on with the sub-questions
    of the problem above (its "(1)" after a stem that asks by itself, or the number after its
    last part), else 0."""
    number = bracketed_number(line)
    if number is None or number != part + 1:
        return 0
    return number if part or stem_asks(" ".join(above)) else 0


def formula_part_alone(first: str, below: str) -> bool:
    """``first`` is a part that is a formula alone ("(2) x/2 + 8 = 7") and ``below`` asks or
    sets a task of its own (「计算：3/4 + 1/6」): no rest of the formula, no part, no label."""
    label = PART.match(first)
    if label is None or not is_formula_alone(first[label.end():]) or not any(ch in first[label.end():] for ch in "=+-−×÷/<>≤≥"):
        return False
    return not (formula_goes_on(first, below) or PART.match(below) or label_number(below) is not None) and reads_as_question(below)


#: At most this many problems in a row may have lost their numbers (:func:`numbers_lost`).
MOST_SKIPPED = 3


def numbers_lost(number: int | None, after: int | None, numbers: list[int | None]) -> int:
    """How many problems between ``number`` and the next number below it, ``after``, lost
    their numbers: none of those is among the page's ``numbers`` (at most ``MOST_SKIPPED``;
    0 if unknown)."""
    if number is None or after is None or not 0 < after - number - 1 <= MOST_SKIPPED:
        return 0
    return 0 if set(range(number + 1, after)) & set(numbers) else after - number - 1


def label_over_parts(line: str, below: list[str]) -> bool:
    """A label with no stem (「第一题（10分）」 alone on its line) or a section's heading
    (「三、解答题（共18分）」) right over a part "(1)" (the first of ``below``, if any):
    nothing is asked above the parts, so each is a problem of its own, as under a lead-in."""
    return bool(below) and bracketed_number(below[0]) == 1 and (
        is_number_alone(line) or _SECTION.match(line) is not None and is_header(line))


def is_bare_label(line: str, sub_questions_start_problems: bool) -> bool:
    """The line holds a problem number and nothing else ("(10)", "Q21."): a mark drawn round
    the number can make the detector read it apart from its line."""
    return starts_problem(line, sub_questions_start_problems) and is_number_alone(line)


# A cross the teacher drew before a problem without a number, read into its first line:
# 「×一块金属…」, "X Find the slope…" (not "X + 3", "x 的值").
_LEADING_CROSS = re.compile(r"^\s*(?:[×✗✘]\s*(?=[\u4e00-\u9fff《“「])|X\s+(?=[A-Z][a-z]))")


# Greek capitals the recogniser reads for the Latin ones they look like (「10 Ν 的合外力」 with
# a Greek Nu): a problem writes its units and letters in Latin; Greek ones that look like no
# Latin letter (Δ, Σ, Ω, Φ) stay.
_LATIN_LOOK_ALIKES = str.maketrans("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEZHIKMNOPTYX")


def searched_text(text: str) -> str:
    """A problem's text as it is searched: without how to answer it, its sub-questions that
    say only that, its number, score note, working after its end, stars or empty answer
    bracket; blanks written "____", element symbols set right (CO₂) and Latin capitals read
    as Greek ones put back (:data:`_LATIN_LOOK_ALIKES`)."""
    text = text.translate(_LATIN_LOOK_ALIKES)
    text = with_chinese_full_stop(without_how_to_answer(without_caption_at_end(with_option_slashes(_SCORE_INSIDE.sub("", text)))))
    # the answer bracket first: a score note before it ends the problem (「…S₁₀。(本题4分) （ ）」)
    text = element_symbols(blanks(_LEADING_CROSS.sub("", strip_number(without_answer_bracket(without_sub_questions(text))))))
    # a mark after the note (「…(8分) 1/」) leaves with the working: the note is at the end then
    text = without_answer_bracket(without_score_at_end(without_working(without_stars(text))))
    return without_answer_line(_CROSS_AFTER_SUM.sub("", _TRAILING_TICK.sub("", _ASKED_AGAIN.sub("", text))))


# A full stop right after a term's lowered digits at the problem's end (「…求a₁₀.」): the glyph
# step writes "." where the term's box holds no Chinese.
_FULL_STOP_AFTER_SUBSCRIPT = re.compile(r"(?<=[₀-₉])\.\s*$")


def with_chinese_full_stop(text: str) -> str:
    """A Chinese problem's text with its last full stop after a subscript written 「。」."""
    return _FULL_STOP_AFTER_SUBSCRIPT.sub("。", text) if any(map(is_cjk, text)) else text


def without_answer_line(text: str) -> str:
    """The text without a blank after an instruction's finished formula: the line to write
    the answer on (「解方程：x² - 5x + 6 = 0 ____」), not a gap in the problem (「3 × 8 = ____」)."""
    body = text.rstrip()  # stripped, not searched: a pattern would try every start of a long run (SECURITY.md F11)
    if not body.endswith("__"):
        return text
    head = body.rstrip("_").rstrip()
    return head if ends_formula(head) else text


# A question mark written after the problem's own, by a teacher or a student who asks again (「…哪一个？？」).
_ASKED_AGAIN = re.compile(r"(?<=[?？])\s*[?？]+\s*$")
# A cross the teacher drew after a sum, read as "X" at the problem's end ("计算：3/4 + 1/6 X");
# not "×", which a line breaks after ("1.0 ×" ⏎ "10³").
_CROSS_AFTER_SUM = re.compile(r"(?<=\d)\s+X\s*$")
