#!/usr/bin/env bash
# python.sh MODULE... - prints a Python that can import every MODULE: $PYTHON (default python3)
# when it can, else .venv/bin/python, made or completed from plots/requirements.txt and
# tests/requirements.txt. Exit status 3, after saying why on stderr, when none can be had.
set -u
cd "$(dirname "$0")/.."
python=${PYTHON:-python3}
imports_all() {
    local candidate=$1 module
    shift
    for module in "$@"; do
        "$candidate" -c "import $module" >/dev/null 2>&1 || return 1
    done
}

if imports_all "$python" "$@"; then
    echo "$python"
    exit 0
fi
if ! imports_all .venv/bin/python "$@"; then
    echo "python: $python cannot import $*; installing plots/requirements.txt and tests/requirements.txt into .venv/" >&2
    if ! { [ -x .venv/bin/python ] || "$python" -m venv .venv; } >&2 ||
        ! .venv/bin/python -m pip install -q -r plots/requirements.txt -r tests/requirements.txt >&2; then
        echo "python: cannot find or install $*. Online: python3 -m pip install -r plots/requirements.txt -r tests/requirements.txt (pip reads PIP_INDEX_URL, for a mirror). Offline: install your distribution's packages (python3-matplotlib, python3-pytest), or name a Python that has them: make ... PYTHON=/path/to/python3" >&2
        exit 3
    fi
fi
echo "$PWD/.venv/bin/python"
