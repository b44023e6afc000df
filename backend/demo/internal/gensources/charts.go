package main

// chartsRepository holds team-web's chart: web-cache, a Redis cache. The
// release the demo seeds (backend/demo/webcache.go) is 0.4.0's render; the
// head moves it to 0.5.0, which a HelmRelease diff shows.
var chartsRepository = repository{
	url: "https://github.com/acme/charts.git", dir: "charts.git",
	commits: []commit{{
		name: "chartsPreviousCommit", message: "web-cache 0.4.0",
		files: map[string]string{
			"web-cache/Chart.yaml":                "apiVersion: v2\nname: web-cache\nversion: 0.4.0\nappVersion: \"7.2\"\n",
			"web-cache/values.yaml":               "image: redis:7.2.5\nreplicas: 1\nmaxmemory: \"\"\n",
			"web-cache/templates/deployment.yaml": webCacheDeployment,
			"web-cache/templates/service.yaml":    webCacheService,
			"web-cache/templates/configmap.yaml":  webCacheConfig,
		},
	}, {
		name: "chartsHeadCommit", message: "web-cache 0.5.0: Redis 7.4, memory capped by default",
		files: map[string]string{
			"web-cache/Chart.yaml":  "apiVersion: v2\nname: web-cache\nversion: 0.5.0\nappVersion: \"7.4\"\n",
			"web-cache/values.yaml": "image: redis:7.4.1\nreplicas: 1\nmaxmemory: 256mb\n",
		},
	}},
}

const webCacheDeployment = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ .Release.Name }}
  labels:
    app.kubernetes.io/name: web-cache
    helm.sh/chart: web-cache-{{ .Chart.Version }}
spec:
  replicas: {{ .Values.replicas }}
  selector:
    matchLabels:
      app.kubernetes.io/name: web-cache
  template:
    metadata:
      labels:
        app.kubernetes.io/name: web-cache
    spec:
      containers:
        - name: redis
          image: {{ .Values.image }}
          args: ["/etc/redis/redis.conf"]
          ports:
            - containerPort: 6379
`

const webCacheService = `apiVersion: v1
kind: Service
metadata:
  name: {{ .Release.Name }}
  labels:
    app.kubernetes.io/name: web-cache
    helm.sh/chart: web-cache-{{ .Chart.Version }}
spec:
  selector:
    app.kubernetes.io/name: web-cache
  ports:
    - port: 6379
`

const webCacheConfig = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-config
  labels:
    app.kubernetes.io/name: web-cache
    helm.sh/chart: web-cache-{{ .Chart.Version }}
data:
  redis.conf: |
    appendonly no
    {{- with .Values.maxmemory }}
    maxmemory {{ . }}
    maxmemory-policy allkeys-lru
    {{- end }}
`
