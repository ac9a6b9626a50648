#!/usr/bin/env bash
# eduqa installer.
#   ./install.sh --dev            set up ./.venv from nothing and install eduqa with its test extras
#   sudo ./install.sh [options]   install (or upgrade in place) the appliance: /opt/eduqa,
#                                 /etc/eduqa/eduqa.toml, /var/lib/eduqa, systemd units
#   sudo ./install.sh --uninstall [--purge]
# Run ./install.sh --help for every option. docs/OPERATIONS.md describes the result.
set -euo pipefail

usage() {
    cat <<'USAGE'
usage: ./install.sh --dev [--engine-builders] [--python PYTHON]
       sudo ./install.sh [options]                 install, or upgrade in place
       sudo ./install.sh --uninstall [--purge]     remove (config and data kept unless --purge)
       ./install.sh --make-wheelhouse DIR [--engine E]
                                                   fetch every wheel an offline install needs
       ./install.sh --detect-engine                print the engine extra this machine gets

  --dev             create ./.venv next to this script and install eduqa in editable
                    mode with the export and test extras (torch CPU build pinned)
  --engine-builders with --dev: also the TensorRT-RTX builder (tensorrt-rtx extra, about
                    230 MB) and tritonclient, for the engine build and Triton export tests
  --python PYTHON   Python 3.11+ to build the venv with (default: python3)

system install (as root; Debian or Ubuntu):
  --wheelhouse DIR  install offline: pip --no-index --find-links DIR
  --engine E        auto (default: nvidia-smi decides), tensorrt (data-centre GPUs),
                    tensorrt-rtx (GeForce/RTX), none (no GPU: ONNX Runtime on the CPU)
  --teacher NAME    first teacher account (asked for when omitted on a terminal)
  --teacher-password-file FILE
                    read the teacher's password from FILE ('-': standard input)
  --teacher-password PASSWORD
                    the password on the command line (visible to other users in the
                    process list: prefer the file or the prompt)
  --port N          port written into a new config (default 8080)
  --memory-max SIZE cap the daemon's memory (systemd MemoryMax=: 6G, 75%, infinity);
                    written to /etc/systemd/system/eduqa.service.d/10-memory.conf
  --torch-index URL extra package index for the CPU build of torch (online installs,
                    e.g. https://download.pytorch.org/whl/cpu)
  --no-systemd      do not install, enable or start the systemd units
  --prefix DIR      install everything under DIR (DIR/opt/eduqa, DIR/etc/eduqa,
                    DIR/var/lib/eduqa, DIR/etc/systemd/system); paths in the config and the
                    units point into DIR; no system user is created and systemctl is never
                    called. For tests and image building.
  --user NAME       service account (default: eduqa, created if missing; with --prefix:
                    the current user, never created)
  --skip-os-check   do not insist on Debian or Ubuntu
  -y, --yes         never prompt (a teacher is then created only from the flags)
  --verbose         show pip's output
  --uninstall       stop and remove the units and /opt/eduqa; keep config and data
  --purge           with --uninstall: also remove /etc/eduqa, /var/lib/eduqa (every
                    question, answer and backup in it) and the eduqa user
USAGE
}

die() { echo "install.sh: error: $*" >&2; exit 1; }
warn() { echo "install.sh: warning: $*" >&2; }
say() { echo "==> $*"; }

TORCH_PIN="torch==2.13.0"

mode="install"
python_bin="${PYTHON:-python3}"
wheelhouse=""
wheelhouse_out=""
engine="auto"
teacher=""
teacher_password=""
teacher_password_file=""
port="8080"
memory_max=""
torch_index=""
use_systemd=1
prefix=""
svc_user=""
skip_os_check=0
assume_yes=0
verbose=0
purge=0
engine_builders=0

need_arg() { if [ $# -lt 2 ] || [ -z "$2" ]; then die "$1 needs a value"; fi; }

while [ $# -gt 0 ]; do
    case "$1" in
        --dev) mode="dev" ;;
        --engine-builders) engine_builders=1 ;;
        --python) need_arg "$@"; python_bin="$2"; shift ;;
        --uninstall) mode="uninstall" ;;
        --purge) purge=1 ;;
        --make-wheelhouse) need_arg "$@"; mode="wheelhouse"; wheelhouse_out="$2"; shift ;;
        --detect-engine) mode="detect" ;;
        --wheelhouse) need_arg "$@"; wheelhouse="$2"; shift ;;
        --engine) need_arg "$@"; engine="$2"; shift ;;
        --teacher) need_arg "$@"; teacher="$2"; shift ;;
        --teacher-password) need_arg "$@"; teacher_password="$2"; shift ;;
        --teacher-password-file) need_arg "$@"; teacher_password_file="$2"; shift ;;
        --port) need_arg "$@"; port="$2"; shift ;;
        --memory-max) need_arg "$@"; memory_max="$2"; shift ;;
        --torch-index) need_arg "$@"; torch_index="$2"; shift ;;
        --no-systemd) use_systemd=0 ;;
        --prefix) need_arg "$@"; prefix="$2"; shift ;;
        --user) need_arg "$@"; svc_user="$2"; shift ;;
        --skip-os-check) skip_os_check=1 ;;
        -y|--yes) assume_yes=1 ;;
        --verbose) verbose=1 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

