"""The appliance's one typed configuration.

Every setting has a default; a TOML file (``--config`` or ``EDUQA_CONFIG``) overrides
any of them by section. Unknown sections or keys and values of the wrong type are
reported as :class:`ConfigError` with the offending name, never silently ignored.
"""

from __future__ import annotations

import dataclasses
import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args, get_origin, get_type_hints

from appliance.ocr.settings import OcrSettings
from appliance.ui_config import UiConfig, UiConfigError, check_ui_config

ENV_CONFIG = "EDUQA_CONFIG"
ENV_DATA_DIR = "EDUQA_DATA_DIR"


class ConfigError(ValueError):
    """The configuration file is missing, unreadable or holds a bad key or value."""


@dataclass(frozen=True)
class ServerConfig:
    host: str = "127.0.0.1"
    port: int = 8080
    # /docs: a plain offline page of the API's routes (nothing loaded from a CDN). Off by default.
    api_docs: bool = False


#: The sentence encoders eduqa can serve (``encoder.model``); engines' recipes of task
#: "sentence-encoder" (a test keeps the two in step).
ENCODER_MODELS = ("use-m3", "minilm")


@dataclass(frozen=True)
class EncoderConfig:
    # "use-m3" (default, Chinese + English), "minilm" (English-only alternative).
    model: str = "use-m3"
    # Longest token sequence fed to the encoder; longer questions are cut.
    max_tokens: int = 128
    # ONNX Runtime intra-op threads; 0 lets ONNX Runtime pick (all cores).
    threads: int = 0
    # Serve through the engines manager: a verified TensorRT engine where `eduqa engines
    # ensure` built one, else ONNX Runtime at the precision it chose (dynamic INT8 where that
    # passed the accuracy gate and is faster). false: ONNX Runtime FP32, nothing else.
    engines: bool = True


ENGINE_PRECISIONS = ("auto", "fp32", "fp16", "int8")


def _known_flavours() -> tuple[str, ...]:
    from engines.accelerators import ACCELERATORS

    return tuple(ACCELERATORS)


def _known_models() -> tuple[str, ...]:
    from engines.recipes import MODEL_IDS

    return MODEL_IDS


@dataclass(frozen=True)
class EnginesConfig:
    # Accelerators, most wanted first: each model is served by the first that runs here and has
    # what it needs (a verified engine); ONNX Runtime on the CPU is always the last resort.
    # Read by `eduqa engines ensure` (what to build) and the daemon (what to serve).
    # Default: every registered accelerator, in the registry's order (engines/accelerators).
    flavours: tuple[str, ...] = field(default_factory=_known_flavours)
    # Precision per model id ("auto", "fp32", "fp16", "int8"); models not named are "auto":
    # builds use the model's own precision, serving takes the verified engine that was built.
    precision: dict[str, str] = field(default_factory=dict)
    # Concurrent CUDA streams (execution contexts) per engine.
    streams: int = 1
    # Without a GPU, build TensorRT-RTX engines ahead of time for this compute capability
    # (e.g. "8.6", for another box); "": build no engine that could not run here.
    aot_compute_capability: str = ""

    def __post_init__(self) -> None:
        known = _known_flavours()
        unknown = [f for f in self.flavours if f not in known]
        if unknown or not self.flavours:
            raise ConfigError(f"engines.flavours: unknown flavour(s) {', '.join(map(repr, unknown)) or '(empty list)'};"
                              f" known: {', '.join(known)}")
        models = _known_models()
        bad_models = [m for m in self.precision if m not in models]
        if bad_models:
            raise ConfigError(f"engines.precision: unknown model(s) {', '.join(map(repr, bad_models))}; "
                              f"known: {', '.join(models)}")
        bad = {m: p for m, p in self.precision.items() if p not in ENGINE_PRECISIONS}
        if bad:
            raise ConfigError(f"engines.precision: {', '.join(f'{m} = {p!r}' for m, p in bad.items())}; "
                              f"choose {', '.join(ENGINE_PRECISIONS)}")
        if self.streams < 1:
            raise ConfigError("engines.streams must be at least 1")
        if self.aot_compute_capability and not re.fullmatch(r"\d+\.\d+", self.aot_compute_capability):
            raise ConfigError(f"engines.aot_compute_capability must look like '8.6', got {self.aot_compute_capability!r}")


