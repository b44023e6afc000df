package cli

import (
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/yaml"
)

// deployDocs are the YAML documents of deploy/*.yaml by kind.
func deployDocs(t *testing.T) map[string][]string {
	t.Helper()
	files, err := filepath.Glob("../../deploy/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("deploy/*.yaml: %v %v", files, err)
	}
	out := map[string][]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, doc := range regexp.MustCompile(`(?m)^---\s*$`).Split(string(b), -1) {
			var head struct{ Kind string }
			if err := yaml.Unmarshal([]byte(doc), &head); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if head.Kind != "" {
				out[head.Kind] = append(out[head.Kind], doc)
			}
		}
	}
	return out
}

func one[T any](t *testing.T, docs map[string][]string, kind string) *T {
	t.Helper()
	if len(docs[kind]) != 1 {
		t.Fatalf("deploy/ has %d %s, want 1", len(docs[kind]), kind)
	}
	var v T
	if err := yaml.UnmarshalStrict([]byte(docs[kind][0]), &v); err != nil {
		t.Fatalf("deploy/ %s: %v", kind, err)
	}
	return &v
}

func portOf(t *testing.T, addr string) int32 {
	t.Helper()
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatalf("bind address %q: %v", addr, err)
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		t.Fatalf("bind address %q: %v", addr, err)
	}
	return int32(n)
}

// deploy/ is what `kubectl apply -f deploy/` runs: the Deployment's args are
// flags `driftdeck agent` accepts, its ports are the ones the agent binds,
// the probes and the Service reach them by name, the Service carries the
// scrape annotations of the metrics port, and the ServiceMonitor selects the
// Service's port; the Deployment's image is what the Dockerfile builds.
func TestTheDeployManifestsRunTheAgentAsItsFlagsSay(t *testing.T) {
	docs := deployDocs(t)
	d := one[appsv1.Deployment](t, docs, "Deployment")
	svc := one[corev1.Service](t, docs, "Service")
	var sm struct {
		Metadata struct{ Namespace string }
		Spec     struct {
			Selector  struct{ MatchLabels map[string]string }
			Endpoints []struct{ Port, Path string }
		}
	}
	if len(docs["ServiceMonitor"]) != 1 {
		t.Fatalf("deploy/ has %d ServiceMonitors, want 1", len(docs["ServiceMonitor"]))
	}
	if err := yaml.Unmarshal([]byte(docs["ServiceMonitor"][0]), &sm); err != nil {
		t.Fatal(err)
	}

	if len(d.Spec.Template.Spec.Containers) != 1 {
		t.Fatalf("the Deployment has %d containers, want the agent alone", len(d.Spec.Template.Spec.Containers))
	}
	c := d.Spec.Template.Spec.Containers[0]
	root := newRoot(&globals{kube: newKubeFlags(), in: strings.NewReader(""), out: &strings.Builder{}, errOut: &strings.Builder{}})
	cmd, rest, err := root.Find(c.Args)
	if err != nil || cmd.Name() != "agent" {
		t.Fatalf("the Deployment's args %q do not run driftdeck agent: %v", c.Args, err)
	}
	if err := cmd.ParseFlags(rest); err != nil {
		t.Fatalf("the Deployment's args %q: %v", c.Args, err)
	}
	if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
		t.Fatalf("the Deployment's args %q: %v", c.Args, err)
	}
	flag := func(name string) string { return cmd.Flags().Lookup(name).Value.String() }
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if got, want := portOf(t, flag("metrics-bind-address")), ports["metrics"]; got != want {
		t.Errorf("--metrics-bind-address binds %d, the container's metrics port is %d", got, want)
	}
	if got, want := portOf(t, flag("health-probe-bind-address")), ports["probes"]; got != want {
		t.Errorf("--health-probe-bind-address binds %d, the container's probes port is %d", got, want)
	}
	for what, p := range map[string]*corev1.Probe{"/healthz": c.LivenessProbe, "/readyz": c.ReadinessProbe} {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != what || p.HTTPGet.Port != intstr.FromString("probes") {
			t.Errorf("the probe of %s: %+v, want an HTTP GET on the probes port", what, p)
		}
	}
	if flag("leader-elect") != "true" || *d.Spec.Replicas < 2 {
		t.Errorf("%d replicas with --leader-elect=%s: want several, one writing", *d.Spec.Replicas, flag("leader-elect"))
	}
	if got := flag("leader-election-namespace"); got != d.Namespace {
		t.Errorf("the Lease is in %s, the Deployment (and its Role's Lease rights) in %s", got, d.Namespace)
	}
	if !hasEnv(c, "POD_NAME") {
		t.Error("no POD_NAME: the replicas' Lease identities would be host names")
	}

	if svc.Namespace != d.Namespace || !subset(svc.Spec.Selector, d.Spec.Template.Labels) {
		t.Errorf("the Service (%s, selector %v) does not select the Deployment's pods (%s, %v)", svc.Namespace, svc.Spec.Selector, d.Namespace, d.Spec.Template.Labels)
	}
	a := svc.Annotations
	if a["prometheus.io/scrape"] != "true" || a["prometheus.io/path"] != "/metrics" || a["prometheus.io/port"] != strconv.Itoa(int(ports["metrics"])) {
		t.Errorf("the Service's scrape annotations %v do not name the metrics port %d and /metrics", a, ports["metrics"])
	}
	svcPorts := map[string]bool{}
	for _, p := range svc.Spec.Ports {
		svcPorts[p.Name] = true
		if p.TargetPort != intstr.FromString("metrics") && p.TargetPort != intstr.FromInt32(ports["metrics"]) {
			t.Errorf("the Service's port %s targets %s, not the metrics port", p.Name, p.TargetPort.String())
		}
	}
	if sm.Metadata.Namespace != svc.Namespace || !subset(sm.Spec.Selector.MatchLabels, svc.Labels) || len(sm.Spec.Endpoints) == 0 {
		t.Errorf("the ServiceMonitor does not select the Service: %+v", sm)
	}
	for _, e := range sm.Spec.Endpoints {
		if !svcPorts[e.Port] || e.Path != "/metrics" {
			t.Errorf("the ServiceMonitor scrapes port %q path %q; the Service has %v", e.Port, e.Path, svcPorts)
		}
	}
	checkDockerfile(t, c)
}

// checkDockerfile: the image is built with every helper beside driftdeck,
// runs as a numeric non-root user (runAsNonRoot checks only numbers) and
// starts driftdeck with the Deployment's args.
func checkDockerfile(t *testing.T, c corev1.Container) {
	t.Helper()
	b, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	df := string(b)
	helpers, err := filepath.Glob("../../cmd/*")
	if err != nil {
		t.Fatal(err)
	}
	if len(helpers) == 0 || !strings.Contains(df, "-o /out/driftdeck .") || !strings.Contains(df, "COPY --from=build /out/ /usr/local/bin/") {
		t.Error("the Dockerfile does not build driftdeck into /usr/local/bin")
	}
	for _, h := range helpers {
		if name := filepath.Base(h); !regexp.MustCompile(`for helper in [^;]*\b` + name + `\b`).MatchString(df) {
			t.Errorf("the Dockerfile does not build the helper %s", name)
		}
	}
	user := regexp.MustCompile(`(?m)^USER (\d+)(:\d+)?$`).FindStringSubmatch(df)
	if user == nil || user[1] == "0" {
		t.Errorf("the image's USER is not a numeric non-root id: %v", user)
	}
	if !strings.Contains(df, `ENTRYPOINT ["/usr/local/bin/driftdeck"]`) || len(c.Command) != 0 {
		t.Errorf("the image's entrypoint is not driftdeck, or the Deployment overrides it (%q)", c.Command)
	}
	if c.Image != "ghcr.io/driftdeck/driftdeck:latest" || !strings.Contains(df, "docker build -t "+c.Image) {
		t.Errorf("the Deployment runs %s, which the Dockerfile's build line does not tag", c.Image)
	}
}

func hasEnv(c corev1.Container, name string) bool {
	for _, e := range c.Env {
		if e.Name == name {
			return true
		}
	}
	return false
}

func subset(small, big map[string]string) bool {
	for k, v := range small {
		if big[k] != v {
			return false
		}
	}
	return len(small) > 0
}
