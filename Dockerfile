# The image deploy/deployment.yaml runs: driftdeck and, beside it (where it
# looks for them first), its helpers driftdeck-state (S3, GCS and Azure state
# buckets: the agent's stack-dead-lock policy reads and repairs locks there),
# driftdeck-pulumi and driftdeck-render. Static binaries on distroless, as
# an unprivileged user with a numeric id (runAsNonRoot can check it).
#
#   docker build -t ghcr.io/driftdeck/driftdeck:latest --build-arg VERSION=$(git describe --tags --always) .
FROM golang:1.26 AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
ENV CGO_ENABLED=0
# The flags of `make build`: stripped, without kustomize's Go plugin loader.
RUN set -e; \
    flags='-trimpath -tags kustomize_disable_go_plugin_support'; \
    ldflags="-s -w -X github.com/driftdeck/driftdeck/ui/cli.Version=${VERSION}"; \
    go build $flags -ldflags "$ldflags" -o /out/driftdeck . ; \
    for helper in driftdeck-state driftdeck-pulumi driftdeck-render; do \
      go build $flags -ldflags "$ldflags" -o /out/$helper ./cmd/$helper; \
    done

FROM gcr.io/distroless/static-debian12:nonroot
LABEL org.opencontainers.image.source=https://github.com/driftdeck/driftdeck
COPY --from=build /out/ /usr/local/bin/
# distroless's nonroot user, by number.
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/driftdeck"]
CMD ["agent"]