check_python() {
    if ! "$python_bin" -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
        echo "install.sh: eduqa needs Python 3.11 or newer ($python_bin is $("$python_bin" --version 2>&1))" >&2
        exit 1
    fi
}

# -- --dev: what README and CI run ---------------------------------------------------------------
if [ "$mode" = "dev" ]; then
    cd "$here"
    check_python
    if [ ! -x .venv/bin/python ]; then
        echo "==> creating .venv with $("$python_bin" --version)"
        "$python_bin" -m venv .venv
    fi
    extras="export,test"
    if [ "$engine_builders" = 1 ]; then extras="$extras,tensorrt-rtx"; fi
    echo "==> installing eduqa (editable) with the extras $extras"
    .venv/bin/python -m pip install --quiet --upgrade pip
    # torch first and pinned: the CPU build; an unpinned torch pulls gigabytes of CUDA wheels.
    .venv/bin/python -m pip install --quiet "$TORCH_PIN"
    .venv/bin/python -m pip install --quiet -e ".[$extras]"
    if [ "$engine_builders" = 1 ]; then
        # tensorrt-rtx builds real engines on the CPU ahead of time, so tests prove the build;
        # Triton's model-config schema for the export test (its own pins would downgrade ml_dtypes).
        .venv/bin/python -m pip install --quiet --no-deps "tritonclient==2.73.0"
    fi
    echo "==> done: .venv/bin/eduqa --help"
    missing_debs=""
    command -v dpkg >/dev/null 2>&1 && for p in chromium fonts-noto-cjk fonts-noto-color-emoji systemd shellcheck iproute2; do
        dpkg -s "$p" >/dev/null 2>&1 || missing_debs="$missing_debs $p"
    done
    if [ -n "$missing_debs" ]; then
        echo "note: the browser, photo, unit-file and shell-script tests also need Debian packages;"
        echo "      without them they skip (pytest names what is missing):"
        echo "      sudo apt-get install -y$missing_debs"
    fi
    exit 0
fi

# -- engine choice -----------------------------------------------------------------------------
# classify_gpu NAME COMPUTE_CAPABILITY -> tensorrt | tensorrt-rtx | none
classify_gpu() {
    local name="$1" cap="$2" major minor
    if [[ "$cap" =~ ^([0-9]+)\.([0-9]+)$ ]]; then
        major="${BASH_REMATCH[1]}"; minor="${BASH_REMATCH[2]}"
        if [ $((major * 10 + minor)) -lt 75 ]; then
            echo none; return
        fi
    fi
    case "$name" in
        *GeForce*|*RTX*|*TITAN*|*Quadro*) echo tensorrt-rtx ;;
        *) echo tensorrt ;;
    esac
}

