"""Dump what a LangChain (or, with --framework llama-index, a LlamaIndex) pipeline makes of a
corpus folder, for seamscope:

- the chunks of LangChain's RecursiveCharacterTextSplitter as a cuts file for `seamscope --cuts`:
  one LangChain Document per line (page_content + metadata, with start_index from
  add_start_index=True);
- with --documents OUT, also the loader's own Documents (`loader.load()`), for
  `seamscope --documents`: text files are read as they are, PDFs by langchain-community's
  PyPDFLoader (pypdf), one Document per page with metadata.page. The chunks are then
  `splitter.split_documents()` of those Documents, so a PDF chunk's start_index counts from its
  page, as in a real pipeline.

With --framework llama-index: the Documents of LlamaIndex's SimpleDirectoryReader (its PDFReader
from llama-index-readers-file: one Document per page, metadata.page_label and file_path), as
`{"text", "metadata"}` lines, and the nodes of its SentenceSplitter (`text`, `metadata`,
`start_char_idx`, `end_char_idx`, counted from the node's own page). Use it with --pdf-only:
SimpleDirectoryReader splits a Markdown file into sections of its own.

The tests use it on sample-corpus/ and on the sample corpus rendered as PDFs.

    python scripts/dump-cuts.py CORPUS OUT.jsonl [--documents DOCS.jsonl] [--pdf-only]
                                [--chunk-size 4000] [--chunk-overlap 400]
                                [--framework langchain|llama-index]

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


def llama_index_dump(paths, args):
    """SimpleDirectoryReader's Documents and SentenceSplitter's nodes of `paths`."""
    from llama_index.core import SimpleDirectoryReader
    from llama_index.core.node_parser import SentenceSplitter

    docs = SimpleDirectoryReader(input_files=[str(p) for p in paths]).load_data()
    splitter = SentenceSplitter(chunk_size=args.chunk_size, chunk_overlap=args.chunk_overlap)
    nodes = splitter.get_nodes_from_documents(docs)
    with open(args.out, "w", encoding="utf-8") as out:
        for n in nodes:
            out.write(json.dumps({"text": n.text, "metadata": n.metadata,
                                  "start_char_idx": n.start_char_idx,
                                  "end_char_idx": n.end_char_idx}) + "\n")
    if args.documents:
        with open(args.documents, "w", encoding="utf-8") as out:
            for d in docs:
                out.write(json.dumps({"text": d.text, "metadata": d.metadata}) + "\n")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("out")
    ap.add_argument("--documents", help="also write the loader's Documents here")
    ap.add_argument("--pdf-only", action="store_true", help="only the folder's PDFs")
    ap.add_argument("--chunk-size", type=int, default=4000)
    ap.add_argument("--chunk-overlap", type=int, default=400)
    ap.add_argument("--framework", choices=["langchain", "llama-index"], default="langchain")
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
    if args.framework == "llama-index":
        llama_index_dump(paths, args)
        return
    docs = [d for path in paths for d in load(path)]
    write(args.out, splitter.split_documents(docs))
    if args.documents:
        write(args.documents, docs)


if __name__ == "__main__":
    main()
