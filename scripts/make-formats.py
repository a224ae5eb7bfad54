#!/usr/bin/env python3
"""Render every Markdown and text file of a corpus folder as PDF, HTML and DOCX with real
writers from PyPI, so the extraction tests (tests/formats.rs) know each document's true text.

    make-formats.py SRC OUT

writes OUT/pdf/<stem>.pdf (fpdf2, DejaVu Sans embedded for Unicode), OUT/html/<stem>.html
(Python-Markdown with the tables and fenced_code extensions, wrapped in a page whose nav,
header, aside, scripts and footer carry marker words the extractor must drop) and
OUT/docx/<stem>.docx (python-docx: Heading N styles, List Bullet / List Number, Word tables),
plus OUT/hostile/: a Latin-1 page that declares its charset (read correctly), one that does
not (a named skip), a .docx that is a ZIP of something else and one that is no ZIP at all
(named skips), beside one good page so the folder opens (OUT/hostile-expected.json holds the Latin-1 text).
OUT/sources.json maps each stem to its source file and lists the chrome's marker words.
"""

import html
import html.parser
import json
import os
import re
import sys
import zipfile

import docx
import markdown
from docx.shared import Pt
from fpdf import FPDF

# Words that appear only in the page chrome: extraction must drop every one of them.
CHROME_WORDS = ["Navchrome", "Headerchrome", "Asidechrome", "Footerchrome", "Scriptchrome"]

FONT_DIRS = ["/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/dejavu"]


def find_font(name):
    for folder in FONT_DIRS:
        path = os.path.join(folder, name)
        if os.path.exists(path):
            return path
    sys.exit(f"make-formats.py: {name} not found in {FONT_DIRS}: install fonts-dejavu-core and fonts-dejavu-extra")


def body_html(path, text):
    """The document's body as HTML: Markdown rendered, plain text as paragraphs."""
    if path.endswith(".md"):
        return markdown.markdown(text, extensions=["tables", "fenced_code"])
    paragraphs = [p for p in text.replace("\r\n", "\n").split("\n\n") if p.strip()]
    return "\n".join(f"<p>{html.escape(p.strip())}</p>" for p in paragraphs)


def page(title, body):
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>body {{ font-family: sans-serif; }} .Scriptchrome {{ color: red; }}</style>
<script>var banner = "Scriptchrome words in a script";</script></head>
<body>
<nav><ul><li><a href="/">Navchrome home</a></li><li><a href="/docs">Navchrome docs</a></li></ul></nav>
<header><p>Headerchrome: Larkspur intranet</p></header>
<main>
{body}
</main>
<aside><p>Asidechrome related pages</p></aside>
<footer><p>Footerchrome: copyright Larkspur Logistics</p></footer>
<script>console.log("Scriptchrome at the end");</script>
</body></html>
"""


def runs_of(raw_runs):
    """A block's (style, text) runs with whitespace collapsed as its plain text has it: one
    space between words, none at the ends; style is (bold, italic, code)."""
    runs = []
    for style, raw in raw_runs:
        text = " ".join(raw.split())
        if raw[:1].isspace() and text:
            text = " " + text
        if raw[-1:].isspace() and text:
            text = text + " "
        if not text.strip():
            text = " " if raw else ""
        if not text:
            continue
        if runs and runs[-1][1].endswith(" ") and text.startswith(" "):
            text = text[1:]
        if runs and runs[-1][0] == style:
            runs[-1] = (style, runs[-1][1] + text)
        elif text:
            runs.append((style, text))
    if runs:
        runs[0] = (runs[0][0], runs[0][1].lstrip())
        runs[-1] = (runs[-1][0], runs[-1][1].rstrip())
    return [r for r in runs if r[1]]


class Blocks(html.parser.HTMLParser):
    """Rendered HTML as blocks: ("heading", level, text), ("para", text, runs),
    ("item", ordered, depth, text, runs), ("table", rows), ("code", text); runs are the
    paragraph's (style, text) pieces, style (bold, italic, code), for the PDF writer."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.blocks = []
        self.raw_runs = []
        self.faces = {"b": 0, "i": 0, "code": 0}
        self.text = None
        self.lists = []
        self.heading = None
        self.pre = False
        self.table = None
        self.row = None

    def start_text(self):
        if self.text is None:
            self.text = []
            self.raw_runs = []

    def flush(self):
        if self.text is None:
            return
        raw = "".join(self.text)
        self.text = None
        runs = runs_of(self.raw_runs)
        self.raw_runs = []
        if self.pre:
            return
        text = " ".join(raw.split())
        if not text:
            return
        if self.heading:
            self.blocks.append(("heading", self.heading, text))
        elif self.lists:
            ordered = self.lists[-1]
            self.blocks.append(("item", ordered, len(self.lists) - 1, text, runs))
        else:
            self.blocks.append(("para", text, runs))

    def face(self):
        return (self.faces["b"] > 0, self.faces["i"] > 0, self.faces["code"] > 0)

    def handle_starttag(self, tag, attrs):
        if tag in ("strong", "b"):
            self.faces["b"] += 1
        elif tag in ("em", "i"):
            self.faces["i"] += 1
        elif tag == "code" and not self.pre:
            self.faces["code"] += 1
        if self.table is not None:
            if tag == "tr":
                self.row = []
            elif tag in ("td", "th"):
                self.text = []
            return
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self.flush()
            self.heading = int(tag[1])
            self.start_text()
        elif tag in ("ul", "ol"):
            self.flush()
            self.lists.append(tag == "ol")
        elif tag == "li":
            self.flush()
            self.start_text()
        elif tag == "pre":
            self.flush()
            self.pre = True
            self.text = []
        elif tag == "table":
            self.flush()
            self.table = []
        elif tag in ("p", "blockquote", "div"):
            self.flush()
            self.start_text()
        elif tag == "br":
            if self.text is not None:
                self.text.append("\n")

    def handle_endtag(self, tag):
        if tag in ("strong", "b"):
            self.faces["b"] = max(0, self.faces["b"] - 1)
        elif tag in ("em", "i"):
            self.faces["i"] = max(0, self.faces["i"] - 1)
        elif tag == "code" and not self.pre:
            self.faces["code"] = max(0, self.faces["code"] - 1)
        if self.table is not None:
            if tag in ("td", "th"):
                self.row.append(" ".join("".join(self.text or []).split()))
                self.text = None
            elif tag == "tr":
                self.table.append(self.row)
                self.row = None
            elif tag == "table":
                self.blocks.append(("table", self.table))
                self.table = None
            return
        if tag in ("h1", "h2", "h3", "h4", "h5", "h6"):
            self.flush()
            self.heading = None
        elif tag in ("ul", "ol"):
            self.flush()
            self.lists.pop()
        elif tag == "pre":
            code = "".join(self.text or []).rstrip("\n")
            self.text = None
            self.pre = False
            if code.strip():
                self.blocks.append(("code", code))
        elif tag in ("li", "p", "blockquote", "div"):
            self.flush()

    def handle_data(self, data):
        if self.text is not None:
            self.text.append(data)
            if self.table is None:
                self.raw_runs.append((self.face(), data))
        elif data.strip() and self.table is None:
            # Text outside any block (inside an <li> after a nested list, say).
            self.text = [data]
            self.raw_runs = [(self.face(), data)]


