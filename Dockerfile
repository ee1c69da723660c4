# syntax=docker/dockerfile:1
#
# The collector's image: the packed npm package (what `npm pack` puts in it: dist/ and
# package.json), its production dependencies, and Node.js on distroless, as uid 65532.
# test/integration/chart.test.ts replays these stages without Docker and runs the result.
# docs/image.md tells how to build it yourself.

# Node.js 24: an LTS line, with a distroless image of the same major. Named by tag: the
# release workflow (.github/workflows/release.yml) resolves each tag to its digest when it
# builds, passes `name:tag@digest` as these arguments, and records both in the run's
# summary and the image's org.opencontainers.image.base.name label.
ARG NODE_IMAGE=node:24-slim
ARG RUNTIME_IMAGE=gcr.io/distroless/nodejs24-debian13:nonroot

# Compile, then pack exactly what the package publishes.
FROM ${NODE_IMAGE} AS build
WORKDIR /build
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY src/ src/
RUN npm run build && npm pack --silent && mv tekton-resource-gc-*.tgz package.tgz

# Unpack the package and install its production dependencies from the lockfile.
FROM ${NODE_IMAGE} AS install
WORKDIR /app
COPY --from=build /build/package.tgz ./
COPY package-lock.json ./
RUN tar -xzf package.tgz --strip-components=1 && rm package.tgz \
 && npm ci --omit=dev --ignore-scripts --no-audit --no-fund
# What no run of the collector reads, more than half of the tree (@kubernetes/client-node
# ships its generated API with declarations and source maps): TypeScript, which Node.js
# does not load from node_modules; dependencies' source maps, read only by
# --enable-source-maps, without which a stack frame in a dependency shows its compiled
# line; the `.bare` addons of tar-fs's bare-* dependencies, which only the Bare runtime
# loads (under Node.js tar-fs imports Node's own fs and path); and packages' tests, docs,
# examples and Markdown, which no module requires. Licenses and our own dist/*.map stay.
RUN find node_modules -type d \( -name test -o -name tests -o -name __tests__ -o -name docs -o -name examples \) -prune -exec rm -rf {} + \
 && find node_modules -type f \( -name '*.ts' -o -name '*.mts' -o -name '*.cts' -o -name '*.map' -o -name '*.bare' \
      -o \( -name '*.md' ! -iname 'licen[cs]e*' \) \) -delete

FROM ${RUNTIME_IMAGE}
# What registries and scanners show about the image
# (https://github.com/opencontainers/image-spec/blob/main/annotations.md). The release
# workflow sets VERSION, REVISION and SOURCE, and RUNTIME_IMAGE to this stage's base by digest.
ARG RUNTIME_IMAGE
ARG VERSION=unreleased
ARG REVISION=unknown
ARG SOURCE=https://github.com/tekton-resource-gc/tekton-resource-gc
LABEL org.opencontainers.image.title="tekton-resource-gc" \
      org.opencontainers.image.description="Deletes Tekton PipelineResources whose referencing PipelineRuns and TaskRuns are all finished or gone" \
      org.opencontainers.image.licenses="Apache-2.0" \
      org.opencontainers.image.source="${SOURCE}" \
      org.opencontainers.image.version="${VERSION}" \
      org.opencontainers.image.revision="${REVISION}" \
      org.opencontainers.image.base.name="${RUNTIME_IMAGE}"
WORKDIR /app
COPY --from=install /app/package.json ./package.json
COPY --from=install /app/dist ./dist
COPY --from=install /app/node_modules ./node_modules
# The chart's runAsUser; distroless's nonroot user.
USER 65532:65532
# A young generation of 4 MiB semi-spaces instead of 16: a pass makes mostly short-lived
# garbage (each listed run is parsed, made into a record and dropped), and a small young
# generation collects it sooner, in cache. Measured by npm run bench, which runs the CLI with
# these flags: at the default size peak RSS 154-181 -> 141-143 MiB and a fifth less CPU;
# at 4x 303 -> 267 MiB (bench/RESULTS.md).
# --optimize-for-size: V8 lets the heap grow less past what is live before a full
# collection. Without it the peak followed when those collections happened to run: at 4x the
# same pass peaked at 160 to 234 MiB from one round to the next; with it at 150-152 MiB, for
# about the same CPU (bench/RESULTS.md, issue 17).
# --enable-source-maps: a stack trace in the log names the TypeScript source's lines
# (dist/*.map ship in the package).
ENTRYPOINT ["/nodejs/bin/node", "--enable-source-maps", "--max-semi-space-size=4", "--optimize-for-size", "/app/dist/main.js"]
