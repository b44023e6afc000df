package tfplan

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sort"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
)

// What tofu-controller names and marks its stored plans with.
const (
	DataKey             = "tfplan"
	AnnotationSavedPlan = "savedPlan"
	AnnotationChunk     = "infra.contrib.fluxcd.io/plan-chunk"
	AnnotationEncoding  = "encoding"
	LabelPlanName       = "infra.contrib.fluxcd.io/plan-name"
	LabelPlanWorkspace  = "infra.contrib.fluxcd.io/plan-workspace"
	JSONSuffix          = ".json"
)

// ObjectName is the name of a stored plan object (before any chunk suffix):
// tfplan-<workspace>-<name><suffix>.
func ObjectName(workspace, name, suffix string) string {
	return "tfplan-" + workspace + "-" + name + suffix
}

// stored is one plan as read from its objects, chunks joined.
type stored struct {
	id    string // the savedPlan annotation
	data  []byte
	where string // e.g. "ConfigMap flux-system/tfplan-default-infra (2 chunks)"
}

// piece is one object of a stored plan.
type piece struct {
	name        string
	annotations map[string]string
	data        []byte
}

// readConfigMap reads the human-readable plan; nil when none is stored.
func readConfigMap(ctx context.Context, kc kubernetes.Interface, ns, workspace, name string) (*stored, error) {
	objName := ObjectName(workspace, name, "")
	list, err := kc.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{LabelSelector: planSelector(workspace, name, "")})
	if err != nil {
		return nil, fmt.Errorf("listing plan ConfigMaps in %s: %w", ns, err)
	}
	var pieces []piece
	for _, cm := range list.Items {
		pieces = append(pieces, piece{cm.Name, cm.Annotations, []byte(cm.Data[DataKey])})
	}
	if len(pieces) == 0 {
		cm, err := kc.CoreV1().ConfigMaps(ns).Get(ctx, objName, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading ConfigMap %s/%s: %w", ns, objName, err)
		}
		pieces = append(pieces, piece{cm.Name, cm.Annotations, []byte(cm.Data[DataKey])})
	}
	return join("ConfigMap", ns, objName, pieces)
}

// readSecret reads a plan stored in Secrets (the saved plan, or the JSON one
// with suffix .json), gunzipped; nil when none is stored.
func readSecret(ctx context.Context, kc kubernetes.Interface, ns, workspace, name, suffix string) (*stored, error) {
	objName := ObjectName(workspace, name, suffix)
	list, err := kc.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{LabelSelector: planSelector(workspace, name, suffix)})
	if err != nil {
		return nil, fmt.Errorf("listing plan Secrets in %s: %w", ns, err)
	}
	items := list.Items
	if len(items) == 0 {
		s, err := kc.CoreV1().Secrets(ns).Get(ctx, objName, metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("reading Secret %s/%s: %w", ns, objName, err)
		}
		items = []corev1.Secret{*s}
	}
	var pieces []piece
	for _, s := range items {
		pieces = append(pieces, piece{s.Name, s.Annotations, s.Data[DataKey]})
	}
	st, err := join("Secret", ns, objName, pieces)
	if err != nil {
		return nil, err
	}
	// The chunks split the gzipped bytes: join first, then decompress.
	if st.data, err = gunzip(st.data); err != nil {
		return nil, fmt.Errorf("%s: %w", st.where, err)
	}
	return st, nil
}

func planSelector(workspace, name, suffix string) string {
	return labels.SelectorFromSet(labels.Set{LabelPlanName: labelValue(name + suffix), LabelPlanWorkspace: labelValue(workspace)}).String()
}

// labelValue is the label value tofu-controller (v0.16.1 and later) gives a
// plan's name or workspace: the value itself up to the 63 characters a
// label allows; a longer one cut to leave room for a dash and the first 8
// bytes of its SHA-256 in hex, so that names sharing a long prefix differ.
func labelValue(v string) string {
	const limit = 63
	if len(v) <= limit {
		return v
	}
	sum := sha256.Sum256([]byte(v))
	tail := "-" + hex.EncodeToString(sum[:8])
	return v[:limit-len(tail)] + tail
}

// join orders the chunks by their index and checks they form one plan.
func join(kind, ns, objName string, pieces []piece) (*stored, error) {
	where := kind + " " + ns + "/" + objName
	if len(pieces) == 1 && pieces[0].annotations[AnnotationChunk] == "" {
		return &stored{id: pieces[0].annotations[AnnotationSavedPlan], data: pieces[0].data, where: where}, nil
	}
	idx := make(map[int]piece, len(pieces))
	for _, p := range pieces {
		n, err := strconv.Atoi(p.annotations[AnnotationChunk])
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%s %s/%s: annotation %s is %q, not a chunk index", kind, ns, p.name, AnnotationChunk, p.annotations[AnnotationChunk])
		}
		if _, dup := idx[n]; dup {
			return nil, fmt.Errorf("%s: chunk %d is stored twice", where, n)
		}
		idx[n] = p
	}
	keys := make([]int, 0, len(idx))
	for n := range idx {
		keys = append(keys, n)
	}
	sort.Ints(keys)
	id := idx[keys[0]].annotations[AnnotationSavedPlan]
	var buf bytes.Buffer
	for i, n := range keys {
		if n != i {
			return nil, fmt.Errorf("%s: chunk %d is missing (the plan may be being rewritten; try again)", where, i)
		}
		p := idx[n]
		if got := p.annotations[AnnotationSavedPlan]; got != id {
			return nil, fmt.Errorf("%s: chunks of different plans (%s and %s; the plan may be being rewritten, try again)", where, id, got)
		}
		buf.Write(p.data)
	}
	return &stored{id: id, data: buf.Bytes(), where: fmt.Sprintf("%s (%d chunks)", where, len(keys))}, nil
}

// maxPlanBytes bounds a decompressed plan, against a hostile gzip stream.
const maxPlanBytes = 256 << 20

func gunzip(data []byte) ([]byte, error) {
	zr, err := gzip.NewReader(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("not gzip data: %w", err)
	}
	out, err := io.ReadAll(io.LimitReader(zr, maxPlanBytes+1))
	if err != nil {
		return nil, fmt.Errorf("decompressing: %w", err)
	}
	if len(out) > maxPlanBytes {
		return nil, fmt.Errorf("plan larger than %d MiB", maxPlanBytes>>20)
	}
	return out, nil
}