# detect_engine -> the extra for this machine; explanations go to stderr
detect_engine() {
    local out line name cap choice
    if ! command -v nvidia-smi >/dev/null 2>&1; then
        echo "install.sh: no nvidia-smi: no NVIDIA GPU driver, ONNX Runtime on the CPU" >&2
        echo none; return
    fi
    if ! out="$(nvidia-smi --query-gpu=name,compute_cap --format=csv,noheader 2>/dev/null)" || [ -z "$out" ]; then
        # Older drivers do not know compute_cap: decide by the name alone.
        if ! out="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null)" || [ -z "$out" ]; then
            echo "install.sh: nvidia-smi lists no GPU (is the driver loaded?): ONNX Runtime on the CPU" >&2
            echo none; return
        fi
    fi
    line="$(printf '%s\n' "$out" | head -n 1)"
    name="${line%%,*}"
    cap=""
    if [[ "$line" == *,* ]]; then
        cap="${line##*,}"; cap="${cap// /}"
    fi
    choice="$(classify_gpu "$name" "$cap")"
    if [ "$(printf '%s\n' "$out" | sort -u | wc -l)" -gt 1 ]; then
        echo "install.sh: several GPU models; choosing by the first: $name" >&2
    fi
    if [ "$choice" = none ]; then
        echo "install.sh: $name (compute capability $cap) is too old for TensorRT: ONNX Runtime on the CPU" >&2
    else
        echo "install.sh: $name (compute capability ${cap:-unknown}) -> $choice" >&2
    fi
    echo "$choice"
}

resolve_engine() {
    case "$engine" in
        auto) detect_engine ;;
        tensorrt|tensorrt-rtx|none) echo "$engine" ;;
        *) die "--engine must be auto, tensorrt, tensorrt-rtx or none (got '$engine')" ;;
    esac
}

[ "$engine_builders" = 0 ] || [ "$mode" = dev ] || die "--engine-builders goes with --dev"

if [ "$mode" = "detect" ]; then
    resolve_engine
    exit 0
fi

# Copies the source tree (without venvs, data, build output) to $1 so that building the
# package never writes into the checkout.
copy_source() {
    mkdir -p "$1"
    tar -C "$here" --exclude=./.venv --exclude=./.git --exclude=./data --exclude=./build \
        --exclude='*.egg-info' --exclude='__pycache__' --exclude=./.pytest_cache -cf - . \
        | tar -C "$1" -xf -
}

package_spec() {  # package_spec SRC EXTRA
    if [ "$2" = none ]; then echo "$1"; else echo "$1[$2]"; fi
}

# -- --make-wheelhouse -------------------------------------------------------------------------
if [ "$mode" = "wheelhouse" ]; then
    check_python
    extra="$(resolve_engine)"
    mkdir -p "$wheelhouse_out"
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT
    copy_source "$work/src"
    say "collecting wheels for eduqa (engine extra: $extra) into $wheelhouse_out"
    pip_index=()
    if [ -n "$torch_index" ]; then pip_index=(--extra-index-url "$torch_index"); fi
    "$python_bin" -m pip wheel --disable-pip-version-check ${pip_index[@]+"${pip_index[@]}"} \
        --wheel-dir "$wheelhouse_out" "$TORCH_PIN" "$(package_spec "$work/src" "$extra")"
    # The offline install builds eduqa from source: it needs the build backend too.
    "$python_bin" -m pip download --disable-pip-version-check --only-binary=:all: \
        --dest "$wheelhouse_out" "setuptools>=68"
    say "done: copy $wheelhouse_out and this source tree to the school box, then run"
    echo "    sudo ./install.sh --wheelhouse $wheelhouse_out"
    echo "    (build the wheelhouse on the same Debian/Ubuntu release and Python version as the box)"
    exit 0
fi

# -- system install / uninstall ----------------------------------------------------------------
# Whatever root's umask, the service user must be able to read the code in /opt/eduqa.
umask 022
if [ -n "$prefix" ]; then
    mkdir -p "$prefix"
    prefix="$(cd "$prefix" && pwd)"
    [ "$prefix" != "/" ] || prefix=""
fi
opt_dir="$prefix/opt/eduqa"
venv="$opt_dir/venv"
etc_dir="$prefix/etc/eduqa"
conf="$etc_dir/eduqa.toml"
data_dir="$prefix/var/lib/eduqa"
unit_dir="$prefix/etc/systemd/system"
dropin_dir="$unit_dir/eduqa.service.d"
bin_dir="$prefix/usr/local/bin"
units=(eduqa.service eduqa-engines.service eduqa-backup.service eduqa-backup.timer)

