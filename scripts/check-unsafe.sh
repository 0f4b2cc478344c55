#!/usr/bin/env bash
# The unsafe-code policy (DESIGN.md: unsafe only in the C ABI and sys), checked mechanically:
#  1. every crate except crates/libcurl and crates/sys forbids unsafe code at each crate root
#     (src/lib.rs, src/main.rs, src/bin/*.rs) with `#![forbid(unsafe_code)]`;
#  2. in crates/libcurl and crates/sys, every `unsafe` block and `unsafe impl` has a
#     `// SAFETY:` comment just before it (comment lines and attributes between are fine; the
#     comment may also end the line before, as in `// SAFETY: ...` above `let x = unsafe {`),
#     and every `unsafe fn` has a `# Safety` doc section or a `// SAFETY:` comment.
# Documented exceptions, as the code is written:
#  - `// SAFETY (all ... below): ...` covers every unsafe after it up to the end of the
#    enclosing block (the first code line indented less than the comment);
#  - the methods of an `unsafe impl` (their contract is the trait's, stated on the impl);
#  - function pointer types (`unsafe extern "C" fn(...)`), which are not unsafe code.
#  3. no `thread_local!` in the library crates (CABI.md: an application may move a handle to
#     another thread between calls, so no state may hide in a thread); tests may use them.
# Exits 1 listing each violation as FILE:LINE: reason.
set -euo pipefail
cd "$(dirname "$0")/.."

fail=0

for dir in crates/*/; do
  crate=${dir%/}
  case $crate in
  crates/libcurl | crates/sys) continue ;;
  esac
  roots=()
  for f in "$crate/src/lib.rs" "$crate/src/main.rs" "$crate"/src/bin/*.rs; do
    [[ -f $f ]] && roots+=("$f")
  done
  for f in "${roots[@]}"; do
    if ! grep -q '^#!\[forbid(unsafe_code)\]' "$f"; then
      echo "$f:1: crate root without #![forbid(unsafe_code)]"
      fail=1
    fi
  done
done

files=()
while IFS= read -r f; do files+=("$f"); done < <(
  find crates/libcurl crates/sys -name '*.rs' -not -path '*/target/*' | sort
)

# shellcheck disable=SC2016 # awk program, not shell
awk '
function indent(s) { match(s, /^[ \t]*/); return RLENGTH }
function report(msg) { printf "%s:%d: %s\n", FILENAME, FNR, msg; bad = 1 }
FNR == 1 {
  in_block_comment = 0; comment_safety = 0; doc_safety = 0; scope_indent = -1
  impl_depth = -1; depth = 0
}
{
  line = $0
  # Block comments are skipped whole (the code here uses // comments).
  if (in_block_comment) { if (line ~ /\*\//) in_block_comment = 0; next }
  if (line ~ /^[ \t]*\/\*/ && line !~ /\*\//) { in_block_comment = 1; next }

  if (line ~ /^[ \t]*\/\//) {
    if (line ~ /^[ \t]*\/\/\/?!? *# Safety/) doc_safety = 1
    if (line ~ /^[ \t]*\/\/ *SAFETY \(all [^)]*below\)/) scope_indent = indent(line)
    if (line ~ /^[ \t]*\/\/ *SAFETY[: ]/) comment_safety = 1
    next
  }
  if (line ~ /^[ \t]*#!?\[/ && line ~ /\][ \t]*$/) next   # attributes keep the comment

  code = line
  sub(/[ \t]*\/\/.*$/, "", code)          # trailing comment
  gsub(/"([^"\\]|\\.)*"/, "\"\"", code)   # string literals
  if (code ~ /^[ \t]*$/) { comment_safety = 0; doc_safety = 0; next }
  if (scope_indent >= 0 && indent(line) < scope_indent) scope_indent = -1

  rest = code
  while (match(rest, /(^|[^A-Za-z0-9_])unsafe([^A-Za-z0-9_]|$)/)) {
    at = substr(rest, RSTART)
    rest = substr(rest, RSTART + RLENGTH)
    sub(/^[^u]*/, "", at)
    if (at ~ /^unsafe[ \t]+(extern[ \t]+""[ \t]+)?fn[ \t]*\(/) continue   # a fn pointer type
    if (at ~ /^unsafe[ \t]+(extern[ \t]+""[ \t]+)?fn[ \t]/) {
      if (doc_safety || comment_safety || scope_indent >= 0) continue
      if (impl_depth >= 0 && depth > impl_depth) continue
      report("unsafe fn without a # Safety doc section")
      continue
    }
    if (at ~ /^unsafe[ \t]+impl/) {
      if (!comment_safety) report("unsafe impl without a // SAFETY: comment")
      if (code ~ /\{[ \t]*$/) impl_depth = depth
      continue
    }
    if (!comment_safety && scope_indent < 0) report("unsafe block without a // SAFETY: comment")
  }

  opens = gsub(/\{/, "{", code); closes = gsub(/\}/, "}", code)
  depth += opens - closes
  if (impl_depth >= 0 && depth <= impl_depth) impl_depth = -1
  # A comment covers the statement that follows it, which may span lines until it ends.
  if (code !~ /(=>[ \t]*\{|[(,=>|&+.])[ \t]*$/) { comment_safety = 0; doc_safety = 0 }
}
END { exit bad }
' "${files[@]}" || fail=1

while IFS=: read -r f n _; do
  echo "$f:$n: thread_local! in library code (state must live in the handles)"
  fail=1
done < <(grep -rn --include='*.rs' 'thread_local!' crates/*/src | grep -v '^crates/testsupport/' || true)

if ((fail)); then
  echo "check-unsafe: the unsafe-code policy is violated (see scripts/check-unsafe.sh)" >&2
  exit 1
fi
echo "check-unsafe: ok (${#files[@]} files in crates/libcurl and crates/sys checked)"
