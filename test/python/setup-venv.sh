#!/usr/bin/env bash
# Creates (once) a virtualenv with the official DataHub client pinned in requirements.txt and prints its path.
# The venv is keyed by a hash of requirements.txt, so a cached one is reused as is and a changed pin gets a fresh one.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python="${PYTHON:-python3}"
key="$( (cat "$here/requirements.txt"; "$python" --version 2>&1) | sha256sum | cut -c1-16)"
cache="${GRAPH_METADATA_VENV_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/graph-metadata-service}"
venv="$cache/venv-$key"

# A venv is complete only once the marker exists, so an interrupted install is redone rather than reused.
if [ ! -f "$venv/.complete" ]; then
  mkdir -p "$cache"
  # One installer at a time; a second caller waits, then finds the venv complete.
  exec 9>"$cache/.lock"
  flock 9
fi
if [ ! -f "$venv/.complete" ]; then
  rm -rf "$venv"
  {
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check --upgrade pip
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$here/requirements.txt"
  } >&2
  touch "$venv/.complete"
fi
echo "$venv"