live_system=0  # the real machine: no --prefix, systemd units wanted
if [ -z "$prefix" ] && [ "$use_systemd" = 1 ]; then live_system=1; fi
systemd_running=0
if [ "$live_system" = 1 ] && [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
    systemd_running=1
fi

if [ -z "$svc_user" ]; then
    if [ -n "$prefix" ]; then svc_user="$(id -un)"; else svc_user="eduqa"; fi
fi

if [ -z "$prefix" ] && [ "$(id -u)" != 0 ]; then
    die "the system install needs root: sudo ./install.sh (or --prefix DIR to try it in a directory)"
fi

check_os() {
    [ "$skip_os_check" = 1 ] && return 0
    local id="" like=""
    if [ -r /etc/os-release ]; then
        # shellcheck disable=SC1091
        id="$(. /etc/os-release && echo "${ID:-}")"
        # shellcheck disable=SC1091
        like="$(. /etc/os-release && echo "${ID_LIKE:-}")"
    fi
    case " $id $like " in
        *" debian "*|*" ubuntu "*) ;;
        *) die "eduqa's installer supports Debian and Ubuntu; this is '${id:-unknown}' (--skip-os-check to try anyway)" ;;
    esac
}

run_as_service_user() {
    if [ "$(id -u)" = 0 ] && [ "$svc_user" != root ]; then
        runuser -u "$svc_user" -- "$@"
    else
        "$@"
    fi
}

eduqa_env=(env "HF_HUB_OFFLINE=1" "TRANSFORMERS_OFFLINE=1" "EDUQA_CONFIG=$conf" "EDUQA_DATA_DIR=$data_dir")

uninstall() {
    say "uninstalling eduqa${prefix:+ from $prefix}"
    if [ "$systemd_running" = 1 ]; then
        systemctl disable --now eduqa.service eduqa-backup.timer >/dev/null 2>&1 || true
        systemctl stop eduqa-engines.service eduqa-backup.service >/dev/null 2>&1 || true
    fi
    local unit removed_units=0
    for unit in "${units[@]}"; do
        if [ -e "$unit_dir/$unit" ]; then rm -f "$unit_dir/$unit"; removed_units=1; fi
    done
    rm -f "$dropin_dir/10-memory.conf"
    rmdir "$dropin_dir" 2>/dev/null || true
    if [ "$systemd_running" = 1 ] && [ "$removed_units" = 1 ]; then systemctl daemon-reload; fi
    rm -rf "${opt_dir:?}"
    if [ -f "$bin_dir/eduqa" ] && grep -q "eduqa's install.sh" "$bin_dir/eduqa"; then rm -f "$bin_dir/eduqa"; fi
    if [ "$purge" = 1 ]; then
        rm -rf "${etc_dir:?}" "${data_dir:?}"
        [ -d "$dropin_dir" ] && rm -rf "${dropin_dir:?}"
        if [ -z "$prefix" ] && [ "$svc_user" = eduqa ] && getent passwd eduqa >/dev/null; then
            userdel eduqa 2>/dev/null || warn "could not remove the user eduqa"
        fi
        say "removed eduqa, its configuration and its data"
    else
        say "removed eduqa; kept the configuration $conf and the data $data_dir"
        echo "    (./install.sh --uninstall --purge removes them too)"
    fi
}

if [ "$mode" = "uninstall" ]; then
    uninstall
    exit 0
fi
[ "$purge" = 0 ] || die "--purge goes with --uninstall"

check_os
check_python
if ! "$python_bin" -c 'import venv, ensurepip' 2>/dev/null; then
    die "$python_bin cannot create virtual environments: apt-get install python3-venv"
fi
if [ -n "$wheelhouse" ]; then
    [ -d "$wheelhouse" ] || die "no wheelhouse directory $wheelhouse"
    wheelhouse="$(cd "$wheelhouse" && pwd)"
    compgen -G "$wheelhouse/setuptools-*.whl" >/dev/null \
        || die "the wheelhouse $wheelhouse has no setuptools wheel (needed to build eduqa); make it with ./install.sh --make-wheelhouse DIR"