@dataclass(frozen=True)
class SearchConfig:
    # Candidates taken from each signal (dense cosine, FTS5 BM25) before fusion.
    candidates: int = 20
    # Abstain below this confidence even where the calibrated threshold (verifier.json) is lower.
    abstain_below: float = 0.0
    # Similar questions shown on the answer card.
    similar: int = 3


@dataclass(frozen=True)
class AskConfig:
    # Questions longer than this (characters) are cut, and the card says so.
    max_question_chars: int = 2000
    # Answers to recent questions kept in memory, keyed by normalised text.
    cache_size: int = 1024
    # Photos students sent are kept this many days under <data_dir>/photos (0: not kept).
    photo_retention_days: int = 90


@dataclass(frozen=True)
class ServingConfig:
    # Micro-batching in front of the encoder: a batch runs when this many asks wait...
    batch_max: int = 32
    # ...or when the oldest has waited this long.
    batch_wait_ms: float = 2.0
    # Asks waiting for the encoder beyond this are refused at once with 503 + Retry-After.
    queue_max: int = 256
    # An ask not answered within this many seconds fails with 503.
    deadline_s: float = 10.0
    # Text asks in flight at most; beyond this, or when the predicted wait exceeds
    # deadline_s, an ask is refused at once with 503 + Retry-After.
    max_in_flight: int = 128
    # Largest request body, and largest photo, in bytes.
    max_body_bytes: int = 16 * 1024 * 1024
    max_photo_bytes: int = 15 * 1024 * 1024
    # Per client address. A whole class behind one NAT address shares one budget, so the
    # default allows 600 asks a minute (bursts of 120) from one address.
    rate_per_minute: int = 600
    rate_burst: int = 120
    # numpy's BLAS threads in the daemon (the batched dense search). 1 leaves the cores to
    # the encoder and the requests: idle BLAS worker threads spin and take CPU from them.
    blas_threads: int = 1
    # glibc malloc arenas in the daemon (0: glibc's default, 8 per core). Few arenas keep
    # the memory of many request threads from creeping up.
    malloc_arenas: int = 2


@dataclass(frozen=True)
class BackupConfig:
    # Where `eduqa backup` (and the nightly timer) writes; "" means <data_dir>/backups.
    dir: str = ""
    # Backups older than this many days are deleted (the newest is always kept).
    keep_days: int = 14


@dataclass(frozen=True)
class BankConfig:
    # Load the bundled demo bank when the daemon starts with an empty bank.
    demo_bank: bool = True


@dataclass(frozen=True)
class Config:
    data_dir: Path = Path("data")
    server: ServerConfig = field(default_factory=ServerConfig)
    encoder: EncoderConfig = field(default_factory=EncoderConfig)
    search: SearchConfig = field(default_factory=SearchConfig)
    ask: AskConfig = field(default_factory=AskConfig)
    bank: BankConfig = field(default_factory=BankConfig)
    serving: ServingConfig = field(default_factory=ServingConfig)
    ocr: OcrSettings = field(default_factory=OcrSettings)
    engines: EnginesConfig = field(default_factory=EnginesConfig)
    ui: UiConfig = field(default_factory=UiConfig)
    backup: BackupConfig = field(default_factory=BackupConfig)

    @property
    def db_path(self) -> Path:
        return self.data_dir / "eduqa.db"

    @property
    def cache_dir(self) -> Path:
        return self.data_dir / "cache"

    @property
    def engine_dir(self) -> Path:
        return self.data_dir / "engines"


