# Remi online server image: `docker compose up` runs it with PostgreSQL and Redis.

# 1. The browser client (served by the app at / from web/dist). Its Node is the project's
# (web/package.json "engines"; scripts/check_image.py checks they agree).
FROM node:22-slim AS web
WORKDIR /src/web
COPY web/package.json web/package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY web/ ./
# The build packs the server's pure Python for the offline practice: it reads ../server
# (web/scripts/pack-python.mjs), so the stage holds the repository's layout.
COPY server/ ../server/
RUN npm run build

# 2. The server.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
RUN useradd --create-home --uid 10001 remi \
    && mkdir -p /data \
    && chown remi:remi /data

# Dependencies first (cached while only the code changes), then the code.
COPY pyproject.toml README.md constraints.txt ./
RUN mkdir server && touch server/__init__.py \
    && pip install -c constraints.txt . \
    && pip uninstall -y remi-online \
    && rm -rf server build
COPY server ./server
COPY migrations ./migrations
COPY alembic.ini ./
RUN pip install --no-deps .
COPY --from=web /src/web/dist ./web/dist

ENV REMI_DATA_DIR=/data \
    REMI_HOST=0.0.0.0 \
    REMI_PORT=8000 \
    REMI_MIGRATIONS_DIR=/app/migrations

USER remi
VOLUME ["/data"]
EXPOSE 8000

HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=5 \
    CMD ["python", "-c", "import os, sys, urllib.request; port = os.environ.get('REMI_PORT', '8000'); sys.exit(0 if urllib.request.urlopen(f'http://127.0.0.1:{port}/readyz', timeout=4).status == 200 else 1)"]

# `serve` applies the migrations, then runs uvicorn on REMI_HOST:REMI_PORT.
CMD ["python", "-m", "server.cli", "serve"]
