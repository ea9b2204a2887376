"""The English and the Chinese (zh-CN) edition of every page say the same thing.

Every Markdown page X.md has its counterpart X.zh-CN.md beside it, and each links the other in its
first lines. The two are compared heading by heading: the same headings at the same levels, and
under each one the same numbers, the same pictures (the Chinese edition shows the Chinese figures
of docs/plots/zh/), the same link targets (a page that has a
Chinese edition is linked in its Chinese edition), the same commands and program output, and as
many collapsed answers. A figure changed in one edition only fails here; so does a section only
one edition has. Prose, `text` blocks (the layout trees) and the comments in `sh` blocks are
translated; `sh` commands and untagged blocks (program output, the CSV header) are not.

The numbers of a section are compared as sets: a translation may say a figure once where the
English says it twice. Each Chinese lesson README explains its expected output in Chinese: under
every output block, a list whose items quote, in backticks, a piece of the lines they explain, and
every line that starts in the first column (with the indented lines under it) has such an item.

Run as a script to check some pages while translating: python3 tests/test_editions.py README.md
"""
import os
import re
import sys
import pathlib

import pytest

from conftest import tracked_files

ROOT = pathlib.Path(__file__).resolve().parent.parent
ZH = ".zh-CN.md"
HEAD_LINES = 5  # the counterpart link sits under the title

FENCE = re.compile(r"^```(\w*)\s*$")
HEADING = re.compile(r"^(#{1,6}) (.*)$")
# A number is a run of ASCII digits, with its decimals, that is not part of a name (H200, x16,
# sm_90): Chinese characters count as \w in Python, so the test for a name is ASCII only.
NUMBER = re.compile(r"(?<![A-Za-z0-9_.])[0-9]+(?:\.[0-9]+)*")
IMAGE = re.compile(r"!\[[^\]]*\]\(\s*([^)\s]+)\)")
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(\s*([^)\s]+)\)")
CODE_SPAN = re.compile(r"`([^`]+)`")
SH_COMMENT = re.compile(r"\s+# .*$")  # a comment after a command, as the READMEs write them


def english_pages():
    """Every tracked Markdown page (every one of the tree, without git) that is not itself a
    translation."""
    return sorted(p for p in tracked_files("*.md") if not p.endswith(ZH))


def counterpart(page):
    return page[:-len(".md")] + ZH


class Section:
    """One heading and what is under it, down to the next heading."""

    def __init__(self, level, title):
        self.level, self.title = level, title
        self.text = []          # every line, code included: where the numbers are read
        self.prose = []         # lines outside code blocks: links and pictures
        self.blocks = []        # (tag, lines, prose that follows up to the next block)

    def numbers(self):
        return set(NUMBER.findall("\n".join([self.title] + self.text)))

    def targets(self, pattern):
        return set(pattern.findall("\n".join(self.prose)))  # a link's text may break lines


def sections(markdown):
    """The page cut at its headings (outside code blocks); a preamble is section 0."""
    found = [Section(0, "")]
    tag, block = None, None
    for line in markdown.splitlines():
        fence = FENCE.match(line)
        if block is not None:
            if fence and not fence.group(1):
                found[-1].blocks.append((tag, block, []))
                block = None
            else:
                block.append(line)
                found[-1].text.append(line)
            continue
        if fence:
            tag, block = fence.group(1), []
            continue
        heading = HEADING.match(line)
        if heading:
            found.append(Section(len(heading.group(1)), heading.group(2)))
            continue
        found[-1].text.append(line)
        found[-1].prose.append(line)
        if found[-1].blocks:
            found[-1].blocks[-1][2].append(line)
    if not found[0].text and not found[0].blocks:
        found.pop(0)
    return found


def slug(title):
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


def english_link_in_chinese(target, page, pages):
    """A link in the English page, as the Chinese page must write it: to the Chinese edition of
    every page (or folder's README) that has one, the anchor left out (headings are
    translated; anchors are checked on their own)."""
    path = without_anchor(target)
    if not path or "://" in path:
        return path
    name = resolve(page, path)
    if name in pages:
        return path[:-len(".md")] + ZH
    if f"{name}/README.md" in pages:
        return path.rstrip("/") + "/README" + ZH
    return path


def resolve(page, path):
    """The repository path that a relative link in page names."""
    return os.path.normpath(os.path.join(os.path.dirname(page), path))


def without_anchor(target):
    """The page a link names; a link within the page names none (its anchor is checked apart)."""
    return target.split("#")[0]


def broken_anchors(page, text):
    """Links to a heading, in this page or another, that no heading of it has."""
    broken = []
    for target in {t for s in sections(text) for t in s.targets(LINK)}:
        if "#" not in target or "://" in target:
            continue
        path, anchor = target.split("#", 1)
        name = resolve(page, path) if path else page
        if not (ROOT / name).is_file():
            broken.append(target)
            continue
        if anchor not in {slug(s.title) for s in sections((ROOT / name).read_text())}:
            broken.append(target)
    return broken


def chinese_picture(target):
    """The Chinese edition shows the Chinese figure of the English one's, where docs/plots/zh/
    has it (`make plots LANG=zh`, redrawn small as docs/plots/ is)."""
    folder, _, name = target.rpartition("plots/")
    if not _ or "/" in name:
        return target
    return f"{folder}plots/zh/{name}"


def same_code(tag, english, chinese):
    if tag == "text":
        return True
    if tag in ("sh", "bash"):
        english = [SH_COMMENT.sub("", line) for line in english]
        chinese = [SH_COMMENT.sub("", line) for line in chinese]
    return english == chinese


