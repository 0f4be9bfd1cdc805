#!/usr/bin/env bash
# Every repository path and every name of the code that the documentation
# gives exists: a document that points at a moved or deleted file, or a
# renamed function, fails here instead of misleading its next reader.
#
#   scripts/check_docs.sh [FILE.md...]   (default: README.md and docs/*.md)
#
# What counts as a path: a `backticked` word that starts with one of the
# repository's top-level entries (src/, tests/, docs/, .ci/,
# CMakeLists.txt, ...), or a bare file name with a source extension
# (`pool.c`, `store_impl.h`, `run.sh`), which must be the name of some
# file in the repository; in fenced code blocks, the words that start
# with a top-level folder and a slash (bash scripts/test.sh). `*` and
# `{a,b}` are globs (something must match); `<name>` is a placeholder
# (the folder before it must exist). Names of other projects' files
# (snarkjs's `src/*.js`, wabt's runtime) and files a document describes
# as not yet written are listed below, each with its reason.
#
# The names of the code the docs give in backticks (`zp_prover_prepare`,
# `ZP_CURVE_LIST`) are checked the same way: each must be a word of the
# sources, or one a template makes (a prefix of the code, zp_bn254_fp,
# and a name a template pastes onto its prefix, F_(mul)).
#
# Prints each missing path as "FILE:LINE: `path` does not exist", then
# one line "docs: N paths checked, M missing"; exits 1 if any is missing.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
docs=("$@")
[ ${#docs[@]} -gt 0 ] || docs=(README.md docs/*.md)
exec python3 - "${docs[@]}" <<'EOF'
import glob, os, re, subprocess, sys

# Not this repository's files: DOC -> names it may use for them.
FOREIGN = {
    # snarkjs's sources, which the formats were read from
    "docs/formats.md": {"src/zkey_new.js", "src/zkey_utils.js", "src/groth16_prove.js", "src/wtns_utils.js"},
    # the CUDA backend the document plans (not written yet)
    "docs/backend.md": {"src/groth16/backend_cuda.c", "zp_backend_cuda"},
}
# Bare names of other projects' files (wabt's runtime, circom's and
# snarkjs's outputs) and of files the user makes.
FOREIGN_NAMES = {"wasm-rt-impl.c", "wasm-rt.h", "witness_calculator.js"}
EXTS = (".c", ".h", ".sh", ".py", ".js", ".in", ".cmake", ".circom")

try:
    tracked = subprocess.run(["git", "ls-files"], capture_output=True, text=True, check=True).stdout.split("\n")
    tracked = [t for t in tracked if t]
except (OSError, subprocess.CalledProcessError):
    tracked = [os.path.relpath(os.path.join(d, f)) for d, _, fs in os.walk(".") if "/node_modules" not in d and
               "/.git" not in d for f in fs]
top = {t.split("/")[0] for t in tracked}
names = {os.path.basename(t) for t in tracked}
fenced_top = "|".join(re.escape(t) for t in sorted(top) if "." not in t)


# Every zp_/ZP_ word of the code, for the names the docs give in
# backticks (`zp_prover_prepare`, `ZP_CURVE_LIST`).
code_words = set()
for t in tracked:
    if t.endswith((".c", ".h", ".in", ".sh", ".py", ".js", ".cmake", "CMakeLists.txt")):
        try:
            with open(t, errors="replace") as f:
                code_words.update(re.findall(r"\b[zZ][pP]_\w+", f.read()))
        except (IsADirectoryError, FileNotFoundError):
            pass
template_suffixes = set()
for t in tracked:
    if t.startswith("src/") and t.endswith(".h"):
        with open(t, errors="replace") as f:
            template_suffixes.update(re.findall(r"\b[A-Z][A-Z0-9]?_\((\w+)\)", f.read()))


def name_exists(n):
    """A name of the code, or one a template makes: a prefix the code has
    (zp_bn254_fp) and a suffix a template pastes onto its prefix macro
    (F_(mul) in src/field/field_impl.h)."""
    if n in code_words:
        return True
    parts = n.split("_")
    for i in range(len(parts) - 1, 1, -1):
        if "_".join(parts[:i]) in code_words and "_".join(parts[i:]) in template_suffixes:
            return True
    return False


def braces(p):
    m = re.search(r"\{([^{}]*)\}", p)
    if not m:
        return [p]
    return [q for alt in m.group(1).split(",") for q in braces(p[:m.start()] + alt + p[m.end():])]


def exists(p):
    p = p.rstrip("/")
    if "<" in p:  # a placeholder: the folder before it
        d = p[:p.index("<")].rsplit("/", 1)[0]
        return os.path.isdir(d)
    return any(glob.glob(q) for q in braces(p))


def bare_exists(n):
    if any(c in n for c in "*?{"):
        import fnmatch
        return any(fnmatch.fnmatch(x, q) for q in braces(n) for x in names)
    return n in names


checked = 0
missing = 0
for doc in sys.argv[1:]:
    fence = False
    with open(doc, encoding="utf-8") as f:
        for lineno, line in enumerate(f, 1):
            if line.lstrip().startswith("```"):
                fence = not fence
                continue
            if fence:  # commands: the words that start with a top-level folder
                words = re.findall(r"(?<![\w/.$-])((?:%s)/[\w./<>{}*-]*)" % fenced_top, line)
            else:
                words = re.findall(r"`([^`\s]+)`", line)
            for word in words:
                w = word.rstrip(".,:;")
                if w in FOREIGN.get(doc, ()) or w in FOREIGN_NAMES:
                    continue
                first = w.split("/")[0]
                if not fence and re.fullmatch(r"(zp|ZP)_\w+(\(\))?", w):
                    checked += 1
                    if not name_exists(w.rstrip("()")):
                        missing += 1
                        print("%s:%d: `%s` is not a name in the code" % (doc, lineno, word))
                    continue
                if "/" in w or w in top:
                    if first not in top or w.startswith("/"):
                        continue  # a URL path, a user's folder, another package's file
                    ok = exists(w)
                elif w.endswith(EXTS) and re.fullmatch(r"[\w.*?{},<>-]+", w):
                    ok = bare_exists(w) or "<" in w
                else:
                    continue
                checked += 1
                if not ok:
                    missing += 1
                    print("%s:%d: `%s` does not exist" % (doc, lineno, word))
print("docs: %d paths and names checked, %d missing" % (checked, missing))
sys.exit(1 if missing else 0)
EOF
