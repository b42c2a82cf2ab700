#!/usr/bin/env bash
# Install everything the tests need, then run them. This is the README's test command
# and what CI runs (.ci/run). Safe to run again: installs are skipped when present.
#
#   scripts/test.sh            the whole suite (what CI runs)
#   scripts/test.sh --fast     everything but the end-to-end flows (marker e2e): the inner loop
#   scripts/test.sh ARGS...    extra arguments go to pytest (e.g. tests/core -k verdict)
set -euo pipefail
cd "$(dirname "$0")/.."

need_apt=()
[ -x /usr/sbin/sshd ] || need_apt+=(openssh-server)
command -v ssh-keygen >/dev/null || need_apt+=(openssh-client)
command -v rsync >/dev/null || need_apt+=(rsync)
command -v g++ >/dev/null || need_apt+=(g++)
command -v cmake >/dev/null || need_apt+=(cmake)
command -v make >/dev/null || need_apt+=(make)
command -v git >/dev/null || need_apt+=(git)
command -v tmux >/dev/null || need_apt+=(tmux)
command -v patch >/dev/null || need_apt+=(patch)
# a one-node Slurm cluster (tests/plugins/slurm.py): slurmctld, slurmd and munged
[ -x /usr/sbin/slurmctld ] && [ -x /usr/sbin/slurmd ] || need_apt+=(slurm-wlm)
[ -x /usr/sbin/munged ] || need_apt+=(munge)
# a CJK font so chart labels in Chinese render (and their test runs instead of skipping)
command -v fc-list >/dev/null && fc-list :lang=zh | grep -q . || need_apt+=(fonts-wqy-microhei fontconfig)
if [ ${#need_apt[@]} -gt 0 ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "missing system packages: ${need_apt[*]} (install them as root)" >&2
        exit 1
    fi
    echo "installing system packages: ${need_apt[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e '.[test]'

pytest_args=()
for arg in "$@"; do
    if [ "$arg" = "--fast" ]; then pytest_args+=(-m "not e2e"); else pytest_args+=("$arg"); fi
done

.venv/bin/ruff check pto_tui tests benchmarks
.venv/bin/lint-imports --no-cache
.venv/bin/mypy
.venv/bin/python -m pytest -q -p no:cacheprovider "${pytest_args[@]}"
