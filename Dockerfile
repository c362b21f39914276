# syntax=docker/dockerfile:1
# longshore's image: `docker build -t longshore .` at the repository root (the build context is
# the repository, filtered by .dockerignore). One image for every process; the Deployments of
# infra/deploy choose the command (`worker`, `scheduler`, `serve`). docs/operations.md, "Image".
#
# test/integration/deploy-image/dockerfile.test.ts runs these steps in a clean copy of the
# repository (no Docker there) and starts the CLI from the runtime layout: change them together.

# --- build: every dependency (esbuild, TypeScript), then the CLI's bundle in dist/cli/.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` builds the CLI, which needs the sources copied below (built then);
# no dependency needs an install script (package.json "allowScripts").
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
# The bundle is what runs (bin/longshore.js without src/ takes dist/cli/current.json's build).
# tsc's dist/src (the rest of `npm run build`) is only the fallback of a package without a
# bundle, and type checking is CI's (`npm run lint`): not built here.
RUN node bin/build-cli.js

# --- production dependencies only, installed apart so npm's cache stays out of the image.
FROM node:20-bookworm-slim AS deps
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# --- runtime: production dependencies and the compiled output; no sources, no tsx.
FROM node:20-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
COPY --from=deps /app/node_modules/ ./node_modules/
COPY --from=build /app/bin/longshore.js /app/bin/cli-build-state.js ./bin/
COPY --from=build /app/dist/cli/ ./dist/cli/
# The node image's unprivileged user `node`, by number so a Pod's runAsNonRoot can check it.
USER 1000:1000
EXPOSE 8080 9464
ENTRYPOINT ["node", "/app/bin/longshore.js"]
CMD ["worker"]
