package pulumistate

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
)

// pulumiHome points PULUMI_HOME at a new directory, with no token in the
// environment.
func pulumiHome(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("PULUMI_HOME", home)
	t.Setenv("PULUMI_CREDENTIALS_PATH", "")
	t.Setenv("PULUMI_ACCESS_TOKEN", "")
	return home
}

// The token is found where and as `pulumi login` stores it: the file is
// written by the sdk.
func TestStoredTokenReadsTheSDKsCredentials(t *testing.T) {
	pulumiHome(t)
	t.Setenv("PULUMI_CREDENTIAL_STORE", "plaintext")
	const service = "https://api.pulumi.example"
	err := workspace.StoreCredentials(workspace.Credentials{Current: service, Accounts: map[string]workspace.Account{
		service:                 {AccessToken: "pul-service", Username: "alice"},
		"https://other.example": {AccessToken: "pul-other"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	for base, want := range map[string]string{service: "pul-service", "https://other.example": "pul-other", "https://unknown.example": ""} {
		if got, err := storedToken(base); err != nil || got != want {
			t.Errorf("token for %s = %q, %v; want %q", base, got, err, want)
		}
	}
	if _, err := OpenCloud(service + "/"); err != nil {
		t.Errorf("opening %s with its stored token: %v", service, err)
	}
}

func TestStoredTokenFromOlderOrMissingFiles(t *testing.T) {
	home := pulumiHome(t)
	if _, err := OpenCloud("https://api.pulumi.example"); err == nil || !strings.Contains(err.Error(), "no access token for https://api.pulumi.example") {
		t.Errorf("without a credentials file: %v; want no access token", err)
	}

	older := `{"current":"https://api.pulumi.example","accessTokens":{"https://api.pulumi.example":"pul-older"}}`
	if err := os.WriteFile(filepath.Join(home, "credentials.json"), []byte(older), 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := storedToken("https://api.pulumi.example"); err != nil || got != "pul-older" {
		t.Errorf("token from accessTokens = %q, %v", got, err)
	}

	encrypted := `{"$pulumiSecureStore":1,"backend":"keyring","algo":"aes-256-gcm","nonce":"bm9uY2U=","data":"ZGF0YQ=="}`
	if err := os.WriteFile(filepath.Join(home, "credentials.json"), []byte(encrypted), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := storedToken("https://api.pulumi.example"); err == nil || !strings.Contains(err.Error(), "PULUMI_ACCESS_TOKEN") {
		t.Errorf("encrypted credentials: %v; want a pointer to PULUMI_ACCESS_TOKEN", err)
	}
}
