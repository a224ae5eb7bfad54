#!/usr/bin/env python3
"""PDFs for seamscope's PDF tests, the engine comparison and `bench open`, made with fpdf2.

    make-pdf-fixtures.py hostile DIR      good, encrypted, image-only (scan), truncated, zero-byte
                                          and not-a-PDF files (tests/fixtures/pdf holds the output)
    make-pdf-fixtures.py corpus SRC DIR   every .md/.txt file of SRC rendered as DIR/NAME.pdf
    make-pdf-fixtures.py columns SRC DIR  the same in two columns a page (reading order is harder)
    make-pdf-fixtures.py pages N DIR      a corpus of N pages in all (10-page PDFs of varied text)

Needs fpdf2 (and cryptography for the encrypted file): pip install fpdf2 cryptography.
"""

import os
import random
import sys

from fpdf import FPDF

UNICODE_FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"


def new_pdf(unicode_font=True):
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(True, margin=15)
    # Fixed dates keep the output byte-for-byte the same from run to run.
    pdf.set_creation_date(__import__("datetime").datetime(2026, 1, 1))
    if unicode_font and os.path.exists(UNICODE_FONT):
        pdf.add_font("body", "", UNICODE_FONT)
        pdf.set_font("body", size=10)
        pdf.latin1 = False
    else:
        pdf.set_font("Helvetica", size=10)
        pdf.latin1 = True
    return pdf


def write_text(pdf, text):
    if pdf.latin1:
        text = text.encode("latin-1", "replace").decode("latin-1")
    pdf.add_page()
    for para in text.split("\n"):
        if para.strip():
            pdf.multi_cell(0, 5, para, new_x="LMARGIN", new_y="NEXT")
        else:
            pdf.ln(3)


GOOD_PAGES = [
    "Page one of the good fixture. The ledger service settles payments every night.\n"
    "A second paragraph on the first page names the retention window of ninety days.",
    "Page two begins here. Failover promotes the replica within thirty seconds.\n"
    "The last line of the good fixture mentions the word zebracorn for the tests.",
]


def hostile(out):
    os.makedirs(out, exist_ok=True)
    pdf = new_pdf(unicode_font=False)
    for page in GOOD_PAGES:
        write_text(pdf, page)
    good = bytes(pdf.output())
    with open(os.path.join(out, "good.pdf"), "wb") as f:
        f.write(good)

    enc = new_pdf(unicode_font=False)
    enc.set_encryption(owner_password="owner-secret", user_password="user-secret")
    write_text(enc, "Secret text behind a password.")
    with open(os.path.join(out, "encrypted.pdf"), "wb") as f:
        f.write(bytes(enc.output()))

    # An image-only page, as a scanner makes: a small grey bitmap and no text at all.
    import io
    import zlib

    scan = new_pdf(unicode_font=False)
    scan.add_page()
    w, h = 32, 32
    raw = b"".join(b"\x00" + bytes((x * 7 + y * 3) % 256 for x in range(w)) for y in range(h))
    png = io.BytesIO()

    def chunk(tag, data):
        c = tag + data
        return len(data).to_bytes(4, "big") + c + zlib.crc32(c).to_bytes(4, "big")

    png.write(b"\x89PNG\r\n\x1a\n")
    png.write(chunk(b"IHDR", w.to_bytes(4, "big") + h.to_bytes(4, "big") + b"\x08\x00\x00\x00\x00"))
    png.write(chunk(b"IDAT", zlib.compress(raw)))
    png.write(chunk(b"IEND", b""))
    png.seek(0)
    scan.image(png, x=10, y=10, w=180)
    scan.add_page()
    png.seek(0)
    scan.image(png, x=10, y=10, w=180)
    with open(os.path.join(out, "scan.pdf"), "wb") as f:
        f.write(bytes(scan.output()))

    with open(os.path.join(out, "truncated.pdf"), "wb") as f:
        f.write(good[: len(good) // 3])
    with open(os.path.join(out, "zero-byte.pdf"), "wb") as f:
        pass
    with open(os.path.join(out, "renamed-text.pdf"), "wb") as f:
        f.write(b"This is a plain text file that was renamed to .pdf\n")


def corpus(src, out, columns=1):
    os.makedirs(out, exist_ok=True)
    for name in sorted(os.listdir(src)):
        if not name.endswith((".md", ".txt")):
            continue
        with open(os.path.join(src, name), encoding="utf-8") as f:
            text = f.read()
        pdf = new_pdf()
        if columns > 1:
            if pdf.latin1:
                text = text.encode("latin-1", "replace").decode("latin-1")
            pdf.add_page()
            with pdf.text_columns(ncols=columns, gutter=8) as cols:
                for para in text.split("\n"):
                    if para.strip():
                        cols.write(para + "\n")
                    else:
                        cols.ln()
        else:
            write_text(pdf, text)
        base = os.path.splitext(name)[0]
        with open(os.path.join(out, base + ".pdf"), "wb") as f:
            f.write(bytes(pdf.output()))


WORDS = (
    "ledger replica failover retention window settlement queue partition broker cache "
    "eviction policy vendor audit access token rotation schema migration backfill outage "
    "timeline owner runbook alert threshold latency budget checkpoint snapshot index shard"
).split()


def pages(n, out, per_pdf=10):
    os.makedirs(out, exist_ok=True)
    rng = random.Random(27)
    made = 0
    doc = 0
    while made < n:
        pdf = new_pdf(unicode_font=False)
        for _ in range(min(per_pdf, n - made)):
            pdf.add_page()
            for _ in range(8):
                words = " ".join(rng.choice(WORDS) for _ in range(rng.randint(40, 70)))
                pdf.multi_cell(0, 5, words.capitalize() + ".", new_x="LMARGIN", new_y="NEXT")
                pdf.ln(2)
            made += 1
        with open(os.path.join(out, f"doc-{doc:04}.pdf"), "wb") as f:
            f.write(bytes(pdf.output()))
        doc += 1


def main(argv):
    if len(argv) >= 2 and argv[0] == "hostile":
        hostile(argv[1])
    elif len(argv) >= 3 and argv[0] == "corpus":
        corpus(argv[1], argv[2])
    elif len(argv) >= 3 and argv[0] == "columns":
        corpus(argv[1], argv[2], columns=2)
    elif len(argv) >= 3 and argv[0] == "pages":
        pages(int(argv[1]), argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
