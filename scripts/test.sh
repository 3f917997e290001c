#!/usr/bin/env bash
# The whole suite twice (issue 22): on SQLite, and on a throwaway PostgreSQL cluster
# (scripts/postgres-for-tests.sh), the two runs side by side. VERBATIM_TEST_RUNS=sqlite or
# =postgres runs one of them only. Extra arguments go to both `bun test` runs.
#
# The PostgreSQL run leaves out the files that drive the web app's pages in chromium (BROWSER_ONLY):
# what they test is the page, its script and the browser (layout, focus, axe, playback), over use
# cases whose stores the API, store and app tests run on both databases (the list's snippets:
# src/meetings/list-store.test.ts; sharing: src/sharing/app.test.ts). They cost the most CPU of the
# suite, and CI's 2 cores run both runs at once. VERBATIM_TEST_BROWSER_ON_POSTGRES=1 runs them there too.
set -uo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/node_modules/.bin:$PATH"
runs=${VERBATIM_TEST_RUNS:-sqlite postgres}

tsc --noEmit -p . || exit 1

logs=$(mktemp -d)
pgdir=/tmp/verbatim-pg-$$
cleanup() {
  [ -d "$pgdir" ] && scripts/postgres-for-tests.sh stop "$pgdir"
  rm -rf "$logs"
}
trap cleanup EXIT

BROWSER_ONLY=(test/web/browser.test.ts 'test/web/v2-*.test.ts')
pg_ignore=()
if [ -z "${VERBATIM_TEST_BROWSER_ON_POSTGRES:-}" ]; then
  for pattern in "${BROWSER_ONLY[@]}"; do pg_ignore+=("--path-ignore-patterns=$pattern"); done
fi

declare -A pids
for run in $runs; do
  case "$run" in
    sqlite)
      bun test --timeout 60000 "$@" >"$logs/sqlite.log" 2>&1 &
      pids[sqlite]=$! ;;
    postgres)
      url=$(scripts/postgres-for-tests.sh start "$pgdir") || { echo "could not start PostgreSQL for the tests" >&2; exit 1; }
      VERBATIM_TEST_DATABASE_URL=$url bun test --timeout 60000 "${pg_ignore[@]}" "$@" >"$logs/postgres.log" 2>&1 &
      pids[postgres]=$! ;;
    *) echo "unknown run: $run (sqlite or postgres)" >&2; exit 2 ;;
  esac
done

status=0
passed=0
failed=0
for run in $runs; do
  wait "${pids[$run]}" || status=1
  echo "======== the suite on $run"
  cat "$logs/$run.log"
  # -a: a test's output may hold bytes that make grep call the log binary and print nothing.
  p=$(grep -aE '^ *[0-9]+ pass$' "$logs/$run.log" | tail -n 1 | tr -dc '0-9')
  f=$(grep -aE '^ *[0-9]+ fail$' "$logs/$run.log" | tail -n 1 | tr -dc '0-9')
  echo "======== $run: ${p:-0} passed, ${f:-0} failed"
  passed=$((passed + ${p:-0}))
  failed=$((failed + ${f:-0}))
  [ "${p:-0}" -gt 0 ] || status=1
done

# Both runs together, in bun test's own summary form (what .ci/run reads).
echo " $passed pass"
echo " $failed fail"
exit "$status"
