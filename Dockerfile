# Arbitro: the Discord bot. docker run -e DISCORD_TOKEN=… -v arbitro:/data arbitro
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    ARBITRO_DB=/data/arbitro.db

WORKDIR /app
COPY pyproject.toml README.md ./
COPY rules ./rules
COPY db ./db
COPY bot ./bot
RUN pip install --no-cache-dir . \
    && useradd --create-home --uid 10001 arbitro \
    && mkdir -p /data && chown arbitro:arbitro /data

USER arbitro
VOLUME ["/data"]

# Healthy when the database opens and passes its integrity and hash-chain checks.
HEALTHCHECK --interval=60s --timeout=20s --start-period=20s --retries=3 \
    CMD ["arbitro", "db", "check"]

ENTRYPOINT ["arbitro"]
CMD ["run"]