fi
if ! [[ "$port" =~ ^[0-9]{1,5}$ ]] || [ "$port" -lt 1 ] || [ "$port" -gt 65535 ]; then die "--port must be 1-65535"; fi
if [ -n "$memory_max" ] && ! [[ "$memory_max" =~ ^([0-9]+[KMGT]?|[0-9]{1,3}%|infinity)$ ]]; then
    die "--memory-max must look like 6G, 6144M, 75% or infinity (got '$memory_max')"
fi
if [ -n "$teacher_password_file" ] && [ "$teacher_password_file" != - ] && [ ! -r "$teacher_password_file" ]; then
    die "cannot read the teacher password file $teacher_password_file"
fi

# -- the service account -----------------------------------------------------------------------
if ! getent passwd "$svc_user" >/dev/null; then
    if [ -n "$prefix" ]; then
        die "no user '$svc_user' (with --prefix the installer never creates users)"
    fi
    say "creating the system user $svc_user"
    useradd --system --user-group --home-dir "$data_dir" --no-create-home \
        --shell /usr/sbin/nologin --comment "eduqa tutor daemon" "$svc_user"
fi
svc_group="$(id -gn "$svc_user")"

upgrade=0
if [ -x "$venv/bin/python" ]; then upgrade=1; fi
extra="$(resolve_engine)"
say "$([ "$upgrade" = 1 ] && echo upgrading || echo installing) eduqa in $opt_dir (engine extra: $extra)"

daemon_was_active=0
if [ "$systemd_running" = 1 ] && systemctl is-active --quiet eduqa.service; then
    daemon_was_active=1
    say "stopping eduqa.service for the upgrade"
    systemctl stop eduqa.service
fi

# -- directories -------------------------------------------------------------------------------
install -d -m 0755 "$opt_dir"
install -d -m 0750 "$etc_dir"
install -d -m 0750 "$data_dir" "$data_dir/backups"
if [ "$(id -u)" = 0 ]; then
    chown "root:$svc_group" "$etc_dir"
    chown "$svc_user:$svc_group" "$data_dir" "$data_dir/backups"
fi

# -- the venv and the package ------------------------------------------------------------------
target_version="$("$python_bin" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
if [ -x "$venv/bin/python" ]; then
    venv_version="$("$venv/bin/python" -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null || echo broken)"
    if [ "$venv_version" != "$target_version" ]; then
        say "the venv has Python $venv_version, rebuilding it with $target_version"
        rm -rf "${venv:?}"
    fi
fi
if [ ! -x "$venv/bin/python" ]; then
    say "creating the venv $venv with $("$python_bin" --version)"
    "$python_bin" -m venv "$venv"
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
copy_source "$work/src"
pip_cmd=("$venv/bin/python" -m pip install --disable-pip-version-check --no-input
         --upgrade --upgrade-strategy only-if-needed)
if [ "$verbose" = 0 ]; then pip_cmd+=(--quiet); fi
if [ -n "$wheelhouse" ]; then pip_cmd+=(--no-index --find-links "$wheelhouse"); fi
if [ -n "$torch_index" ]; then pip_cmd+=(--extra-index-url "$torch_index"); fi
say "installing eduqa and its dependencies$([ -n "$wheelhouse" ] && echo " from $wheelhouse (offline)")"
# torch pinned to the CPU build: it only exports MiniLM; an unpinned torch pulls GBs of CUDA wheels.
restart_old_daemon() {  # after a failed upgrade: bring back what was running, if it still starts
    if [ "$daemon_was_active" = 1 ]; then
        systemctl start eduqa.service || warn "eduqa.service does not start either: journalctl -u eduqa -n 50"
    fi
}
if ! "${pip_cmd[@]}" "$TORCH_PIN" "$(package_spec "$work/src" "$extra")"; then
    restart_old_daemon
    die "pip could not install eduqa (see above); fix the cause and run install.sh again (config and data are untouched)"
fi
if ! "$venv/bin/eduqa" --help >/dev/null; then
    restart_old_daemon
    die "the installed eduqa does not start: $venv/bin/eduqa --help"
