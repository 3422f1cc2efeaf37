# The CLI tests' common start, sourced first: `source "$(dirname "$0")/harness.sh" "$@"`.
# Gives the program under test ($bin, from $1, made absolute), a scratch folder ($tmp) removed at
# exit with any background job still running, recorded runs kept in it (MIRROR_RUNS_DIR), and the
# count: pass, fail WHAT, expect NAME EXIT PATTERN -- COMMAND..., and finish NAME, which prints
# "NAME: P passed, F failed" and exits 1 when anything failed. A script with more to undo at exit
# (a mount) defines before_cleanup.
set -u
bin=$(realpath "${1:?usage: $(basename "$0") path/to/mirrortrain}")
tmp=$(mktemp -d)
cleanup() {
  if declare -F before_cleanup >/dev/null; then before_cleanup; fi
  local jobs
  jobs=$(jobs -p)
  [[ -n $jobs ]] && kill $jobs 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
export MIRROR_RUNS_DIR="$tmp/runs"  # recorded runs go here, not into the user's data folder
passed=0
failed=0
pass() { passed=$((passed + 1)); }
fail() { failed=$((failed + 1)); printf 'FAIL %s\n' "$*"; }

# expect NAME WANTED_EXIT PATTERN -- COMMAND...: the command exits so and its stdout+stderr match
# PATTERN (an extended regular expression).
expect() {
  local name=$1 want=$2 pattern=$3
  shift 4
  local out rc
  out=$("$@" 2>&1)
  rc=$?
  if [[ $rc -eq $want ]] && grep -qE -- "$pattern" <<<"$out"; then
    pass
  else
    fail "$(printf '%s: exit %s (wanted %s), output:\n%s' "$name" "$rc" "$want" "$(tail -n 5 <<<"$out")")"
  fi
}

finish() {
  echo "$1: $passed passed, $failed failed"
  [[ $failed -eq 0 ]] || exit 1
  exit 0
}
