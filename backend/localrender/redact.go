package localrender

import "net/url"

// RedactURL hides the credentials a repository URL may carry.
func RedactURL(repoURL string) string {
	u, err := url.Parse(repoURL)
	if err != nil || u.User == nil {
		return repoURL
	}
	return u.Redacted()
}