def load_config(path: str | Path | None = None, data_dir: str | Path | None = None) -> Config:
    """Build the configuration: defaults, then the TOML file, then the data-dir override.

    ``path`` falls back to ``$EDUQA_CONFIG``; ``data_dir`` to ``$EDUQA_DATA_DIR``.
    """
    path = path or os.environ.get(ENV_CONFIG)
    raw: dict[str, Any] = _read_toml(Path(path)) if path else {}
    config = _build(Config, raw, "")
    data_dir = data_dir or os.environ.get(ENV_DATA_DIR)
    if data_dir:
        config = dataclasses.replace(config, data_dir=Path(data_dir))
    _check(config)
    return config


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from None


def _build(cls: type, raw: dict[str, Any], prefix: str) -> Any:
    hints = get_type_hints(cls)
    names = {f.name for f in dataclasses.fields(cls)}
    unknown = sorted(set(raw) - names)
    if unknown:
        raise ConfigError(f"unknown config key(s): {', '.join(prefix + k for k in unknown)}")
    values: dict[str, Any] = {}
    for name, value in raw.items():
        kind = hints[name]
        where = prefix + name
        if dataclasses.is_dataclass(kind):
            if not isinstance(value, dict):
                raise ConfigError(f"[{where}] must be a table")
            try:
                values[name] = _build(kind, value, where + ".")
            except ConfigError:
                raise
            except ValueError as exc:  # a section's own validation
                raise ConfigError(str(exc)) from None
        else:
            values[name] = _coerce(kind, value, where)
    return cls(**values)


def _coerce(kind: Any, value: Any, where: str) -> Any:
    origin = get_origin(kind)
    if origin is tuple:  # tuple[str, ...] from a TOML array
        item = get_args(kind)[0]
        if not isinstance(value, list) or not all(isinstance(v, item) for v in value):
            raise ConfigError(f"{where} must be a list of {item.__name__}, got {value!r}")
        return tuple(value)
    if origin is dict:  # dict[str, str] from a TOML table
        item = get_args(kind)[1]
        if not isinstance(value, dict) or not all(isinstance(v, item) for v in value.values()):
            raise ConfigError(f"{where} must be a table of {item.__name__} values, got {value!r}")
        return dict(value)
    if kind is Path:
        if not isinstance(value, str):
            raise ConfigError(f"{where} must be a path string")
        return Path(value)
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if kind is int and isinstance(value, bool):
        raise ConfigError(f"{where} must be an integer, got {value!r}")
    if not isinstance(value, kind):
        raise ConfigError(f"{where} must be {kind.__name__}, got {value!r}")
    return value


def _check(config: Config) -> None:
    if not 0.0 <= config.search.abstain_below <= 1.0:
        raise ConfigError("search.abstain_below must be between 0 and 1")
    if config.encoder.model not in ENCODER_MODELS:
        raise ConfigError(f"encoder.model must be one of {', '.join(ENCODER_MODELS)} "
                          f"(got {config.encoder.model!r})")
    if not 8 <= config.encoder.max_tokens <= 512:
        raise ConfigError("encoder.max_tokens must be between 8 and 512")
    if config.ask.max_question_chars < 10:
        raise ConfigError("ask.max_question_chars must be at least 10")
    if not 1 <= config.server.port <= 65535:
        raise ConfigError("server.port must be between 1 and 65535")
    try:
        check_ui_config(config.ui)
    except UiConfigError as exc:
        raise ConfigError(str(exc)) from None
    if config.backup.keep_days < 1:
        raise ConfigError("backup.keep_days must be at least 1")
    serving = config.serving
    if serving.batch_max < 1 or serving.queue_max < 1 or serving.batch_wait_ms < 0 or serving.deadline_s <= 0:
        raise ConfigError("serving.batch_max and serving.queue_max must be ≥ 1, batch_wait_ms ≥ 0, deadline_s > 0")
    if serving.max_in_flight < 1:
        raise ConfigError("serving.max_in_flight must be ≥ 1")
    if serving.rate_per_minute < 1 or serving.rate_burst < 1:
        raise ConfigError("serving.rate_per_minute and serving.rate_burst must be ≥ 1")
    if config.search.candidates < 1 or config.search.similar < 0:
        raise ConfigError("search.candidates must be ≥ 1 and search.similar ≥ 0")
