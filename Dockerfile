# Build stage: compiles TypeScript and, when no prebuilt binary fits, the sqlite3 addon.
FROM node:24-bookworm-slim AS build
WORKDIR /app
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ \
    && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts ./scripts
COPY src ./src
# Only what runs is kept: production dependencies, the compiled bot without its source maps (the
# TypeScript they point at is not in the image), and of the sqlite3 addon its binary alone, not the
# C sources, object files and archives of its compilation (about 20 MB).
RUN npm run build \
    && npm prune --omit=dev \
    && find dist -name '*.map' -delete && rm -f dist/.build-stamp \
    && rm -rf node_modules/sqlite3/deps node_modules/sqlite3/src \
    && find node_modules/sqlite3/build -mindepth 1 -maxdepth 1 ! -name Release -exec rm -rf {} + \
    && find node_modules/sqlite3/build/Release -mindepth 1 ! -name node_sqlite3.node -exec rm -rf {} + \
    && test -f node_modules/sqlite3/build/Release/node_sqlite3.node

# Runtime stage: the compiled bot and its production dependencies, as the unprivileged node user.
FROM node:24-bookworm-slim
ENV NODE_ENV=production \
    PORT=3000
# The usage chart's text: resvg draws with the system's fonts, and the slim image has none.
# IPA Gothic (12 MB) draws Japanese, which DejaVu has no glyphs for (the chart was blank there).
RUN apt-get update && apt-get install -y --no-install-recommends fonts-dejavu-core fonts-ipafont-gothic \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY --from=build /app/package.json ./
# npm run register:discord and npm run jobs run their pre-step (which finds dist/ built) first.
COPY --from=build /app/scripts ./scripts
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
RUN mkdir -p /app/data && chown node:node /app/data
USER node
# The sqlite store (bot.sqlite and its -wal and -shm files) lives here.
VOLUME ["/app/data"]
EXPOSE 3000
# The slim image has no curl: Node's own fetch asks the bot's /healthz.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
    CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT || 3000}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# node itself is PID 1, so `docker stop`'s SIGTERM reaches the bot's own handler (npm would not pass it on).
CMD ["node", "--max-old-space-size=512", "--max-semi-space-size=4", "dist/main.js"]
