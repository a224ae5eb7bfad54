"""Dump what a LangChain pipeline makes of a corpus folder, for seamscope:

- the chunks of LangChain's RecursiveCharacterTextSplitter as a cuts file for `seamscope --cuts`:
  one LangChain Document per line (page_content + metadata, with start_index from
  add_start_index=True);
- with --documents OUT, also the loader's own Documents (`loader.load()`), for
  `seamscope --documents`: text files are read as they are, PDFs by langchain-community's
  PyPDFLoader (pypdf), one Document per page with metadata.page. The chunks are then
  `splitter.split_documents()` of those Documents, so a PDF chunk's start_index counts from its
  page, as in a real pipeline.

The tests use it on sample-corpus/ and on the sample corpus rendered as PDFs.

    python scripts/dump-cuts.py CORPUS OUT.jsonl [--documents DOCS.jsonl] [--pdf-only]
                                [--chunk-size 4000] [--chunk-overlap 400]

The same, in a pipeline of your own:

    docs = PyPDFLoader("manual.pdf").load()
    chunks = splitter.split_documents(docs)
    for name, items in (("documents.jsonl", docs), ("cuts.jsonl", chunks)):
        with open(name, "w") as f:
            for d in items:
                f.write(json.dumps({"page_content": d.page_content, "metadata": d.metadata}) + "\\n")
"""

import argparse
import json
import pathlib

from langchain_core.documents import Document
from langchain_text_splitters import RecursiveCharacterTextSplitter

# The files seamscope reads as documents: everything but hidden files and question sets.
SKIP = {"questions.jsonl"}


def load(path):
    """The loader's Documents for one file: PyPDFLoader's pages for a PDF, the text otherwise."""
    if path.suffix.lower() == ".pdf":
        from langchain_community.document_loaders import PyPDFLoader

        return PyPDFLoader(str(path)).load()
    # newline="" keeps CRLF as it is, so character offsets match the file.
    with open(path, encoding="utf-8", newline="") as f:
        return [Document(page_content=f.read(), metadata={"source": str(path)})]


def write(path, docs):
    with open(path, "w", encoding="utf-8") as out:
        for doc in docs:
            out.write(json.dumps({"page_content": doc.page_content, "metadata": doc.metadata}) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("out")
    ap.add_argument("--documents", help="also write the loader's Documents here")
    ap.add_argument("--pdf-only", action="store_true", help="only the folder's PDFs")
    ap.add_argument("--chunk-size", type=int, default=4000)
    ap.add_argument("--chunk-overlap", type=int, default=400)
    args = ap.parse_args()
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=args.chunk_size, chunk_overlap=args.chunk_overlap, add_start_index=True
    )
    root = pathlib.Path(args.corpus)
    paths = sorted(
        p for p in root.rglob("*")
        if p.is_file() and p.name not in SKIP and not any(part.startswith(".") for part in p.relative_to(root).parts)
        and (not args.pdf_only or p.suffix.lower() == ".pdf")
    )
    docs = [d for path in paths for d in load(path)]
    write(args.out, splitter.split_documents(docs))
    if args.documents:
        write(args.documents, docs)


if __name__ == "__main__":
    main()
