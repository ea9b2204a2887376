#!/usr/bin/env bash
# plots.sh - behind `make plots`: finds a Python with matplotlib, or makes .venv/ from
# plots/requirements.txt, then draws every results folder it finds into plots/out/.
#
# Environment: PYTHON (default python3), PLOTS_RESULTS (default results), PLOTS_OUT (plots/out).
# Exit status 3 when matplotlib can be neither found nor installed.
set -u
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
has_matplotlib() { "$1" -c 'import matplotlib' >/dev/null 2>&1; }

if ! has_matplotlib "$python"; then
    if ! has_matplotlib .venv/bin/python; then
        echo "plots: no matplotlib for $python; installing plots/requirements.txt into .venv/" >&2
        if ! { "$python" -m venv .venv && .venv/bin/python -m pip install -q -r plots/requirements.txt; } >&2; then
            echo "plots: cannot find or install matplotlib: run 'python3 -m pip install -r plots/requirements.txt' (or install your system's python3-matplotlib), then make plots again" >&2
            exit 3
        fi
    fi
    python=.venv/bin/python
fi
exec "$python" plots/plot_all.py --results "${PLOTS_RESULTS:-results}" --out "${PLOTS_OUT:-plots/out}"