def blocks_of(body):
    parser = Blocks()
    parser.feed(body)
    parser.close()
    parser.flush()
    return parser.blocks


def write_docx(blocks, out):
    document = docx.Document()
    for block in blocks:
        kind = block[0]
        if kind == "heading":
            document.add_heading(block[2], level=block[1])
        elif kind == "para":
            document.add_paragraph(block[1])
        elif kind == "item":
            _, ordered, depth, text, _runs = block
            style = "List Number" if ordered else "List Bullet"
            if depth > 0:
                style += f" {min(depth + 1, 3)}"
            document.add_paragraph(text, style=style)
        elif kind == "table":
            rows = block[1]
            columns = max(len(r) for r in rows)
            table = document.add_table(rows=len(rows), cols=columns)
            table.style = "Table Grid"
            for i, row in enumerate(rows):
                for j, cell in enumerate(row):
                    table.cell(i, j).text = cell
        elif kind == "code":
            paragraph = document.add_paragraph()
            run = paragraph.add_run(block[1])
            run.font.name = "Courier New"
            run.font.size = Pt(9)
    document.save(out)


def write_runs(pdf, runs, size, line_height):
    """A paragraph's runs in their faces (DejaVu Sans, bold and italic; DejaVu Sans Mono for
    code), flowing from the current position and wrapping at the margins."""
    for (bold, italic, code), text in runs:
        if code:
            pdf.set_font("DejaVuMono", "", size - 1)
        else:
            pdf.set_font("DejaVu", ("B" if bold else "") + ("I" if italic else ""), size)
        # Word by word, so a word that does not fit goes to the next line whole (write() would
        # break it between letters when it starts a run near the margin).
        for piece in re.findall(r"\S+|\s+", text):
            at_start = pdf.get_x() <= pdf.l_margin + 0.01
            if piece.isspace():
                if not at_start:
                    pdf.write(line_height, " ")
                continue
            room = pdf.w - pdf.r_margin - pdf.get_x() - 2 * pdf.c_margin - 0.5
            if not at_start and pdf.get_string_width(piece) > room:
                pdf.ln(line_height)
            pdf.write(line_height, piece)
    pdf.ln(line_height)