fi
# A command on PATH for IT: the installed eduqa with this config (sudo eduqa backup, ...).
install -d -m 0755 "$bin_dir"
cat >"$work/eduqa" <<WRAPPER
#!/bin/sh
# Written by eduqa's install.sh: the appliance's eduqa with its configuration.
EDUQA_CONFIG="\${EDUQA_CONFIG:-$conf}"
HF_HUB_OFFLINE=1
TRANSFORMERS_OFFLINE=1
export EDUQA_CONFIG HF_HUB_OFFLINE TRANSFORMERS_OFFLINE
exec "$venv/bin/eduqa" "\$@"
WRAPPER
install -m 0755 "$work/eduqa" "$bin_dir/eduqa"
install -d -m 0755 "$opt_dir/docs"
for doc in OPERATIONS.md SECURITY.md; do
    if [ -f "$here/docs/$doc" ]; then install -m 0644 "$here/docs/$doc" "$opt_dir/docs/$doc"; fi
done

# -- configuration: written once, never overwritten --------------------------------------------
fresh_config=0
if [ -e "$conf" ]; then
    say "keeping the configuration $conf"
else
    fresh_config=1
    say "writing the configuration $conf"
    umask_was="$(umask)"
    umask 0027
    cat >"$conf.tmp" <<EOF
# eduqa configuration. Every key is optional; README.md lists them all.
# install.sh wrote this file once and never overwrites it.
data_dir = "$data_dir"

[server]
# 0.0.0.0: reachable from the school LAN. 127.0.0.1: this machine only.
host = "0.0.0.0"
port = $port
EOF
    umask "$umask_was"
    mv "$conf.tmp" "$conf"
fi
chmod 0640 "$conf"
if [ "$(id -u)" = 0 ]; then chown "root:$svc_group" "$conf"; fi

# -- the database: created (or checked) as the service user ------------------------------------
if ! run_as_service_user "$venv/bin/python" -c 'import appliance' 2>/dev/null; then
    die "the service user $svc_user cannot run $venv/bin/python: is $python_bin inside a home directory? use a system Python (--python /usr/bin/python3)"
fi
if ! run_as_service_user "${eduqa_env[@]}" "$venv/bin/eduqa" kb stats >/dev/null; then
    die "eduqa cannot open its database in $data_dir as $svc_user (see above)"
fi

# -- systemd units -----------------------------------------------------------------------------
units_changed=0
if [ "$use_systemd" = 1 ]; then
    install -d -m 0755 "$unit_dir"
    for unit in "${units[@]}"; do
        sed -e "s#/opt/eduqa#$opt_dir#g" -e "s#/etc/eduqa#$etc_dir#g" \
            -e "s#/var/lib/eduqa#$data_dir#g" \
            -e "s#^User=eduqa\$#User=$svc_user#" -e "s#^Group=eduqa\$#Group=$svc_group#" \
            "$here/systemd/$unit" >"$work/$unit"
        if ! cmp -s "$work/$unit" "$unit_dir/$unit"; then
            install -m 0644 "$work/$unit" "$unit_dir/$unit"
            units_changed=1
        fi
    done
    if [ -n "$memory_max" ]; then
        install -d -m 0755 "$dropin_dir"
        printf '# written by install.sh --memory-max\n[Service]\nMemoryMax=%s\n' "$memory_max" >"$work/10-memory.conf"
        if ! cmp -s "$work/10-memory.conf" "$dropin_dir/10-memory.conf"; then
            install -m 0644 "$work/10-memory.conf" "$dropin_dir/10-memory.conf"
            units_changed=1
        fi
    fi
fi

# -- the first teacher account -----------------------------------------------------------------
teacher_hint() {
    echo "    add one later: sudo -u $svc_user $bin_dir/eduqa teacher add NAME" >&2
}

read_teacher_password() {
    local again
    if [ -n "$teacher_password_file" ]; then
        if [ "$teacher_password_file" = - ]; then
            IFS= read -r teacher_password || true
        else
            IFS= read -r teacher_password <"$teacher_password_file" || true
        fi
        return
    fi
    [ -n "$teacher_password" ] && return
    if [ "$assume_yes" = 1 ] || [ ! -t 0 ]; then return; fi
    while :; do
        IFS= read -r -s -p "password for teacher $teacher: " teacher_password; echo
        IFS= read -r -s -p "again: " again; echo
        [ "$teacher_password" = "$again" ] && [ -n "$teacher_password" ] && return
        echo "the passwords are empty or differ; try again" >&2
    done
}

