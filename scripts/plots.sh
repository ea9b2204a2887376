#!/usr/bin/env bash
# plots.sh - behind `make plots`: draws every results folder it finds into plots/out/, with a
# Python that has matplotlib (scripts/python.sh finds one, or makes .venv/).
#
# Environment: PYTHON (default python3), PLOTS_RESULTS (default results), PLOTS_LANG (en, or zh
# for Chinese words), PLOTS_OUT (default plots/out, and plots/out/zh for zh).
# Exit status 3 when matplotlib, or for zh a Chinese font, can be neither found nor installed.
set -u
cd "$(dirname "$0")/.."
python=$(bash scripts/python.sh matplotlib) || exit 3
lang=${PLOTS_LANG:-en}
default_out=plots/out
case $lang in zh*) default_out=plots/out/zh ;; esac  # zh, zh_CN, zh_CN.UTF-8: plot_all.py's forms
exec "$python" plots/plot_all.py --results "${PLOTS_RESULTS:-results}" \
    --out "${PLOTS_OUT:-$default_out}" --lang "$lang"
