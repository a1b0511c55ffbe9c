# One image for both roles: `web` (default) or `worker`. See docs/deploy.md.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json turbo.json tsconfig.json ./
COPY apps ./apps
COPY packages ./packages
COPY examples ./examples
COPY drizzle ./drizzle
COPY vendor ./vendor
RUN npm ci --no-audit --no-fund
RUN npm run build && rm -rf apps/web/.next/cache
# Dependencies stay whole: the worker and the workspace packages run as TypeScript through tsx
# (decision 0001), which is a development dependency by npm's reckoning.

FROM node:20-bookworm-slim
RUN apt-get update \
  && apt-get install -y --no-install-recommends espeak-ng ffmpeg pocketsphinx pocketsphinx-en-us tini \
  && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production PORT=3000 WS_PORT=3001 LOG_FORMAT=json NEXT_TELEMETRY_DISABLED=1
WORKDIR /app
COPY --from=build --chown=node:node /app /app
USER node
EXPOSE 3000 3001
# tini forwards SIGTERM to the one node process, which stops gracefully.
ENTRYPOINT ["tini", "--", "./docker-entrypoint.sh"]
CMD ["web"]