create_teacher() {
    if ! "$venv/bin/eduqa" teacher --help >/dev/null 2>&1; then
        if [ -n "$teacher" ]; then
            warn "this version of eduqa has no teacher accounts yet; '$teacher' was not created"
            teacher_hint
        fi
        return 0
    fi
    if [ -z "$teacher" ]; then
        if [ "$fresh_config" = 1 ] && [ "$assume_yes" = 0 ] && [ -t 0 ]; then
            read -r -p "first teacher account name (empty: none now): " teacher
        fi
        if [ -z "$teacher" ]; then
            if [ "$fresh_config" = 1 ]; then echo "note: no teacher account created" >&2; teacher_hint; fi
            return 0
        fi
    fi
    read_teacher_password
    if [ -z "$teacher_password" ]; then
        warn "no password for teacher '$teacher' (--teacher-password-file FILE, or run on a terminal): not created"
        teacher_hint
        return 0
    fi
    say "creating the teacher account $teacher"
    local add=("$venv/bin/eduqa" teacher add "$teacher") input
    if "$venv/bin/eduqa" teacher add --help 2>/dev/null | grep -q -- '--password-stdin'; then
        add+=(--password-stdin)
        input="$(printf '%s\n' "$teacher_password")"
    else  # an interactive prompt with confirmation reads both lines from standard input
        input="$(printf '%s\n%s\n' "$teacher_password" "$teacher_password")"
    fi
    if ! printf '%s\n' "$input" | run_as_service_user "${eduqa_env[@]}" "${add[@]}"; then
        warn "the teacher account '$teacher' was not created (see above)"
        teacher_hint
    fi
}
create_teacher

# -- start -------------------------------------------------------------------------------------
if [ "$systemd_running" = 1 ]; then
    if [ "$units_changed" = 1 ]; then systemctl daemon-reload; fi
    systemctl enable --quiet eduqa.service eduqa-backup.timer
    systemctl start eduqa-backup.timer
    # Engines are checked (and rebuilt if TensorRT or the driver changed) before the daemon.
    systemctl reset-failed eduqa.service eduqa-engines.service >/dev/null 2>&1 || true
    systemctl restart --no-block eduqa-engines.service
    systemctl restart --no-block eduqa.service
    say "starting eduqa (engines first; a first TensorRT build can take a while)"
    for _ in $(seq 1 60); do
        systemctl is-active --quiet eduqa.service && break
        sleep 1
    done
    state="$(systemctl is-active eduqa.service || true)"
    echo "    eduqa.service: $state"
    if [ "$state" = failed ]; then
        warn "the daemon did not start: journalctl -u eduqa -n 50"
    fi
elif [ "$live_system" = 1 ]; then
    warn "systemd is not running here: the units are installed but nothing was started"
fi
if [ "$daemon_was_active" = 1 ] && [ "$systemd_running" = 0 ]; then
    warn "eduqa.service was stopped for the upgrade"
fi

# -- where to find it --------------------------------------------------------------------------
read -r cfg_host cfg_port < <("$venv/bin/python" - "$conf" <<'PY'
import sys, tomllib
with open(sys.argv[1], "rb") as fh:
    server = tomllib.load(fh).get("server", {})
print(server.get("host", "127.0.0.1"), server.get("port", 8080))
PY
)
address="$(hostname -I 2>/dev/null | awk '{print $1}')"
case "$cfg_host" in
    0.0.0.0|::|"") : ;;
    *) address="$cfg_host" ;;
esac
[ -n "$address" ] || address="$(hostname)"
echo
say "eduqa is $([ "$upgrade" = 1 ] && echo upgraded || echo installed)"
echo "    students open:  http://$address:$cfg_port/"
if [ "$cfg_host" = 127.0.0.1 ] || [ "$cfg_host" = localhost ]; then
    echo "    (server.host in $conf is $cfg_host: only this machine can reach it)"
fi
echo "    config:         $conf"
echo "    data:           $data_dir"
if [ "$use_systemd" = 1 ] && [ -z "$prefix" ]; then
    echo "    status:         systemctl status eduqa"
    echo "    logs:           journalctl -u eduqa -f"
else
    echo "    start:          ${eduqa_env[*]:1} $venv/bin/eduqa serve"
fi
