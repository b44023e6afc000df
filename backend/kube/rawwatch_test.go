package kube

import (
	"io"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

func TestStreamWatchDecodesErrorsAndEndsOnBadInput(t *testing.T) {
	body := `{"type":"ERROR","object":{"kind":"Status","apiVersion":"v1","status":"Failure","message":"too old resource version: 1 (41)","reason":"Expired","code":410}}
{"type":"ADDED","object":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"}}}
not json`
	w := &streamWatch{body: io.NopCloser(strings.NewReader(body)), result: make(chan watch.Event, 4), done: make(chan struct{})}
	go w.run()
	ev := <-w.ResultChan()
	st, ok := ev.Object.(*metav1.Status)
	if ev.Type != watch.Error || !ok || st.Code != 410 || st.Reason != metav1.StatusReasonExpired {
		t.Fatalf("error event: %s %#v", ev.Type, ev.Object)
	}
	if ev := <-w.ResultChan(); ev.Type != watch.Added {
		t.Fatalf("got %s", ev.Type)
	}
	if _, open := <-w.ResultChan(); open {
		t.Fatal("undecodable input must end the watch, so the reflector starts a new one")
	}
}
