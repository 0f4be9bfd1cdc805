#!/usr/bin/env bash
# Checks the C sources against the repository's .clang-format (clang-format
# 14: other versions break some lines differently).
#
#   scripts/check_format.sh              every C file (*.c, *.h, *.c.in) but
#                                        the generated ones and those still
#                                        listed in scripts/format-pending.txt
#   scripts/check_format.sh FILE...      just these files
#   scripts/check_format.sh --all        every C file, the pending ones too
#   scripts/check_format.sh --fix [...]  reformat in place instead of checking
#
# Prints each file that differs with the start of its diff, then one line
# "format: N files checked, M differ (L lines)"; exits 1 if any differs,
# 2 if clang-format 14 is missing (scripts/deps.sh installs it; CLANG_FORMAT
# names another binary).
#
# The generated files are never checked (scripts/check_generated.sh
# regenerates and diffs them): the constants (tools/gen_constants.py), the
# embedded texts (src/witness/embed_*.sh), the MULX/ADX headers whose asm
# bodies tools/gen_mont_adx.py prints, the subgroup vectors.
#
# scripts/format-pending.txt lists the files written before .clang-format
# that a reformat would still change; they are skipped so that the check
# can guard every other file now. To finish the job, once no branch is in
# flight: scripts/check_format.sh --fix --all, then
# src/witness/embed_fastfr.sh and embed_glue.sh (the .c.in texts are
# embedded), then empty the pending list.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"

GENERATED='^(src/(field|curve|pairing)/params\.h|src/witness/(fastfr_text|w2c_glue)\.h|src/field/mont(_sqr)?_x86_64\.h|tests/subgroup_vectors\.h)$'
PENDING="scripts/format-pending.txt"

fix=0
all=0
files=()
for a in "$@"; do
    case "$a" in
        --fix) fix=1 ;;
        --all) all=1 ;;
        -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
        -*) echo "check_format: unknown option $a" >&2; exit 2 ;;
        *) files+=("$a") ;;
    esac
done

CF="${CLANG_FORMAT:-}"
if [ -z "$CF" ]; then
    for c in clang-format-14 clang-format; do
        if command -v "$c" >/dev/null && "$c" --version | grep -qE 'version 14\.'; then CF="$c"; break; fi
    done
fi
if [ -z "$CF" ]; then
    echo "check_format: clang-format 14 not found (apt-get install clang-format-14, or scripts/deps.sh)" >&2
    exit 2
fi

if [ ${#files[@]} -eq 0 ]; then
    if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
        mapfile -t files < <(git ls-files '*.c' '*.h' '*.c.in')
    else
        mapfile -t files < <(find src include tests bench fuzz examples -name '*.c' -o -name '*.h' -o -name '*.c.in' |
                             sort)
    fi
    skip="$GENERATED"
    if [ "$all" = 0 ] && [ -f "$PENDING" ]; then
        pend="$(grep -vE '^\s*(#|$)' "$PENDING" | sed 's/[.]/\\./g' | paste -sd'|')"
        [ -n "$pend" ] && skip="$skip|^($pend)$"
    fi
    mapfile -t files < <(printf '%s\n' "${files[@]}" | grep -vE "$skip")
fi

checked=0
differ=0
lines=0
tmp="$(mktemp)"
trap 'rm -f "$tmp"' EXIT
# One clang-format for all the .c and .h files says which differ (a process
# per file costs 30 s of CPU here); only those are diffed one by one.
plain=()
todo=()
for f in "${files[@]}"; do
    f="${f#./}"
    if [[ "$f" =~ $GENERATED ]]; then
        echo "check_format: $f is generated: not checked" >&2
    elif [ ! -f "$f" ]; then
        echo "check_format: $f: no such file" >&2
        differ=$((differ + 1))
    elif [[ "$f" == *.c || "$f" == *.h ]]; then
        plain+=("$f")
    else
        todo+=("$f")
    fi
done
checked=$((${#plain[@]} + ${#todo[@]}))
if [ ${#plain[@]} -gt 0 ]; then
    mapfile -t -O "${#todo[@]}" todo < <("$CF" --style=file --dry-run "${plain[@]}" 2>&1 |
        sed -nE 's/^(.*):[0-9]+:[0-9]+: (warning|error): code should be clang-formatted.*/\1/p' | sort -u)
fi
for f in "${todo[@]}"; do
    # the .c.in texts are C; clang-format knows languages by extension
    "$CF" --style=file --assume-filename="${f%.in}" <"$f" >"$tmp" || {
        echo "check_format: $CF failed on $f" >&2; differ=$((differ + 1)); continue; }
    cmp -s "$f" "$tmp" && continue
    n="$(diff "$f" "$tmp" | grep -c '^>')"
    differ=$((differ + 1))
    lines=$((lines + n))
    if [ "$fix" = 1 ]; then
        cat "$tmp" >"$f"
        echo "reformatted $f ($n lines)"
    else
        echo "$f: $n lines differ from .clang-format (scripts/check_format.sh --fix $f):"
        diff -u "$f" "$tmp" | sed -n '3,22p' | sed 's/^/    /'
    fi
done
if [ "$fix" = 1 ]; then
    echo "format: $checked files, $differ reformatted ($lines lines)"
    exit 0
fi
echo "format: $checked files checked, $differ differ ($lines lines)"
[ "$differ" -eq 0 ]