def output_statements(lines):
    """An output block cut into its statements: each line that starts in the first column, with
    the indented lines under it (a table, a sentence that goes on)."""
    statement = []
    for line in lines:
        if line and not line[0].isspace() and statement:
            yield statement
            statement = []
        if line.strip():
            statement.append(line)
    if statement:
        yield statement


def unexplained_output(section):
    """Statements of an output block that no item under the block quotes a piece of."""
    missing = []
    for tag, block, after in section.blocks:
        if tag:
            continue
        quoted = [q for line in after for q in CODE_SPAN.findall(line) if len(q.strip()) > 1]
        for statement in output_statements(block):
            if not any(q in line for q in quoted for line in statement):
                missing.append(statement[0].strip())
    return missing


def differences(page, english_text, chinese_text, pages):
    """What the two editions of a page do not share, one sentence each; empty when they agree."""
    found = []
    chinese_page = counterpart(page)
    name, chinese_name = pathlib.PurePath(page).name, pathlib.PurePath(chinese_page).name
    if f"]({chinese_name})" not in "\n".join(english_text.splitlines()[:HEAD_LINES]):
        found.append(f"{page} does not link {chinese_name} in its first {HEAD_LINES} lines")
    if f"]({name})" not in "\n".join(chinese_text.splitlines()[:HEAD_LINES]):
        found.append(f"{chinese_page} does not link {name} in its first {HEAD_LINES} lines")

    english, chinese = sections(english_text), sections(chinese_text)
    if [s.level for s in english] != [s.level for s in chinese]:
        found.append(f"the headings differ: {page} has "
                     f"{[('#' * s.level, s.title) for s in english]}, {chinese_page} has "
                     f"{[('#' * s.level, s.title) for s in chinese]}")
        return found

    for edition, text in ((page, english_text), (chinese_page, chinese_text)):
        for target in broken_anchors(edition, text):
            found.append(f"{edition}: the link {target} names no heading")
    for en, zh in zip(english, chinese):
        where = f"{page} '{en.title or 'preamble'}' / '{zh.title or 'preamble'}'"
        only_en, only_zh = en.numbers() - zh.numbers(), zh.numbers() - en.numbers()
        if only_en or only_zh:
            found.append(f"{where}: numbers only in English {sorted(only_en)}, "
                         f"only in Chinese {sorted(only_zh)}")
        if {chinese_picture(t) for t in en.targets(IMAGE)} != zh.targets(IMAGE):
            found.append(f"{where}: pictures {sorted(en.targets(IMAGE))} against "
                         f"{sorted(zh.targets(IMAGE))}")
        en_links = {english_link_in_chinese(t, page, pages) for t in en.targets(LINK)}
        zh_links = {without_anchor(t) for t in zh.targets(LINK)}
        en_links -= {chinese_name, ""}
        zh_links -= {name, ""}
        if en_links != zh_links:
            found.append(f"{where}: links only in English {sorted(en_links - zh_links)}, "
                         f"only in Chinese {sorted(zh_links - en_links)}")
        if [b[0] for b in en.blocks] != [b[0] for b in zh.blocks]:
            found.append(f"{where}: code blocks {[b[0] for b in en.blocks]} against "
                         f"{[b[0] for b in zh.blocks]}")
        else:
            for (tag, en_block, _), (_, zh_block, _) in zip(en.blocks, zh.blocks):
                if not same_code(tag, en_block, zh_block):
                    found.append(f"{where}: a ```{tag} block differs from the English one "
                                 f"(only prose, `text` blocks and sh comments are translated)")
        en_answers = sum(line.count("<details>") for line in en.prose)
        zh_answers = sum(line.count("<details>") for line in zh.prose)
        if en_answers != zh_answers:
            found.append(f"{where}: {en_answers} collapsed blocks against {zh_answers}")
        if re.fullmatch(r"[0-9][0-9]_\w+/README\.md", page) and en.title == "Expected output":
            for paragraph in unexplained_output(zh):
                found.append(f"{chinese_page}: no item under the output quotes a piece of the "
                             f"lines starting '{paragraph}'")
    return found


PAGES = english_pages()


@pytest.mark.parametrize("page", PAGES)
def test_both_editions_agree(page):
    chinese = ROOT / counterpart(page)
    assert chinese.exists(), f"{page} has no Chinese edition {counterpart(page)}"
    problems = differences(page, (ROOT / page).read_text(), chinese.read_text(), set(PAGES))
    assert not problems, "\n".join(problems)


def test_a_figure_changed_in_one_edition_only_fails():
    """The comparison itself: one figure of the pipeline lesson changed in its Chinese edition."""
    page = "06_overlap_pipeline/README.md"
    english = (ROOT / page).read_text()
    chinese = (ROOT / counterpart(page)).read_text()
    figure = NUMBER.search(chinese, chinese.index("\n## ", chinese.index("\n## ") + 1))
    changed = chinese[:figure.start()] + "9" + chinese[figure.start():]
    assert any("numbers only in" in d for d in differences(page, english, changed, set(PAGES)))


def test_a_section_in_one_edition_only_fails():
    page = "01_sync_copy/README.md"
    english = (ROOT / page).read_text()
    chinese = (ROOT / counterpart(page)).read_text() + "\n## 多出来的一节\n\n内容。\n"
    assert any("headings differ" in d for d in differences(page, english, chinese, set(PAGES)))


if __name__ == "__main__":
    failed = False
    for page in sys.argv[1:] or PAGES:
        chinese = ROOT / counterpart(page)
        if not chinese.exists():
            print(f"{page}: no {counterpart(page)} yet")
            failed = True
            continue
        for problem in differences(page, (ROOT / page).read_text(), chinese.read_text(),
                                   set(PAGES)):
            print(problem)
            failed = True
    sys.exit(1 if failed else 0)
