# The metadata service. Backends come from docker-compose.yml (or any Neo4j 5 / Elasticsearch 8 / OpenSearch 2).
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
# Two malloc arenas instead of glibc's eight per core: memory the service allocates outside the V8 heap (socket
# buffers, the search fragment cache) fragments less across threads; batch ingestion of 10,000 datasets peaked 11 MB
# lower, at no CPU cost (README, Configuration). npm start and npm run serve set the same.
ENV MALLOC_ARENA_MAX=2
# A young generation of 2 x 8 MB instead of V8's 2 x 16 MB: batch ingestion of 10,000 datasets (bench/ingest.ts c)
# peaked 17-23 MiB lower and single proposals (a) 23-31 MiB lower, for 4-9 % of their throughput (README, Configuration).
# Setting NODE_OPTIONS for the container replaces it. npm start and npm run serve set the same.
ENV NODE_OPTIONS=--max-semi-space-size=8
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts=false && npm cache clean --force
COPY tsconfig.json ./
COPY src ./src
COPY schema ./schema
COPY cypher ./cypher
# Only bundled into the token command (finding the local stack's Neo4j when NEO4J_URI is unset); never run here.
COPY stack ./stack
# Compiled once here: running the TypeScript through tsx held 30 MB more at idle and formatted stacks through source maps.
# Builds dist/main.js (the service) and dist/cli/token.js (`npm run token`'s equivalent: issue and revoke access tokens).
RUN npm run build
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=5 \
  CMD node -e "fetch('http://127.0.0.1:8080/health').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["node", "dist/main.js"]