def write_pdf(blocks, out, fonts):
    pdf = FPDF()
    pdf.set_auto_page_break(auto=True, margin=15)
    pdf.add_font("DejaVu", "", fonts["sans"])
    pdf.add_font("DejaVu", "B", fonts["bold"])
    pdf.add_font("DejaVuMono", "", fonts["mono"])
    pdf.add_font("DejaVu", "I", fonts["italic"])
    pdf.add_font("DejaVu", "BI", fonts["bold_italic"])
    pdf.add_page()
    width = pdf.epw
    margin = pdf.l_margin
    for block in blocks:
        kind = block[0]
        pdf.set_x(pdf.l_margin)
        if kind == "heading":
            pdf.set_font("DejaVu", "B", max(18 - 2 * block[1], 10))
            pdf.multi_cell(width, 8, block[2])
            pdf.ln(2)
        elif kind == "para":
            write_runs(pdf, block[2], 10, 5)
            pdf.ln(2)
        elif kind == "item":
            _, ordered, depth, text, runs = block
            indent = 5 * (depth + 1)
            pdf.set_left_margin(margin + indent)
            pdf.set_x(margin + indent)
            write_runs(pdf, [((False, False, False), "\u2022 ")] + runs, 10, 5)
            pdf.set_left_margin(margin)
        elif kind == "table":
            pdf.set_font("DejaVu", "", 9)
            for row in block[1]:
                pdf.set_x(pdf.l_margin)
                pdf.multi_cell(width, 5, "  \u2502  ".join(row))
            pdf.ln(2)
        elif kind == "code":
            pdf.set_font("DejaVuMono", "", 8)
            for line in block[1].split("\n"):
                pdf.set_x(pdf.l_margin)
                pdf.multi_cell(width, 4, line if line.strip() else " ")
            pdf.ln(2)
    pdf.output(out)


def hostile(out_dir, good_page):
    folder = os.path.join(out_dir, "hostile")
    os.makedirs(folder, exist_ok=True)
    text = "Caf\u00e9 cr\u00e8me: the na\u00efve r\u00e9sum\u00e9 costs 5 \u00a3 at the fa\u00e7ade."
    declared = (
        '<!DOCTYPE html><html><head><meta http-equiv="Content-Type" '
        'content="text/html; charset=ISO-8859-1"><title>Latin</title></head>'
        f"<body><h1>Latin-1 page</h1><p>{text}</p></body></html>"
    )
    with open(os.path.join(folder, "latin1-declared.html"), "wb") as f:
        f.write(declared.encode("latin-1"))
    undeclared = f"<html><body><h1>No charset</h1><p>{text}</p></body></html>"
    with open(os.path.join(folder, "latin1-undeclared.html"), "wb") as f:
        f.write(undeclared.encode("latin-1"))
    # A ZIP of something else, renamed: an export of notes and a spreadsheet, not Word.
    with zipfile.ZipFile(os.path.join(folder, "renamed-zip.docx"), "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("notes.txt", "These notes are not a Word document.\n")
        z.writestr("data/figures.csv", "month,orders\njan,10\n")
    with open(os.path.join(folder, "not-a-zip.docx"), "wb") as f:
        f.write(b"This text file was renamed to .docx.\n")
    with open(os.path.join(folder, "good.html"), "w", encoding="utf-8") as f:
        f.write(good_page)
    # Beside the folder, not in it: everything in hostile/ is read as a document.
    with open(os.path.join(out_dir, "hostile-expected.json"), "w", encoding="utf-8") as f:
        json.dump({"latin1_text": text}, f, ensure_ascii=False)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: make-formats.py SRC OUT")
    src, out = sys.argv[1], sys.argv[2]
    for sub in ("pdf", "html", "docx"):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    fonts = {
        "sans": find_font("DejaVuSans.ttf"),
        "bold": find_font("DejaVuSans-Bold.ttf"),
        "italic": find_font("DejaVuSans-Oblique.ttf"),
        "bold_italic": find_font("DejaVuSans-BoldOblique.ttf"),
        "mono": find_font("DejaVuSansMono.ttf"),
    }
    sources = {}
    first_page = None
    for name in sorted(os.listdir(src)):
        if not (name.endswith(".md") or name.endswith(".txt")):
            continue
        path = os.path.join(src, name)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        stem = os.path.splitext(name)[0]
        sources[stem] = name
        body = body_html(name, text)
        rendered = page(stem, body)
        first_page = first_page or rendered
        with open(os.path.join(out, "html", stem + ".html"), "w", encoding="utf-8") as f:
            f.write(rendered)
        blocks = blocks_of(body)
        write_docx(blocks, os.path.join(out, "docx", stem + ".docx"))
        write_pdf(blocks, os.path.join(out, "pdf", stem + ".pdf"), fonts)
    if first_page is None:
        sys.exit(f"make-formats.py: no .md or .txt files in {src}")
    hostile(out, first_page)
    with open(os.path.join(out, "sources.json"), "w", encoding="utf-8") as f:
        json.dump({"source_dir": os.path.abspath(src), "documents": sources,
                   "chrome_words": CHROME_WORDS}, f, indent=2)
    print(f"make-formats.py: {len(sources)} documents as PDF, HTML and DOCX in {out}")


if __name__ == "__main__":
    main()
