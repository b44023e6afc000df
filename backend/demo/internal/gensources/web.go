package main

import "strconv"

// repository is one source repository of the demo and its history, oldest
// commit first; each commit lists the files it changes.
type repository struct {
	url, dir string
	commits  []commit
}

type commit struct {
	name, message string
	files         map[string]string
}

var repositories = []repository{webRepository, chartsRepository}

var webRepository = repository{
	url: "https://github.com/acme/web.git", dir: "web.git",
	commits: []commit{{
		name: "webPreviousCommit", message: "web-frontend: prod overlay with three replicas",
		files: map[string]string{
			"apps/web-frontend/base/kustomization.yaml":          "resources:\n  - deployment.yaml\n  - service.yaml\n",
			"apps/web-frontend/base/deployment.yaml":             deployment("web-frontend", "ghcr.io/acme/web-frontend:2.14.0", 2),
			"apps/web-frontend/base/service.yaml":                service("web-frontend"),
			"apps/web-frontend/overlays/prod/kustomization.yaml": "resources:\n  - ../../base\nreplicas:\n  - name: web-frontend\n    count: 3\n",
			"apps/web-backend/kustomization.yaml":                "resources:\n  - deployment.yaml\n  - service.yaml\n",
			"apps/web-backend/deployment.yaml":                   deployment("web-backend", "ghcr.io/acme/web-backend:1.9.2", 2),
			"apps/web-backend/service.yaml":                      service("web-backend"),
		},
	}, {
		// The commit web-frontend's build fails on: the overlay names a
		// canary directory that was never committed.
		name: "webHeadCommit", message: "web-frontend: canary in prod",
		files: map[string]string{
			"apps/web-frontend/overlays/prod/kustomization.yaml": "resources:\n  - ../../base\n  - ./canary\nreplicas:\n  - name: web-frontend\n    count: 3\n",
		},
	}},
}

func deployment(name, image string, replicas int) string {
	return `apiVersion: apps/v1
kind: Deployment
metadata:
  name: ` + name + `
  namespace: team-web
  labels:
    app.kubernetes.io/name: ` + name + `
spec:
  replicas: ` + strconv.Itoa(replicas) + `
  selector:
    matchLabels:
      app.kubernetes.io/name: ` + name + `
  template:
    metadata:
      labels:
        app.kubernetes.io/name: ` + name + `
    spec:
      containers:
        - name: ` + name + `
          image: ` + image + `
          ports:
            - containerPort: 8080
`
}

func service(name string) string {
	return `apiVersion: v1
kind: Service
metadata:
  name: ` + name + `
  namespace: team-web
spec:
  selector:
    app.kubernetes.io/name: ` + name + `
  ports:
    - port: 80
      targetPort: 8080
`
}
