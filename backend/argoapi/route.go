package argoapi

import "github.com/driftdeck/driftdeck/backend/model"

// Routes finds the API server a context's Applications go through (nil
// when none does).
type Routes func(context string) (*Client, bool)

// For is the API server unit k is read and written through: nil when k is
// not an Application or its context goes through the Kubernetes API.
func (r Routes) For(k model.Key) *Client {
	if r == nil || k.Engine != model.EngineArgoCD {
		return nil
	}
	api, _ := r(k.Context)
	return api
}

// AppOf names the Application of unit k as the API server takes it.
func AppOf(k model.Key) App { return App{Namespace: k.Namespace, Name: k.Name} }
