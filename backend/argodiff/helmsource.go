package argodiff

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/version"
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/yaml"

	"github.com/driftdeck/driftdeck/backend/kube"
	"github.com/driftdeck/driftdeck/backend/localrender"
	"github.com/driftdeck/driftdeck/backend/objread"
)

// readHelm reads spec.source.helm into the settings the repo-server turns
// into `helm template` flags. Those the controller adds (release name,
// namespace, kube version, API versions) are added by helmChart.
func readHelm(s *objread.Reader) (localrender.HelmChart, error) {
	h := s.At("helm")
	chart := localrender.HelmChart{
		ReleaseName: h.Str("releaseName"),
		Namespace:   h.Str("namespace"),
		KubeVersion: h.Str("kubeVersion"),
		APIVersions: h.Strings("apiVersions"),
		ValueFiles:  h.Strings("valueFiles"),
		Values:      h.Str("values"),
	}
	chart.IgnoreMissingValueFiles, _ = h.Bool("ignoreMissingValueFiles")
	skipCrds, _ := h.Bool("skipCrds")
	chart.IncludeCRDs = !skipCrds
	chart.SkipTests, _ = h.Bool("skipTests")
	chart.SkipSchemaValidation, _ = h.Bool("skipSchemaValidation")
	// valuesObject wins over values, as in Argo CD.
	if obj := h.Map("valuesObject"); obj != nil {
		y, err := yaml.Marshal(obj)
		if err != nil {
			return chart, fmt.Errorf("spec.source.helm.valuesObject: %w", err)
		}
		chart.Values = string(y)
	}
	for _, p := range h.Objects("parameters") {
		force, _ := p.Bool("forceString")
		chart.Parameters = append(chart.Parameters, localrender.HelmParameter{Name: p.Str("name"), Value: p.Str("value"), ForceString: force})
	}
	for _, p := range h.Objects("fileParameters") {
		chart.FileParameters = append(chart.FileParameters, localrender.HelmParameter{Name: p.Str("name"), Value: p.Str("path")})
	}
	return chart, nil
}

// helmChart completes the settings as the application controller does:
// the release is named after the Application, the namespace is the
// destination's, and the kube version and API versions are the
// destination cluster's (unless the source sets them); the build
// environment is Argo CD's.
func (a *appSpec) helmChart(src sourceSpec, cluster clusterInfo) localrender.HelmChart {
	h := src.helmChart
	if h.ReleaseName == "" {
		h.ReleaseName = a.name
	}
	if h.Namespace == "" {
		h.Namespace = a.destNamespace
	}
	if h.KubeVersion == "" {
		h.KubeVersion = cluster.kubeVersion
	}
	if len(h.APIVersions) == 0 {
		h.APIVersions = cluster.apiVersions
	}
	h.Chart = src.chart
	h.Refs = a.refs()
	h.Env = map[string]string{
		"ARGOCD_APP_NAME":                   a.name,
		"ARGOCD_APP_NAMESPACE":              a.destNamespace,
		"ARGOCD_APP_PROJECT_NAME":           a.project,
		"ARGOCD_APP_SOURCE_REPO_URL":        src.repoURL,
		"ARGOCD_APP_SOURCE_PATH":            src.path,
		"ARGOCD_APP_SOURCE_TARGET_REVISION": src.targetRevision,
	}
	return h
}

// clusterInfo is what the controller tells the repo-server of the
// destination cluster.
type clusterInfo struct {
	kubeVersion string
	apiVersions []string
}

// readClusterInfo is what the controller passes the repo-server: the
// server's major.minor, parsed as Argo CD does ("1.37"), and every served
// group/version with and without each kind.
func readClusterInfo(disco discovery.DiscoveryInterface) (clusterInfo, error) {
	info, err := disco.ServerVersion()
	if err != nil {
		return clusterInfo{}, fmt.Errorf("reading the cluster's version for the Helm render: %w", err)
	}
	v, err := version.ParseGeneric(info.Major + "." + info.Minor)
	if err != nil {
		return clusterInfo{}, fmt.Errorf("the cluster's version %s.%s: %w", info.Major, info.Minor, err)
	}
	apis, err := kube.ServedAPIVersions(disco)
	if err != nil {
		return clusterInfo{}, fmt.Errorf("the Helm render: %w", err)
	}
	return clusterInfo{kubeVersion: v.String(), apiVersions: apis}, nil
}
