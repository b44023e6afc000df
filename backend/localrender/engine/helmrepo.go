package engine

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/repo"

	"github.com/driftdeck/driftdeck/backend/localrender"
)

// Limits on what a Helm repository sends: the largest public indexes are
// tens of megabytes, charts a few.
const (
	maxIndexBytes = 256 << 20
	maxChartBytes = 64 << 20
)

var helmHTTP = &http.Client{Timeout: 2 * time.Minute}

// pullChart downloads chart name from the Helm repository at repoURL, as
// `helm pull --repo` does: version is an exact version or a semver range
// ("" or "*": the newest release). It returns the chart and its version.
func pullChart(ctx context.Context, repoURL, name, version string) (*chart.Chart, string, error) {
	if strings.HasPrefix(repoURL, "oci://") {
		return nil, "", unsupported("a chart from an OCI registry (" + localrender.RedactURL(repoURL) + ")")
	}
	if !strings.HasPrefix(repoURL, "https://") && !strings.HasPrefix(repoURL, "http://") {
		return nil, "", fmt.Errorf("Helm repository %q is not an http(s) URL", localrender.RedactURL(repoURL))
	}
	indexURL := strings.TrimSuffix(repoURL, "/") + "/index.yaml"
	data, err := download(ctx, indexURL, maxIndexBytes)
	if err != nil {
		return nil, "", err
	}
	index, err := loadIndex(data)
	if err != nil {
		return nil, "", fmt.Errorf("the index of %s: %w", localrender.RedactURL(repoURL), err)
	}
	if version == "*" {
		version = ""
	}
	cv, err := index.Get(name, version)
	if err != nil {
		return nil, "", fmt.Errorf("chart %s %s in %s: %w", name, version, localrender.RedactURL(repoURL), err)
	}
	if len(cv.URLs) == 0 {
		return nil, "", fmt.Errorf("chart %s %s in %s has no download URL", name, cv.Version, localrender.RedactURL(repoURL))
	}
	chartURL, err := repo.ResolveReferenceURL(repoURL, cv.URLs[0])
	if err != nil {
		return nil, "", err
	}
	archive, err := download(ctx, chartURL, maxChartBytes)
	if err != nil {
		return nil, "", err
	}
	ch, err := loader.LoadArchive(bytes.NewReader(archive))
	if err != nil {
		return nil, "", fmt.Errorf("chart %s %s: %w", name, cv.Version, err)
	}
	return ch, cv.Version, nil
}

// loadIndex parses a repository index with helm's own rules (through a
// file: helm reads indexes only from disk).
func loadIndex(data []byte) (*repo.IndexFile, error) {
	f, err := os.CreateTemp("", "driftdeck-index-*.yaml")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return repo.LoadIndexFile(f.Name())
}

func download(ctx context.Context, url string, limit int64) ([]byte, error) {
	shown := localrender.RedactURL(url)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := helmHTTP.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %w", shown, err)
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return nil, unsupported(fmt.Sprintf("a Helm repository that needs credentials (%s answered %s)", shown, resp.Status))
	case resp.StatusCode != http.StatusOK:
		return nil, fmt.Errorf("fetching %s: %s", shown, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("fetching %s: %w", shown, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s is larger than %d MB", shown, limit>>20)
	}
	return data, nil
}
