#!/usr/bin/env bash
# Rewrites the `--help` section that ends each docs/commands/<command>.md with the
# tool's own --help, after a change to a command's declarations (a test checks
# that every page matches). Usage: scripts/update-help-docs.sh [path/to/fixturekit]
set -euo pipefail
tool=${1:-.build/debug/fixturekit}
for page in docs/commands/*.md; do
  name=$(basename "$page" .md)
  body=$(sed '/^## `--help`$/,$d' "$page")
  {
    printf '%s\n\n## `--help`\n\n```text\n' "$body"
    "$tool" "$name" --help
    printf '```\n'
  } > "$page.tmp"
  mv "$page.tmp" "$page"
done
