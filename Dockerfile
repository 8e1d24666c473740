# Arbitro, the Discord bot. With compose: `docker compose up -d` (see compose.yaml and
# docs/self-hosting.md). Alone: docker run --init -e DISCORD_TOKEN=… -v arbitro:/data arbitro
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    ARBITRO_DB=/data/arbitro.db

WORKDIR /app

# The exact, hash-checked dependency versions first (a layer that changes only with the
# lock), then the project itself without resolving anything again.
COPY requirements.lock ./
RUN pip install --no-cache-dir --require-hashes -r requirements.lock
COPY pyproject.toml README.md ./
COPY rules ./rules
COPY db ./db
COPY bot ./bot
RUN pip install --no-cache-dir --no-deps . \
    && useradd --create-home --uid 10001 arbitro \
    && mkdir -p /data /backups && chown arbitro:arbitro /data /backups

USER arbitro
VOLUME ["/data"]

# `docker stop` sends SIGTERM; the bot handles it itself (also as PID 1, without --init):
# it refuses new commands, lets running ones finish, disconnects and closes the database
# in well under 2 s.
STOPSIGNAL SIGTERM

# Constant cost: a recent gateway heartbeat (stamped by the bot every 15 s while
# connected) and a database that opens and answers. The full audit of every game's hash
# chain is a command to run on demand or on a schedule: `arbitro db check`.
HEALTHCHECK --interval=30s --timeout=10s --start-period=60s --retries=3 \
    CMD ["arbitro-health"]

ENTRYPOINT ["arbitro"]
CMD ["run"]
