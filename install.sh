#!/usr/bin/env bash
# eduqa installer.
#   ./install.sh --dev     set up ./.venv from nothing and install eduqa with its test extras
# System mode (as root, into /opt/eduqa with systemd units) is not written yet.
set -euo pipefail

usage() {
    cat <<'USAGE'
usage: ./install.sh --dev [--python PYTHON]

  --dev             create ./.venv next to this script and install eduqa in editable
                    mode with the export and test extras (torch CPU build pinned)
  --python PYTHON   Python 3.11+ to build the venv with (default: python3)
USAGE
}

mode=""
python_bin="${PYTHON:-python3}"
while [ $# -gt 0 ]; do
    case "$1" in
        --dev) mode="dev" ;;
        --python) python_bin="$2"; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done
if [ "$mode" != "dev" ]; then
    echo "install.sh: only --dev is available in this version" >&2
    usage >&2
    exit 2
fi

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

if ! "$python_bin" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    echo "install.sh: eduqa needs Python 3.11 or newer ($python_bin is $("$python_bin" --version 2>&1))" >&2
    exit 1
fi

if [ ! -x .venv/bin/python ]; then
    echo "==> creating .venv with $("$python_bin" --version)"
    "$python_bin" -m venv .venv
fi
echo "==> installing eduqa (editable) with export and test extras"
.venv/bin/python -m pip install --quiet --upgrade pip
# torch first and pinned: the CPU build; an unpinned torch pulls gigabytes of CUDA wheels.
.venv/bin/python -m pip install --quiet "torch==2.13.0"
.venv/bin/python -m pip install --quiet -e ".[export,test]"
echo "==> done: .venv/bin/eduqa --help"
