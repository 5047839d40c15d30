# tollgate serve in a container (Node 20, non-root).
#
#   docker build -t tollgate .
#   docker run --rm -p 8787:8787 -v "$PWD/examples/service:/etc/tollgate:ro" \
#     -e OPENAI_API_KEY -e ANTHROPIC_API_KEY -e GEMINI_API_KEY tollgate
#
# The config is read from /etc/tollgate/tollgate.yaml (mount the folder that holds it and the
# files it names). The image listens on 0.0.0.0; the port is the config's listen.port.
# Other commands: docker run --rm -v …:/etc/tollgate:ro tollgate validate --config /etc/tollgate/tollgate.yaml

# Build: the packages, built and packed exactly as they would be published.
FROM node:20-slim AS build
WORKDIR /src
COPY package.json package-lock.json ./
COPY packages/policy/package.json packages/policy/
COPY packages/codecs/package.json packages/codecs/
COPY packages/core/package.json packages/core/
COPY packages/adapters-node/package.json packages/adapters-node/
COPY packages/adapters-edge/package.json packages/adapters-edge/
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.base.json tsconfig.json ./
COPY scripts ./scripts
COPY packages ./packages
RUN npm run build \
 && mkdir /packs \
 && npm pack --no-audit --pack-destination /packs -w @tollgate/policy -w @tollgate/codecs -w @tollgate/core -w @tollgate/adapters-node

# Run: the packed packages with their production dependencies, plus the Redis and Postgres
# clients (optional peers of @tollgate/adapters-node, needed for redis:// and postgres:// URLs).
FROM node:20-slim
ENV NODE_ENV=production PATH=/app/node_modules/.bin:$PATH
WORKDIR /app
COPY --from=build /packs /packs
RUN npm install --omit=dev --no-audit --no-fund --no-package-lock /packs/*.tgz ioredis@^5.8.0 pg@^8.16.0 \
 && rm -rf /packs /root/.npm \
 && mkdir -p /etc/tollgate
USER node
EXPOSE 8787
# SIGTERM drains open requests (drain_timeout_s), flushes usage and exits 0.
STOPSIGNAL SIGTERM
ENTRYPOINT ["tollgate"]
CMD ["serve", "--config", "/etc/tollgate/tollgate.yaml", "--host", "0.0.0.0"]
