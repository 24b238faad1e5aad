"""The user's settings, loaded once: where CourtStudio keeps its files (``home``) and where the
user's licensed models live (SMPL-X, SAM3, PromptHMR). Qt-free.

Read from the user's settings file (``HOME/settings.ini``, written by the app's File >
Preferences) and the environment; an environment variable that is set wins over the file
(``Settings.from_environment`` names those fields, so Preferences can show them locked).
Whoever needs a setting is handed this object (the app's player workflow, a dataset build's
players stage); nothing writes settings into ``os.environ`` any more.
"""

from __future__ import annotations

import configparser
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Mapping

HOME_ENV = "COURTSTUDIO_HOME"
SETTINGS_FILE = "settings.ini"
# field: (environment variable, key in the settings file or None)
MODEL_PATHS = {
    "smplx_dir": ("COURTSTUDIO_SMPLX_DIR", "paths/smplx_dir"),
    "sam3_checkpoint": ("COURTSTUDIO_SAM3_CHECKPOINT", "paths/sam3_checkpoint"),
    "sam3_bpe": ("COURTSTUDIO_SAM3_BPE", None),
    "prompthmr_dir": ("COURTSTUDIO_PROMPTHMR_DIR", "paths/prompthmr_dir"),
    # a folder of the user's court specs, searched before the bundled ones (court_specs.loader)
    "specs_dir": ("COURTSTUDIO_SPECS_DIR", "paths/specs_dir"),
}


def user_home(environ: Mapping[str, str] | None = None) -> Path:
    """``$COURTSTUDIO_HOME``, default ``~/.courtstudio``: the one place this default is."""
    environ = os.environ if environ is None else environ
    return Path(environ.get(HOME_ENV) or Path.home() / ".courtstudio")


@dataclass(frozen=True)
class Settings:
    """home: CourtStudio's folder (sample copy, settings file, model caches). The model paths
    are strings as the user typed them, None when not set."""

    home: Path
    smplx_dir: str | None = None
    sam3_checkpoint: str | None = None
    sam3_bpe: str | None = None
    prompthmr_dir: str | None = None
    specs_dir: str | None = None
    from_environment: frozenset[str] = frozenset()  # fields set by an environment variable

    @property
    def settings_file(self) -> Path:
        return self.home / SETTINGS_FILE

    @property
    def anny_cache_dir(self) -> Path:
        """Where the Anny body model keeps its cache (hmr/anny_body.py)."""
        return self.home / "anny_cache"

    @classmethod
    def load(
        cls,
        environ: Mapping[str, str] | None = None,
        stored: Callable[[str], str | None] | None = None,
    ) -> Settings:
        """The settings from the environment (default ``os.environ``) over the stored ones:
        ``stored(key)`` gives a settings-file value ("paths/smplx_dir"), by default read from
        ``HOME/settings.ini`` (the app passes its own reader of the same file)."""
        environ = os.environ if environ is None else environ
        home = user_home(environ)
        if stored is None:
            stored = _ini_reader(home / SETTINGS_FILE)
        values, from_env = {}, set()
        for field, (env, key) in MODEL_PATHS.items():
            if environ.get(env):
                values[field] = environ[env]
                from_env.add(field)
            else:
                values[field] = (stored(key) if key else None) or None
        return cls(home, **values, from_environment=frozenset(from_env))


def _ini_reader(path: Path) -> Callable[[str], str | None]:
    """``key -> value`` over a QSettings INI file ("group/name" keys; values as written for
    plain strings, with QSettings' quoting of values holding commas undone). An unreadable
    or missing file reads as empty."""
    parser = configparser.ConfigParser(interpolation=None)
    parser.optionxform = str  # keys keep their case
    try:
        parser.read(path, encoding="utf-8")
    except (OSError, UnicodeError, configparser.Error):
        parser = configparser.ConfigParser(interpolation=None)

    def read(key: str) -> str | None:
        group, _, name = key.rpartition("/")
        value = parser.get(group or "General", name, fallback=None)
        if value is None:
            return None
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        return value.replace("\\\\", "\\")

    return read
