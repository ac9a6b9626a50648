"""A wheelhouse for ``install.sh --wheelhouse`` built offline from the dev venv.

The install test must not touch the network, so it cannot ``pip download``. Instead every
distribution eduqa needs at run time (its ``[project].dependencies`` in pyproject.toml,
followed through the installed metadata) is packed back into a wheel from the files its
installed ``RECORD`` lists, plus ``setuptools`` (the build backend an offline install
needs to build eduqa itself). The wheels are stored uncompressed: building the wheelhouse
is then bounded by disk speed, not by zlib.
"""

from __future__ import annotations

import base64
import csv
import hashlib
import importlib.metadata as md
import io
import re
import sys
import tomllib
import zipfile
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement

REPO = Path(__file__).resolve().parents[2]
SKIP_META = {"INSTALLER", "REQUESTED", "RECORD", "direct_url.json"}


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def runtime_closure(extras: tuple[str, ...] = ()) -> dict[str, md.Distribution]:
    """Installed distributions eduqa needs at run time (plus extras), keyed by canonical name."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = list(project["dependencies"]) + [r for e in extras for r in project["optional-dependencies"].get(e, [])]
    wanted.append("setuptools>=68")  # the build backend of the offline install
    found: dict[str, md.Distribution] = {}
    missing: list[str] = []

    seen: set[tuple[str, str]] = set()

    def visit(requirement: str, extra: str = "") -> None:
        req = Requirement(requirement)
        if req.marker and not req.marker.evaluate({**default_environment(), "extra": extra}):
            return
        key = canonical(req.name)
        if key not in found:
            try:
                found[key] = md.distribution(req.name)
            except md.PackageNotFoundError:
                missing.append(str(req))
                return
        for wanted_extra in ("", *sorted(req.extras)):
            if (key, wanted_extra) in seen:
                continue
            seen.add((key, wanted_extra))
            for sub in found[key].requires or []:
                visit(sub, wanted_extra)

    for requirement in wanted:
        visit(requirement)
    if missing:
        raise RuntimeError(f"the dev venv lacks {', '.join(missing)}: run ./install.sh --dev again")
    return found


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


def _tag(wheel_meta: str) -> str:
    tags = [line.split(":", 1)[1].strip() for line in wheel_meta.splitlines() if line.startswith("Tag:")]
    if not tags:
        return "py3-none-any"
    parts = [sorted({t.split("-")[i] for t in tags}) for i in range(3)]
    return "-".join(".".join(p) for p in parts)


def rewheel(dist: md.Distribution, out_dir: Path) -> Path:
    """Pack an installed distribution back into a wheel in ``out_dir``."""
    info_dir = Path(dist._path)  # type: ignore[attr-defined]  # the .dist-info directory
    site = info_dir.parent
    prefix = Path(sys.prefix)
    stem = info_dir.name[: -len(".dist-info")]  # name-version exactly as installed
    wheel_meta = (info_dir / "WHEEL").read_text() if (info_dir / "WHEEL").exists() else \
        "Wheel-Version: 1.0\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    target = out_dir / f"{stem}-{_tag(wheel_meta)}.whl"
    if target.exists():
        return target
    console = {ep.name for ep in dist.entry_points if ep.group in ("console_scripts", "gui_scripts")}
    records = []
    partial = target.with_suffix(".partial")
    with zipfile.ZipFile(partial, "w", compression=zipfile.ZIP_STORED) as zf:
        def add(arcname: str, data: bytes) -> None:
            zf.writestr(zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0)), data)
            records.append((arcname, _record_hash(data), str(len(data))))

        for row in csv.reader(io.StringIO((info_dir / "RECORD").read_text())):
            if not row:
                continue
            rel = row[0]
            source = (site / rel).resolve()
            if "__pycache__" in rel or not source.is_file():
                continue
            if rel.startswith(info_dir.name + "/") and Path(rel).name in SKIP_META:
                continue
            if rel.startswith("../"):
                try:
                    outside = source.relative_to(prefix.resolve())
                except ValueError:
                    continue
                if outside.parts[0] == "bin":
                    if outside.name in console:
                        continue  # pip writes console scripts itself from entry_points.txt
                    data = source.read_bytes()
                    if data.startswith(b"#!") and b"python" in data.split(b"\n", 1)[0]:
                        data = b"#!python\n" + data.split(b"\n", 1)[1]
                    add(f"{stem}.data/scripts/{outside.name}", data)
                else:
                    add(f"{stem}.data/data/{outside.as_posix()}", source.read_bytes())
                continue
            add(rel, source.read_bytes())
        if not any(r[0] == f"{info_dir.name}/WHEEL" for r in records):
            add(f"{info_dir.name}/WHEEL", wheel_meta.encode())
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerows(records)
        writer.writerow((f"{info_dir.name}/RECORD", "", ""))
        zf.writestr(f"{info_dir.name}/RECORD", buffer.getvalue())
    partial.rename(target)
    return target


def build_wheelhouse(out_dir: Path, extras: tuple[str, ...] = ()) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    return [rewheel(dist, out_dir) for key, dist in sorted(runtime_closure(extras).items())
            if key not in ("eduqa", "pip")]


if __name__ == "__main__":
    import time

    started = time.monotonic()
    wheels = build_wheelhouse(Path(sys.argv[1]))
    print(f"{len(wheels)} wheels in {time.monotonic() - started:.1f} s")
