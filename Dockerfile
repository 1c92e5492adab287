# The Nature Profile API. Build: docker build -t nature-profile-api .
# Node 24 is the LTS line supported until April 2028 (Node 20 ended in April 2026); the code itself still
# runs on Node >= 20.19 (package.json "engines"). An exact version, so a rebuild gets the same runtime:
# bump it deliberately, in both stages.
FROM node:24.11.1-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 (the key store, and the embedded backends) compiles with node-gyp.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
# The workspaces' manifests, so npm ci installs their dependencies too (esbuild builds the web component).
COPY packages/client/package.json ./packages/client/
COPY packages/embed/package.json ./packages/embed/
COPY patches ./patches
# Scripts wait until the sources are in: `prepare` builds them. patch-package applies patches/ (fixes to the
# PostgreSQL driver that a failover needs; `postinstall` does it where scripts run).
RUN npm ci --ignore-scripts && npm rebuild better-sqlite3 && npx patch-package
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY packages/embed ./packages/embed
# The client is built after the component and before the server: its types come from the app's own OpenAPI
# document (the app serves the component and renders the docs);
# `nature listen` and `nature trigger` call the API through it.
COPY packages/client ./packages/client
COPY docs ./docs
RUN npm run build && npm prune --omit=dev

FROM node:24.11.1-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 NATURE_DATA_DIR=/data
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The <nature-assessment> module, served at /v1/embed/nature-assessment.js.
COPY --from=build /app/packages/embed/dist ./packages/embed/dist
COPY --from=build /app/packages/client/package.json ./packages/client/
COPY --from=build /app/packages/client/dist ./packages/client/dist
COPY bin ./bin
# The guides under /docs are rendered from these at start-up.
COPY docs ./docs
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --retries=6 CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/readyz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "dist/src/server/main.js"]
