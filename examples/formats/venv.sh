#!/usr/bin/env bash
# The Python venv the formats tests use to write real-tool files (WET with warcio, Parquet
# with pyarrow) and to read spotcheck's exports back (pyarrow, polars, pandas):
# ~/.cache/spotcheck/formats-venv, made once with pip from PyPI. Prints the venv's python.
# Exits non-zero (and the tests skip, naming this script) when it cannot be made.
set -euo pipefail
venv="${SPOTCHECK_FORMATS_VENV:-$HOME/.cache/spotcheck/formats-venv}"
stamp="$venv/.spotcheck-formats-1"
if [ ! -f "$stamp" ]; then
  rm -rf "$venv"
  python3 -m venv "$venv" >&2
  "$venv/bin/pip" install --quiet --disable-pip-version-check \
    'warcio>=1.7' 'pyarrow>=14' 'polars>=0.20' 'pandas>=2' >&2
  touch "$stamp"
fi
echo "$venv/bin/python"
