#!/usr/bin/env bash
# plots.sh - behind `make plots`: draws every results folder it finds into plots/out/, with a
# Python that has matplotlib (scripts/python.sh finds one, or makes .venv/).
#
# Environment: PYTHON (default python3), PLOTS_RESULTS (default results), PLOTS_OUT (plots/out).
# Exit status 3 when matplotlib can be neither found nor installed.
set -u
cd "$(dirname "$0")/.."
python=$(scripts/python.sh matplotlib) || exit 3
exec "$python" plots/plot_all.py --results "${PLOTS_RESULTS:-results}" --out "${PLOTS_OUT:-plots/out}"
