"""compose.postgres.yaml: the shards cover the guilds once, each process has its own state,
and every bot process reaches the same PostgreSQL database."""

from __future__ import annotations

from pathlib import Path

import yaml

from bot.app.settings import Settings, beside_database

COMPOSE = Path(__file__).resolve().parents[3] / "compose.postgres.yaml"


def test_bot_processes_split_the_shards_and_share_one_database() -> None:
    spec = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    services = spec["services"]
    bots = {name: service for name, service in services.items() if name.startswith("bot-")}
    assert len(bots) >= 2
    counts = {int(bot["environment"]["ARBITRO_SHARD_COUNT"]) for bot in bots.values()}
    assert counts == {len(bots)}
    shard_ids = sorted(int(bot["environment"]["ARBITRO_SHARD_IDS"]) for bot in bots.values())
    assert shard_ids == list(range(len(bots)))  # every shard once
    urls = {bot["environment"]["ARBITRO_DB"] for bot in bots.values()}
    assert len(urls) == 1 and next(iter(urls)).startswith("postgresql://")
    assert "@postgres/" in next(iter(urls)) and "postgres" in services
    # Each process keeps its heartbeat and sync record in a volume of its own.
    volumes = [tuple(bot["volumes"]) for bot in bots.values()]
    assert len(set(volumes)) == len(bots)
    assert all(bot["working_dir"] == "/data" for bot in bots.values())
    assert all(
        bot["depends_on"]["postgres"]["condition"] == "service_healthy" for bot in bots.values()
    )


def test_settings_read_a_postgres_url_and_the_shards(monkeypatch) -> None:
    monkeypatch.setenv("ARBITRO_DB", "postgresql://arbitro:pw@postgres/arbitro")
    monkeypatch.setenv("ARBITRO_SHARD_COUNT", "4")
    monkeypatch.setenv("ARBITRO_SHARD_IDS", "1, 3")
    settings = Settings()
    assert settings.db == "postgresql://arbitro:pw@postgres/arbitro"  # the // survives
    assert (settings.shard_count, settings.shard_id_list()) == (4, [1, 3])
    assert settings.sync_choice() is None
    # No file to sit beside: the process's working directory.
    assert beside_database(settings.db, ".heartbeat") == Path("arbitro.heartbeat")
    assert beside_database("sqlite:///games/a.db", ".heartbeat") == Path("games/a.db.heartbeat")


def test_bad_shard_ids_are_one_line_naming_the_variable(monkeypatch) -> None:
    import pytest

    from bot.app.settings import SettingsError, load_settings

    monkeypatch.setenv("ARBITRO_SHARD_IDS", "0,one")
    with pytest.raises(SettingsError, match=r"^ARBITRO_SHARD_IDS: "):
        load_settings()
    monkeypatch.setenv("ARBITRO_SHARD_IDS", "")
    monkeypatch.setenv("ARBITRO_SHARD_COUNT", "0")
    with pytest.raises(SettingsError, match=r"^ARBITRO_SHARD_COUNT: "):
        load_settings()
