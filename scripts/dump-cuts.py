"""Split a corpus folder with LangChain's RecursiveCharacterTextSplitter and write its chunks as
a cuts file for `seamscope --cuts`: one LangChain Document per line (page_content + metadata,
with start_index from add_start_index=True). The tests use it on sample-corpus/.

    python scripts/dump-cuts.py CORPUS OUT.jsonl [--chunk-size 4000] [--chunk-overlap 400]
"""

import argparse
import json
import pathlib

from langchain_text_splitters import RecursiveCharacterTextSplitter

# The files seamscope reads as documents: everything but hidden files and question sets.
SKIP = {"questions.jsonl"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("out")
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
    )
    with open(args.out, "w", encoding="utf-8") as out:
        for path in paths:
            # newline="" keeps CRLF as it is, so character offsets match the file.
            with open(path, encoding="utf-8", newline="") as f:
                text = f.read()
            for doc in splitter.create_documents([text], metadatas=[{"source": str(path)}]):
                out.write(json.dumps({"page_content": doc.page_content, "metadata": doc.metadata}) + "\n")


if __name__ == "__main__":
    main()
