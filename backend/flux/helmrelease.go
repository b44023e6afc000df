package flux

import (
	"fmt"

	"github.com/driftdeck/driftdeck/backend/model"
	"github.com/driftdeck/driftdeck/backend/objread"
)

// ConvertHelmRelease turns a HelmRelease object (v2, and the v2beta1/v2beta2
// shapes) into a unit of the given context. It never fails: what it cannot
// read is listed in ReadErrors.
func ConvertHelmRelease(context string, obj map[string]any) *model.Unit {
	r := objread.New(obj)
	u, f := NewUnit(context, model.EngineHelmRelease, "HelmRelease", r)
	spec, st := r.At("spec"), r.At("status")
	// NewUnit has read (and reported) the annotations already.
	ann := objread.New(obj).StringMap("metadata", "annotations")
	h := &model.HelmFacts{
		ReleaseName:        spec.Str("releaseName"),
		Chart:              spec.Str("chart", "spec", "chart"),
		Failures:           st.Int("failures"),
		InstallFailures:    st.Int("installFailures"),
		UpgradeFailures:    st.Int("upgradeFailures"),
		InstallRetries:     spec.Int("install", "remediation", "retries"),
		UpgradeRetries:     spec.Int("upgrade", "remediation", "retries"),
		LastAction:         st.Str("lastAttemptedReleaseAction"),
		ForceAt:            ann[AnnotationForceAt],
		ResetAt:            ann[AnnotationResetAt],
		LastHandledForceAt: st.Str("lastHandledForceAt"),
		LastHandledReset:   st.Str("lastHandledResetAt"),
		DriftDetection:     spec.Str("driftDetection", "mode"),
	}
	if spec.Has("chartRef") {
		f.Source = ReadSource(spec.At("chartRef"), u.Key.Namespace)
		h.Chart = f.Source.Name
	} else {
		f.Source = ReadSource(spec.At("chart", "spec", "sourceRef"), u.Key.Namespace)
	}
	for _, s := range st.Objects("history") {
		h.History = append(h.History, model.HelmRelease{
			Version: s.Int("version"), Status: s.Str("status"), ChartName: s.Str("chartName"),
			ChartVersion: s.Str("chartVersion"), AppVersion: s.Str("appVersion"), Deployed: s.Time("lastDeployed"),
		})
	}
	stalled := Condition(f.Conditions, "Stalled")
	h.RetriesExhausted = Is(stalled, "True") && stalled.Reason == ReasonRetriesExceeded
	f.Helm = h
	f.LastApplied = deployedChart(h, st)
	u.Flux = f
	u.Desired, u.Applied = f.LastAttempted, f.LastApplied

	ReadHealth(u, f)
	ready := Condition(f.Conditions, "Ready")
	switch {
	case Is(Condition(f.Conditions, "Drifted"), "True"):
		u.Sync, u.SyncNative = model.Drifted, "Drifted: cluster state differs from the release"
	case len(h.History) > 0 && h.History[0].Status != "deployed":
		u.Sync, u.SyncNative = model.Drifted, "release "+fmt.Sprint(h.History[0].Version)+" "+h.History[0].Status
	case f.LastAttempted != "" && f.LastApplied != "" && f.LastAttempted != f.LastApplied:
		u.Sync, u.SyncNative = model.Drifted, "chart "+f.LastAttempted+" not released"
	case Is(ready, "True"):
		u.Sync, u.SyncNative = model.InSync, "Released"
	}
	ReadAutomation(u, f, h.DriftDetection == "enabled")
	ClassifyRun(u, f, stalledRule(h))
	if u.Observed == model.Failed {
		u.RunReason += remediationWords(h)
	}
	Finish(u, r)
	return u
}

// deployedChart is the chart version of the newest deployed release in
// history (v2), or status.lastAppliedRevision (v2beta1).
func deployedChart(h *model.HelmFacts, st *objread.Reader) string {
	for _, s := range h.History {
		if s.Status == "deployed" {
			return s.ChartVersion
		}
	}
	return st.Str("lastAppliedRevision")
}

func stalledRule(h *model.HelmFacts) string {
	if !h.RetriesExhausted {
		return ""
	}
	return fmt.Sprintf("%s retries exhausted (%s): helm-controller does nothing until the spec changes or a reset or force is requested (reconcile.fluxcd.io/resetAt or forceAt)",
		orUnset(h.LastAction), failureCount(h))
}

// remediationWords says how many failures the remediation still allows.
func remediationWords(h *model.HelmFacts) string {
	if h.LastAction != "install" && h.LastAction != "upgrade" {
		return ""
	}
	return " (" + failureCount(h) + ")"
}

func failureCount(h *model.HelmFacts) string {
	failures, retries := h.UpgradeFailures, h.UpgradeRetries
	if h.LastAction == "install" {
		failures, retries = h.InstallFailures, h.InstallRetries
	}
	if retries < 0 {
		return fmt.Sprintf("%s failure %d, retried forever", h.LastAction, failures)
	}
	return fmt.Sprintf("%s failure %d of %d allowed retries", h.LastAction, failures, retries)
}

// helmReleaseKeep is what ConvertHelmRelease reads (not values or inventory).
var helmReleaseKeep = Keep{
	"apiVersion": nil, "kind": nil, "metadata": Metadata,
	"spec": Keep{
		"suspend": nil, "interval": nil, "dependsOn": nil, "releaseName": nil, "chartRef": nil,
		"chart":          Keep{"spec": Keep{"chart": nil, "sourceRef": nil}},
		"install":        Keep{"remediation": Keep{"retries": nil}},
		"upgrade":        Keep{"remediation": Keep{"retries": nil}},
		"driftDetection": Keep{"mode": nil},
	},
	"status": Keep{
		"conditions": nil, "lastAttemptedRevision": nil, "lastAppliedRevision": nil, "lastHandledReconcileAt": nil,
		"lastHandledForceAt": nil, "lastHandledResetAt": nil, "observedGeneration": nil, "failures": nil,
		"installFailures": nil, "upgradeFailures": nil, "lastAttemptedReleaseAction": nil,
		"history": Keep{"version": nil, "status": nil, "chartName": nil, "chartVersion": nil, "appVersion": nil, "lastDeployed": nil},
	},
}

// DecodeHelmRelease decodes a HelmRelease's JSON keeping only what
// ConvertHelmRelease reads.
func DecodeHelmRelease(data []byte) (map[string]any, error) {
	return DecodeKept(data, helmReleaseKeep)
}
