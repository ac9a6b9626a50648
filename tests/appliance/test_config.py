from pathlib import Path

import pytest

from appliance.config import Config, ConfigError, load_config


def write(tmp_path, text):
    path = tmp_path / "eduqa.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_without_a_file(monkeypatch):
    monkeypatch.delenv("EDUQA_CONFIG", raising=False)
    monkeypatch.delenv("EDUQA_DATA_DIR", raising=False)
    config = load_config()
    assert config == Config()
    assert config.encoder.model == "use-m3"
    assert config.bank.demo_bank is True
    assert config.db_path == Path("data") / "eduqa.db"


def test_file_overrides_by_section(tmp_path):
    path = write(tmp_path, 'data_dir = "/srv/eduqa"\n[encoder]\nmodel = "minilm"\n[search]\nabstain_below = 1\n')
    config = load_config(path)
    assert config.data_dir == Path("/srv/eduqa")
    assert config.encoder.model == "minilm"
    assert config.search.abstain_below == 1.0
    assert config.server.port == 8080  # untouched default


def test_env_vars_name_the_file_and_data_dir(tmp_path, monkeypatch):
    path = write(tmp_path, "[server]\nport = 9000\n")
    monkeypatch.setenv("EDUQA_CONFIG", str(path))
    monkeypatch.setenv("EDUQA_DATA_DIR", str(tmp_path / "d"))
    config = load_config()
    assert config.server.port == 9000
    assert config.data_dir == tmp_path / "d"


def test_data_dir_argument_beats_the_file(tmp_path):
    path = write(tmp_path, 'data_dir = "/elsewhere"\n')
    assert load_config(path, tmp_path).data_dir == tmp_path


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("[search]\nabstain_bellow = 0.3\n", "search.abstain_bellow"),
        ("[nonsense]\nx = 1\n", "nonsense"),
        ("[server]\nport = \"eighty\"\n", "server.port"),
        ("[server]\nport = true\n", "server.port"),
        ("[search]\nabstain_below = 3.0\n", "between 0 and 1"),
        ("encoder = 5\n", "[encoder] must be a table"),
        ("this is not toml", "not valid TOML"),
    ],
)
def test_bad_files_name_the_problem(tmp_path, text, fragment):
    with pytest.raises(ConfigError, match=None) as info:
        load_config(write(tmp_path, text))
    assert fragment in str(info.value)


def test_missing_file(tmp_path):
    with pytest.raises(ConfigError, match="not found"):
        load_config(tmp_path / "absent.toml")


def test_encoder_choices_match_the_engines_sentence_encoders():
    from appliance.config import ENCODER_MODELS
    from engines.recipes import default_recipes

    encoders = {r.id for r in default_recipes().values() if r.task == "sentence-encoder"}
    assert set(ENCODER_MODELS) == encoders

def _leaf_keys(cls, prefix=""):
    import dataclasses

    for f in dataclasses.fields(cls):
        if dataclasses.is_dataclass(f.type) or (isinstance(f.default_factory, type)
                                                and dataclasses.is_dataclass(f.default_factory)):
            yield from _leaf_keys(f.default_factory, f"{prefix}{f.name}.")
        else:
            yield prefix + f.name


def test_readme_documents_every_key_in_one_configuration_table():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("\n## Configuration\n", 1)[1].split("\n## ", 1)[0]
    lines = section.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| key |"))
    table = []
    for line in lines[start + 2:]:  # a blank line ends a Markdown table: rows after it are not in it
        if not line.startswith("|"):
            break
        table.append(line.split("|")[1].strip().strip("`"))
    assert len(table) == len(set(table))
    assert sorted(table) == sorted(_leaf_keys(Config))
