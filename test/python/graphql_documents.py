"""The GraphQL documents the installed official client sends: every string constant of its own code (not of its
connectors to other systems) that is a query, a mutation or a fragment, and its bundled .gql files (the CLI's search).

Usage: <venv>/bin/python graphql_documents.py
Prints one JSON list of {file, line, doc}; fragments a file defines are appended to the file's operations that use them.
"""

import ast
import json
import os
import re

import datahub

ROOT = os.path.dirname(datahub.__file__)
# Sources that talk to other systems send no GraphQL to DataHub; these ones do.
OWN_SOURCES = ("ingestion/source/gc/", "ingestion/source/state/", "ingestion/source/datahub")
GRAPHQL = re.compile(r"^\s*(query|mutation|fragment)\b[^{]*\{", re.S)

documents = []
for folder, _, files in os.walk(ROOT):
    for name in sorted(files):
        path = os.path.join(folder, name)
        rel = os.path.relpath(path, ROOT)
        if rel.startswith("ingestion/source/") and not rel.startswith(OWN_SOURCES):
            continue
        if name.endswith(".gql"):
            documents.append({"file": rel, "line": 1, "doc": open(path, encoding="utf-8").read()})
        elif name.endswith(".py"):
            try:
                tree = ast.parse(open(path, encoding="utf-8").read())
            except (SyntaxError, UnicodeDecodeError):
                continue
            for node in ast.walk(tree):
                if isinstance(node, ast.Constant) and isinstance(node.value, str) and GRAPHQL.match(node.value):
                    documents.append({"file": rel, "line": node.lineno, "doc": node.value})

# The CLI's search sends its bundled fragments with its operation; a file's fragments go with its operations alike.
by_folder = {}
for d in documents:
    by_folder.setdefault(os.path.dirname(d["file"]) if d["file"].endswith(".gql") else d["file"], []).append(d)
out = []
for group in by_folder.values():
    fragments = "\n".join(d["doc"] for d in group if re.match(r"^\s*fragment\b", d["doc"]))
    for d in group:
        if re.match(r"^\s*fragment\b", d["doc"]):
            continue
        used = set(re.findall(r"\.\.\.\s*([A-Za-z_]\w*)", d["doc"])) - {"on"}
        defined = set(re.findall(r"fragment\s+([A-Za-z_]\w*)", d["doc"]))
        out.append({**d, "doc": d["doc"] + ("\n" + fragments if used - defined else "")})
print(json.dumps(out))
